// A sink that fails: the call that handed it bytes throws, and so does every call after it, without
// writing to the sink again (the writer checks the sink only when it hands bytes over).

import Foundation
import Testing
import YAJL

@Suite("Writer sink failure")
struct WriterSinkFailureTests {
    struct SinkBroke: Error, CustomStringConvertible {
        var description: String { "the sink broke" }
    }

    /// What a failed sink's error is, as the writer throws it.
    enum Expected {
        /// A `JSONWriterError` of kind `outputFailed` naming the sink's own error.
        case wrapped
        /// The sink's `JSONIOError`, passed through with this operation.
        case ioError(JSONIOError.Operation)

        func matches(_ error: any Error) -> Bool {
            switch self {
            case .wrapped:
                guard let error = error as? JSONWriterError else { return false }
                return error.kind == .outputFailed && error.message.contains("the sink broke")
            case .ioError(let operation):
                guard let error = error as? JSONIOError else { return false }
                return error.operation == operation && error.errno == ENOSPC
            }
        }
    }

    /// Every kind of call, made after the sink failed: each must throw the sink's error.
    static var laterCalls: [(String, (JSONWriter) throws -> Void)] {
        [
            ("startArray", { try $0.startArray() }),
            ("startObject", { try $0.startObject() }),
            ("endArray", { try $0.endArray() }),
            ("key", { try $0.key("k") }),
            ("endObject", { try $0.endObject() }),
            ("string", { try $0.string("later") }),
            (
                "string(utf8:)",
                { w in
                    try "x".utf8CString.withUnsafeBytes {
                        try w.string(utf8: UnsafeRawBufferPointer(rebasing: $0.dropLast()))
                    }
                }
            ),
            ("number text", { w in try Array("12.5".utf8).withUnsafeBytes { try w.number(text: $0) } }),
            ("integer", { try $0.integer(7) }),
            ("double", { try $0.double(0.5) }),
            ("bool", { try $0.bool(true) }),
            ("null", { try $0.null() }),
            ("write(JSONValue)", { try $0.write(.array([.string("v")])) }),
            ("flush", { try $0.flush() }),
            ("finish", { try $0.finish() }),
        ]
    }

    /// Writes strings into an open array until a call throws (the first one that hands bytes to
    /// the sink), then checks that error and every later call (a key and an object's end too, although no
    /// object is open: the failure comes first).
    static func checkFailure(
        writer: JSONWriter,
        expected: Expected,
        sinkCalls: () -> Int,
        _ label: String
    ) throws {
        try writer.startArray()
        var firstError: (any Error)?
        var calls = 0
        while firstError == nil && calls < 10_000 {
            calls += 1
            do { try writer.string("a value long enough to pass the buffer") } catch { firstError = error }
        }
        let error = try #require(firstError, "\(label): no call failed after \(calls) strings")
        #expect(expected.matches(error), "\(label): first error \(error)")
        #expect(sinkCalls() == 1, "\(label): the sink was called \(sinkCalls()) times")
        for (name, call) in laterCalls {
            do {
                try call(writer)
                Issue.record("\(label): \(name) after the sink failed did not throw")
            } catch {
                #expect(expected.matches(error), "\(label): \(name) threw \(error)")
            }
        }
        #expect(sinkCalls() == 1, "\(label): the sink was written to again after it failed")
    }

    /// How many times a sink was called.
    final class CallCount {
        var value = 0
    }

    /// A writer (beautified or not, with a `bufferSize`-byte buffer) whose sink counts its calls
    /// in `calls`, then hands the bytes to `write`.
    static func countingWriter(
        beautify: Bool,
        bufferSize: Int,
        calls: CallCount,
        write: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) -> JSONWriter {
        var options = JSONWriter.Options(beautify: beautify)
        options.bufferSize = bufferSize
        return JSONWriter(
            to: .closure { bytes in
                calls.value += 1
                try write(bytes)
            },
            options: options
        )
    }

    @Test(arguments: [false, true])
    func aFailedClosureSinkFailsEveryLaterCall(beautify: Bool) throws {
        let calls = CallCount()
        let writer = Self.countingWriter(beautify: beautify, bufferSize: 16, calls: calls) { _ in throw SinkBroke() }
        try Self.checkFailure(writer: writer, expected: .wrapped, sinkCalls: { calls.value }, "beautify \(beautify)")
    }

    @Test(arguments: [false, true])
    func aFullDeviceFailsEveryLaterCallWithItsIOError(beautify: Bool) throws {
        let fd = open("/dev/full", O_WRONLY)
        guard fd >= 0 else {
            print("⚠️  SKIPPING the /dev/full writer check: /dev/full cannot be opened on this machine")
            return
        }
        defer { close(fd) }
        // The descriptor sink is wrapped so that its calls can be counted.
        let calls = CallCount()
        var sink = FileDescriptorOutputSink(fileDescriptor: fd, name: "/dev/full")
        let writer = Self.countingWriter(beautify: beautify, bufferSize: 16, calls: calls) { try sink.write($0) }
        try Self.checkFailure(
            writer: writer,
            expected: .ioError(.write),
            sinkCalls: { calls.value },
            "beautify \(beautify)"
        )
    }

    /// Parse-and-write (the `reformat` path): the parse stops with the sink's error.
    @Test(arguments: [false, true])
    func aFailedSinkStopsTheParseThatWrites(beautify: Bool) throws {
        let calls = CallCount()
        let writer = Self.countingWriter(beautify: beautify, bufferSize: 64, calls: calls) { _ in throw SinkBroke() }
        let text = "[" + Array(repeating: #"{"k":[1,2.5,"s",true,null]}"#, count: 2_000).joined(separator: ",") + "]"
        do {
            try JSONParser(handler: JSONWritingHandler(writer: writer)).parse(from: .text(text))
            Issue.record("the parse did not stop")
        } catch {
            #expect(Expected.wrapped.matches(error), "threw \(error)")
        }
        #expect(calls.value == 1)
        #expect(throws: JSONWriterError.self) { try writer.finish() }
        #expect(calls.value == 1)
    }
}
