import Foundation
import Testing
import YAJL
import YAJLTestSupport

@testable import YAJLCore

/// The Foundation-free file descriptor source and sink of `YAJLCore` (`.standardInput`,
/// `.standardOutput`, `.fileDescriptor(fd)`, `.file(path)` for output): who closes what, and how
/// errors name the descriptor.
@Suite("File descriptor sources and sinks")
struct FileDescriptorIOTests {
    /// Descriptors open in this process now.
    static func openDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }

    static func writeArray(_ values: [Int64], to sink: some JSONOutputSink) throws {
        let writer = JSONWriter(to: sink)
        try writer.startArray()
        for value in values { try writer.integer(value) }
        try writer.endArray()
        try writer.finish()
    }

    @Test func aFileSinkClosesWhatItOpened() throws {
        let file = TemporaryFile("fd-sink.json")
        defer { file.remove() }
        let before = try Self.openDescriptors()
        // More writers than a default descriptor limit would allow if each leaked its file.
        for round in 0..<1500 { try Self.writeArray([Int64(round), 2], to: try .file(file.path)) }
        #expect(try Self.openDescriptors() == before)
        #expect(try String(contentsOfFile: file.path, encoding: .utf8) == "[1499,2]")
    }

    @Test func aGivenDescriptorStaysOpen() throws {
        let file = TemporaryFile("fd-given.json")
        defer { file.remove() }
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: file.path))
        try Self.writeArray([1, 2, 3], to: .fileDescriptor(handle.fileDescriptor))
        try handle.write(contentsOf: Data(" and more".utf8))  // still open: the sink did not close it
        try handle.close()
        #expect(try String(contentsOfFile: file.path, encoding: .utf8) == "[1,2,3] and more")
    }

    @Test func aDescriptorSourceReadsAPipeAndLeavesItOpen() throws {
        let pipe = Pipe()
        let document = "{\"a\": [1, 2, {\"b\": null}]}"
        try pipe.fileHandleForWriting.write(contentsOf: Data(document.utf8))
        try pipe.fileHandleForWriting.close()
        let fd = pipe.fileHandleForReading.fileDescriptor
        let reader = try JSONRecordReader(JSONValue.self, at: "$", from: .fileDescriptor(fd))
        #expect(try reader.next() == (try JSONValue(parsing: document)))
        #expect(try reader.next() == nil)
        #expect(fcntl(fd, F_GETFD) != -1, "the source closed a descriptor it does not own")
    }

    @Test func errorsNameTheDescriptor() throws {
        let file = TemporaryFile("fd-readonly.json")
        defer { file.remove() }
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data("[]".utf8)))
        let handle = try #require(FileHandle(forReadingAtPath: file.path))
        defer { try? handle.close() }
        let fd = handle.fileDescriptor
        let error = try #require(throws: JSONIOError.self) { try Self.writeArray([1], to: .fileDescriptor(fd)) }
        #expect(error.description.contains("fd \(fd)"), "\(error)")
        // Reading a descriptor open only for writing: the read error names it too.
        let output = TemporaryFile("fd-writeonly.json")
        defer { output.remove() }
        #expect(FileManager.default.createFile(atPath: output.path, contents: nil))
        let writeOnly = try #require(FileHandle(forWritingAtPath: output.path))
        defer { try? writeOnly.close() }
        let readError = try #require(throws: (any Error).self) {
            try JSONParser.validate(.fileDescriptor(writeOnly.fileDescriptor))
        }
        #expect("\(readError)".contains("fd \(writeOnly.fileDescriptor)"), "\(readError)")
        #expect(FileDescriptorByteSource.standardInput.fileDescriptor == 0)
    }

    /// The size the tool's progress line, `yajl split`'s manifest and the download cache's eviction
    /// read: from `stat`, the same with or without Foundation's bridging linked in.
    @Test func fileSizesComeFromStat() throws {
        let file = TemporaryFile("fd-size.bin")
        defer { file.remove() }
        for size in [0, 1, 4095, 70_001] {
            #expect(FileManager.default.createFile(atPath: file.path, contents: Data(count: size)))
            #expect(Syscalls.fileSize(atPath: file.path) == size)
        }
        #expect(Syscalls.fileSize(atPath: file.path + ".missing") == nil)
    }

    /// A file-system error from `FileManager` reads as the OS says it, not as a dump of its fields.
    @Test func fileSystemErrorsReadAsTheOSWordsThem() throws {
        let file = TemporaryFile("fd-notadir")
        defer { file.remove() }
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data()))
        let error = try #require(throws: (any Error).self) {
            try FileManager.default.createDirectory(atPath: file.path + "/sub", withIntermediateDirectories: true)
        }
        #expect(Syscalls.describe(error) == Syscalls.message(forErrno: ENOTDIR), "\(error)")
        struct Other: Error, CustomStringConvertible { var description: String { "other" } }
        #expect(Syscalls.describe(Other()) == "other")
    }

    @Test(arguments: [
        ("  a b  ", "a b"), ("\t\r\nvalue\r\n", "value"), ("", ""), (" \t ", ""), ("x", "x"),
        ("\u{0B}\u{0C}é\u{0C}", "é"), ("\u{A0}kept\u{A0}", "\u{A0}kept\u{A0}"),
    ])
    func asciiWhitespaceIsTrimmed(text: String, expected: String) {
        #expect(text.trimmingASCIIWhitespace() == expected)
        #expect(text[...].trimmingASCIIWhitespace() == expected)
    }

    /// `ConditionLock`, which replaced `NSCondition`: a waiter wakes on a signal, and a timed wait
    /// returns without one.
    @Test func theConditionLockWakesWaitersAndTimesOut() async throws {
        let lock = ConditionLock()
        let box = UnsafeSendableBox()
        let start = ContinuousClock.now
        lock.withLock { lock.wait(seconds: 0.05) }
        #expect(ContinuousClock.now - start >= .milliseconds(40))
        let waiter = Task.detached {
            lock.withLock {
                while !box.ready { lock.wait() }
                return box.value
            }
        }
        try await Task.sleep(for: .milliseconds(20))
        lock.withLock {
            box.value = 42
            box.ready = true
            lock.broadcast()
        }
        #expect(await waiter.value == 42)
    }
}

/// State shared under a ``ConditionLock`` in the test above.
private final class UnsafeSendableBox: @unchecked Sendable {
    var ready = false
    var value = 0
}
