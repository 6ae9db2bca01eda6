import Foundation
import Testing
import YAJL
import YAJLTestSupport

@testable import YAJLCore

/// The tape's variable-length encoding: every form round-trips, and a large record costs about
/// its own size.
@Suite("Tape", .serialized)
struct TapeTests {
    static let long31 = String(repeating: "s", count: 31)

    /// Minified documents that reach every form of the encoding: texts of 0, 30, 31 and 300
    /// bytes, one-digit integers and every other number (`-0`, `10`, doubles, a 300-digit
    /// integer and a 300-character double), empty and nested containers, keys of every length.
    static let documents: [String] = [
        "[0,1,2,3,4,5,6,7,8,9]",
        "[-0,10,-1,0.5,1e5,-1.5E-3,9223372036854775807,9223372036854775808,-9223372036854775809]",
        "[\(String(repeating: "7", count: 300)),1.\(String(repeating: "3", count: 300))]",
        "[\"\",\"\(String(repeating: "a", count: 30))\",\"\(long31)\",\"\(String(repeating: "b", count: 300))\"]",
        "{\"\":1,\"\(long31)\":{\"\(String(repeating: "k", count: 300))\":[]},\"e\":{}}",
        "[[],{},[[]],[{}],{\"a\":[]},[[[[[1]]]]],true,false,null]",
        "{\"a\":{\"b\":[1,2,{\"c\":\"d\"}],\"t\":true,\"f\":false,\"n\":null},\"z\":1.25}",
        "\"\(String(repeating: "x", count: 70_000))\"",
        "7", "0", "1", "2", "false", "null", #""""#, "-5",
        #"["q\"b\\s\n\r\t\b\f\u0001\u001F",{"k\n\"":"é\u001E"}]"#,
    ]

    /// Every form written back from the tape (``MinifiedText``, what ``JSONFragment`` holds) is the
    /// document, byte for byte as ``JSONWriter`` writes the same walk: both are `yajl_gen`'s.
    @Test(arguments: documents)
    func everyFormIsWrittenBackAsTheWriterWritesIt(document: String) throws {
        let recorder = EventRecorder()
        try JSONParser(handler: recorder).parse(from: .text(document))
        let tape = Tape()
        let at = SourcePosition(offset: 0, line: 1, column: 1)
        for recorded in recorder.events {
            switch recorded.event {
            case .startObject: tape.startContainer(.object, at: at)
            case .startArray: tape.startContainer(.array, at: at)
            case .endObject, .endArray: tape.endContainer()
            case .key(var text): text.withUTF8 { tape.text(.key, UnsafeRawBufferPointer($0)) }
            case .string(var text): text.withUTF8 { tape.text(.string, UnsafeRawBufferPointer($0), at: at) }
            case .number(let number):
                var text = number.text
                text.withUTF8 { tape.number(UnsafeRawBufferPointer($0), at: at) }
            case .bool(let flag): tape.scalar(.bool, flag, at: at)
            case .null: tape.scalar(.null, at: at)
            }
        }
        var text = MinifiedText()
        let output = tape.view.minified(0, using: &text)
        #expect(String(decoding: output, as: UTF8.self) == document)
        // The length reserved for a large value: the output's, less what escaping added (`\n`
        // adds one byte, `\u001F` five).
        var added = 0
        var index = 0
        while index < output.count {
            guard output[index] == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            let long = output[index + 1] == UInt8(ascii: "u")
            added += long ? 5 : 1
            index += long ? 6 : 2
        }
        #expect(tape.view.minifiedLengthWithoutEscapes(0) == output.count - added)
        let sink = MemoryOutputSink()
        var writer = JSONWriter(to: sink, options: .init(validatesUTF8: false))
        try tape.view.write(0, to: &writer)
        try writer.finish()
        #expect(Array(sink.data) == output)
    }

    /// Texts are copied with overlapping word loads up to 16 bytes (`copyBytes`): every length
    /// across the branches, as a key and as a value, comes back byte for byte, and a copy writes
    /// nothing outside its range.
    @Test(arguments: 0...40)
    func textsOfEveryShortLengthRoundTrip(length: Int) throws {
        let text = String((0..<length).map { Character(UnicodeScalar(UInt8(ascii: "A") + UInt8($0 % 58))) })
            .replacingOccurrences(of: "\\", with: "/")
        let document = "{\"\(text)\":\"\(text)\",\"n\":[\"\(text)\",\"\(text)x\"]}"
        let values = try JSONRecordReader(JSONValue.self, at: "$", from: .text(document))
        let value = try #require(try values.next())
        #expect(value.description == document)
        #expect(value[text]?.stringValue == text)

        let source = Array(text.utf8)
        var destination = [UInt8](repeating: 0xEE, count: length + 32)
        source.withUnsafeBytes { from in
            destination.withUnsafeMutableBytes { to in
                copyBytes(
                    to: to.baseAddress! + 16,
                    from: from.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!,
                    count: length
                )
            }
        }
        #expect(Array(destination[16..<(16 + length)]) == source)
        #expect(destination[..<16].allSatisfy { $0 == 0xEE } && destination[(16 + length)...].allSatisfy { $0 == 0xEE })
    }

    @Test(arguments: documents)
    func recordsRoundTripThroughTheTape(document: String) throws {
        for concurrently in [false, true] {
            var options = JSONRecordOptions()
            options.parsesConcurrently = concurrently
            let fragments = try JSONRecordReader(JSONFragment.self, at: "$", from: .text(document), options: options)
            #expect(try fragments.next()?.description == document)
            let values = try JSONRecordReader(JSONValue.self, at: "$", from: .text(document), options: options)
            let value = try #require(try values.next())
            #expect(value.description == document, "JSONValue from the tape")
        }
    }

    @Test func numbersKeepTheirValuesAndText() throws {
        let document = "[0,7,-0,10,0.5,-1e-2,12345678901234567890]"
        let values = try JSONRecordReader(JSONValue.self, at: "$[*]", from: .text(document))
        var numbers: [JSONNumber] = []
        while let value = try values.next() {
            guard case .number(let number) = value else {
                Issue.record("not a number: \(value)")
                continue
            }
            numbers.append(number)
        }
        #expect(numbers.map(\.text) == ["0", "7", "-0", "10", "0.5", "-1e-2", "12345678901234567890"])
        #expect(
            numbers.map(\.value) == [
                .integer(0), .integer(7), .integer(0), .integer(10), .double(0.5), .double(-0.01), .unrepresentable,
            ]
        )
        // Numbers decode from the text the tape keeps, classified when read.
        let decoded = try JSONRecordReader([Double].self, at: "$", from: .text("[0,7,-0,10,0.5,-1e-2]")).next()
        #expect(decoded == [0, 7, -0.0, 10, 0.5, -0.01] && decoded?[2].sign == .minus)
    }

    /// Containers whose members pass the narrow header's limit are widened when they close (the
    /// limit is lowered here; it is 4 GiB in use), nested ones included.
    @Test func containersPastTheNarrowLimitAreWidened() throws {
        let tape = Tape()
        tape.narrowLimit = 3
        var offset = 0
        func at() -> SourcePosition {  // a value every 10 bytes, a new line every 30
            offset += 10
            return SourcePosition(offset: offset, line: 1 + offset / 30, column: 1 + offset % 30)
        }
        tape.startContainer(.object, at: at())
        tape.text(.key, UnsafeRawBufferPointer(start: nil, count: 0))
        tape.startContainer(.array, at: at())
        for text in ["1", "22", "0.5", "-0"] {
            var text = text
            text.withUTF8 { tape.number(UnsafeRawBufferPointer($0), at: at()) }
        }
        tape.startContainer(.array, at: at())
        tape.scalar(.bool, true, at: at())
        tape.endContainer()
        tape.endContainer()
        var key = "k"
        key.withUTF8 { tape.text(.key, UnsafeRawBufferPointer($0)) }
        tape.scalar(.null, at: at())
        tape.endContainer()
        #expect(!tape.isCapturing)
        let view = tape.view
        var text = MinifiedText()
        let output = view.minified(0, using: &text)
        #expect(String(decoding: output, as: UTF8.self) == #"{"":[1,22,0.5,-0,[true]],"k":null}"#)
        #expect(view.count(0) == 2 && view.end(0) == tape.count)
        let array = view.next(view.firstChild(0))
        #expect(view.kind(array) == .array && view.count(array) == 5)
        #expect(view.value(0).description == #"{"":[1,22,0.5,-0,[true]],"k":null}"#)
        // Every value's source position comes back, in document order, across the wide headers.
        var index = 0
        var expected = 10
        while index < tape.count {
            if view.kind(index) != .key {
                let position = view.sourcePosition(of: index, inRecordAt: 0, positionsAt: 0)
                #expect(
                    position == SourcePosition(offset: expected, line: 1 + expected / 30, column: 1 + expected % 30),
                    "tag at \(index)"
                )
                expected += 10
            }
            index =
                view.kind(index) == .object || view.kind(index) == .array ? view.firstChild(index) : view.next(index)
        }
        #expect(expected == offset + 10)
    }

    /// A single record of ten million `1`s (20 MB) is captured in about half its size (it took
    /// 488 MiB with fixed 24-byte entries, then 72–89 MiB while buffers grew by copying).
    @Test func oneLargeRecordCostsAboutItsSize() throws {
        // Under a sanitizer, whose shadow memory rules the peak check out, a quarter of the size.
        let count = Sanitizer.scaled(10_000_000, underSanitizer: 2_500_000, "one large record: elements")
        let resetPeak = ProcessMemory.resetPeak()
        let before = ProcessMemory.field("VmRSS") ?? 0
        let source = SegmentsSource([("{\"results\":[[", 1), ("1,", count - 1), ("1]]}", 1)])
        let records = try JSONRecordReader(JSONFragment.self, at: "$.results[*]", from: source)
        let fragment = try #require(try records.next())
        #expect(fragment.bytes.count == 2 * count + 1)
        #expect(fragment.bytes.prefix(4) == [0x5B, 0x31, 0x2C, 0x31] && fragment.bytes.last == 0x5D)
        #expect(try records.next() == nil)
        if resetPeak, let peak = ProcessMemory.field("VmHWM") {
            // The 20 MB fragment (allocated once at its size: it has no escapes), the 10 MB tape
            // and its ~10 MB of source positions, both grown by realloc (no second copy): 38 MiB
            // measured, with room for the allocator and the runner on other machines.
            print("one 20 MB record: peak RSS grew by \((peak - before) >> 20) MiB")
            #expect(peak - before < 80 << 20, "peak grew by \((peak - before) >> 20) MiB for a 20 MB record")
        } else {
            print(
                "⚠️  SKIPPING the peak-memory check of oneLargeRecordCostsAboutItsSize: \(ProcessMemory.unavailable ?? "no VmHWM")"
            )
        }
    }

    /// The short comparison behind key lookups: every length up to 40, equal copies are equal,
    /// and a difference in any one byte is found.
    @Test func shortComparisonsFindEveryDifference() {
        for length in 0...40 {
            let a = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            var b = a
            a.withUnsafeBufferPointer { pa in
                b.withUnsafeBytes { pb in
                    #expect(
                        memcmpEqual(
                            pa.baseAddress ?? UnsafePointer(bitPattern: 1)!,
                            pb.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!,
                            length
                        )
                    )
                }
            }
            for position in 0..<length {
                b[position] ^= 0x20
                let equal = a.withUnsafeBufferPointer { pa in
                    b.withUnsafeBytes { pb in memcmpEqual(pa.baseAddress!, pb.baseAddress!, length) }
                }
                #expect(!equal, "length \(length), difference at \(position)")
                b[position] ^= 0x20
            }
        }
    }

}
