// About 450 lines: the reliability cases of issue 12 (never a silent wrong value or lost record),
// kept together as the regression suite of that promise.

import Foundation
import Testing
import YAJL
import YAJLTestSupport

@testable import YAJLCore

/// Regression tests of the reliability issue: strict UTF-8, white space, misuse, byte order marks,
/// error locations, options that must not trap, the writer's checks and bounded memory.
@Suite("Reliability", .serialized)
struct ReliabilityTests {
    static let chunkSizes = [1, 2, 3, 7, 1 << 16]

    /// Parses `bytes` in chunks of `size`; returns the error thrown, if any.
    static func parseError(_ bytes: [UInt8], chunkSize size: Int, options: JSONParser.Options = .init()) -> (any Error)?
    {
        let parser = JSONParser(options: options, handler: DiscardingTestHandler())
        do {
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + size)
                try parser.parse(bytes[start..<end])
                start = end
            }
            try parser.finish()
            return nil
        } catch {
            return error
        }
    }

    // MARK: UTF-8

    @Test(
        arguments: [
            ([0xC0, 0xAF], "overlong"), ([0xC1, 0xBF], "overlong"), ([0xE0, 0x80, 0xAF], "overlong"),
            ([0xF0, 0x80, 0x80, 0xAF], "overlong"), ([0xF4, 0x90, 0x80, 0x80], "beyond U+10FFFF"),
            ([0xF5, 0x80, 0x80, 0x80], "beyond U+10FFFF"), ([0xED, 0xA0, 0x80], "surrogate"),
            ([0xED, 0xBF, 0xBF], "surrogate"),
            ([0x80], "continuation"), ([0xE2, 0x82], "cut short"), ([0xFF], "never occurs"),
        ] as [([UInt8], String)]
    )
    func invalidUTF8IsRejectedInStringsAndKeysAtEveryChunkSize(sequence: [UInt8], reason: String) throws {
        for (prefix, suffix, path) in [
            ("[1,\"ab", "c\"]", "$[1]"), ("{\"k\":\"", "\"}", "$.k"), ("{\"a\":1,\"x", "\":2}", "$"),
        ] {
            let document = Array(prefix.utf8) + sequence + Array(suffix.utf8)
            let offset = prefix.utf8.count
            for size in Self.chunkSizes {
                let error = try #require(
                    Self.parseError(document, chunkSize: size) as? JSONParseError,
                    "chunk size \(size)"
                )
                #expect(error.kind == .invalidUTF8, "\(error) at chunk size \(size)")
                #expect(error.byteOffset == offset, "\(error) at chunk size \(size)")
                #expect(error.message.contains(reason), "\(error.message)")
                if path != "$" { #expect(error.path?.description == path, "\(error)") }
            }
        }
    }

    @Test(
        arguments: [
            [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBF],
            [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
        ] as [[UInt8]]
    )
    func validUTF8AtTheBoundariesIsAccepted(sequence: [UInt8]) {
        let document = Array("{\"".utf8) + sequence + Array("\":\"".utf8) + sequence + Array("\"}".utf8)
        for size in Self.chunkSizes {
            #expect(Self.parseError(document, chunkSize: size) == nil, "chunk size \(size)")
        }
    }

    /// The validator against the standard library's decoder on random strings built from valid
    /// sequences, ASCII runs (longer than the eight-byte fast path) and stray bytes, at every chunk
    /// size: the same verdict, and the error at the first byte the standard library repairs.
    @Test func validatorAgreesWithTheStandardLibraryOnRandomStrings() throws {
        var generator = SystemRandomNumberGenerator()
        let pieces: [[UInt8]] = [
            Array("abcdefghijklmnopqrstu".utf8), Array("é".utf8), Array("東京".utf8), Array("😀".utf8), [0xC2, 0x80],
            [0xEF, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF],
        ]
        let strays: [UInt8] = [0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF]
        for round in 0..<400 {
            var payload: [UInt8] = []
            for _ in 0..<Int.random(in: 1...12, using: &generator) {
                if round % 2 == 1 && Int.random(in: 0..<8, using: &generator) == 0 {
                    payload.append(strays.randomElement(using: &generator)!)
                } else {
                    payload += pieces.randomElement(using: &generator)!
                }
            }
            let document = Array("[\"".utf8) + payload + Array("\"]".utf8)
            let valid = String(validating: payload, as: UTF8.self) != nil
            // The first invalid byte: the length of the longest valid prefix ends there.
            var firstInvalid = payload.count
            if !valid {
                firstInvalid =
                    (0...payload.count).last { String(validating: payload[..<$0], as: UTF8.self) != nil } ?? 0
            }
            for size in Self.chunkSizes {
                let error = Self.parseError(document, chunkSize: size) as? JSONParseError
                #expect((error == nil) == valid, "\(payload) at chunk size \(size): \(String(describing: error))")
                if let error, !valid {
                    #expect(
                        error.kind == .invalidUTF8 && error.byteOffset == 2 + firstInvalid,
                        "\(payload) at chunk size \(size): \(error)"
                    )
                }
            }
        }
    }

    /// `\u` escapes of lone surrogates, which YAJL turns into `?` or into invalid UTF-8, are
    /// refused (as by JSONDecoder) at the escape, in strings and keys, at every chunk size.
    @Test(arguments: [
        (#"\ud836"#, "high"), (#"\uD836d"#, "high"), (#"\ud836\n"#, "high"), (#"\ud836\ud836\udc00"#, "high"),
        (#"\ud836\u0041"#, "high"), (#"\ude00"#, "low"), (#"x\uDFFF"#, "low"),
    ])
    func loneSurrogateEscapesAreRefused(escaped: String, which: String) throws {
        for (prefix, suffix, path) in [("[1,\"", "\"]", "$[1]"), ("{\"", "\":1}", "$")] {
            let document = prefix + escaped + suffix
            let offset = prefix.utf8.count + (escaped.hasPrefix("x") ? 1 : 0)
            for size in Self.chunkSizes {
                let error = try #require(
                    Self.parseError(Array(document.utf8), chunkSize: size) as? JSONParseError,
                    "\(document) at \(size)"
                )
                #expect(error.kind == .invalidUTF8 && error.byteOffset == offset, "\(document) at \(size): \(error)")
                #expect(error.message.contains("escaped \(which) surrogate"), "\(error.message)")
                if path != "$" { #expect(error.path?.description == path) }
            }
            #expect(throws: (any Error).self, "JSONDecoder refuses \(document) too") {
                try JSONDecoder().decode(JSONValue.self, from: Data(document.utf8))
            }
        }
    }

    @Test(arguments: [
        #"\ud83d\ude00"#, #"\uD83D\uDE00x"#, #"\\ud800"#, #"\\\u00e9"#, #"\u0000"#, #"\uffff"#, #"\ud7ff\ue000"#,
    ])
    func escapesThatAreNotLoneSurrogatesAreAccepted(escaped: String) {
        let document = Array(("[\"" + escaped + "\"]").utf8)
        for size in Self.chunkSizes {
            #expect(Self.parseError(document, chunkSize: size) == nil, "\(escaped) at \(size)")
        }
    }

    /// The vector fast path vouches only for what the byte-by-byte check would accept: on random
    /// input (valid and broken sequences, escapes good and bad, long ASCII runs) cut at random
    /// points, both find the same first failure, or none.
    @Test func theVectorPathAgreesWithTheByteByByteCheck() {
        let pieces: [[UInt8]] = [
            Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8), Array("é".utf8), Array("東京".utf8), Array("😀".utf8),
            Array(#"\n"#.utf8), Array(#"\\"#.utf8), Array(#"\u00e9"#.utf8), Array(#"\ud83d\ude00"#.utf8),
            Array(#"\\u"#.utf8),
            [0xEF, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xC2, 0x80],
        ]
        let broken: [[UInt8]] = [
            [0x5C, 0xDF, 0x84], [0x5C, 0x80], [0x5C, 0x81, 0x31, 0x35, 0x65, 0x39], [0x5C, 0x75, 0xE2, 0x82, 0xAC],
            [0x80], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5], [0xFF],
            [0xE2, 0x82],
            [0xF0, 0x9F], Array(#"\ud83d"#.utf8), Array(#"\ude00"#.utf8), Array(#"\ud83dx"#.utf8), Array(#"\u12"#.utf8),
        ]
        Self.expectVectorPathAgrees(pieces: pieces, broken: broken, rounds: 600, pieceCounts: 1...80)
    }

    /// The same on text that is mostly escapes (the vector path finds them 64 bytes at a time,
    /// `escape_masks.h`): runs of backslashes of every length, `\u` escapes whose digits or pair
    /// cross a block's end, surrogates of both cases next to `\ud55c` (a `d` that is not one), lone
    /// halves, after a prefix of 0 to 63 bytes so that each lands at every place in a block.
    @Test func theVectorPathAgreesOnTextFullOfEscapes() {
        let pieces: [[UInt8]] = [
            Array(#"\n"#.utf8), Array(#"\\"#.utf8), Array(#"\""#.utf8), Array(#"\/"#.utf8), Array(#"\u00e9"#.utf8),
            Array(#"\ud83d\ude00"#.utf8), Array(#"\uD83D\uDE00"#.utf8), Array(#"\uDBFF\uDFFF"#.utf8),
            Array(#"\ud55c"#.utf8), Array(#"\uD7FF"#.utf8), Array(#"\\\\\\"#.utf8), Array(#"\\u"#.utf8),
            Array(#"\\ud800"#.utf8), Array("a".utf8), Array("u".utf8), Array("é".utf8), Array("😀".utf8),
        ]
        let broken: [[UInt8]] = [
            Array(#"\ud83d"#.utf8), Array(#"\ude00"#.utf8), Array(#"\uDC00"#.utf8), Array(#"\ud83d\u0041"#.utf8),
            Array(#"\ud83dx"#.utf8), Array(#"\ud83d\n"#.utf8), Array(#"\u12"#.utf8), Array(#"\uZZZZ"#.utf8),
            Array(#"\"#.utf8), [0x5C, 0xC3, 0xA9], [0xED, 0xA0, 0x80], [0xE2, 0x82],
        ]
        Self.expectVectorPathAgrees(pieces: pieces, broken: broken, rounds: 1500, pieceCounts: 20...120, shifts: true)
    }

    /// Random input from `pieces` (and now and then one of `broken`), cut at random points: the
    /// vector path and the byte-by-byte check find the same first failure, or none, and cutting
    /// changes nothing.
    static func expectVectorPathAgrees(
        pieces: [[UInt8]],
        broken: [[UInt8]],
        rounds: Int,
        pieceCounts: ClosedRange<Int>,
        shifts: Bool = false
    ) {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<rounds {
            var input: [UInt8] = shifts ? Array(repeating: UInt8(ascii: "a"), count: round % 64) : []
            for _ in 0..<Int.random(in: pieceCounts, using: &generator) {
                input += pieces.randomElement(using: &generator)!
                if round % 3 == 0 && Int.random(in: 0..<40, using: &generator) == 0 {
                    input += broken.randomElement(using: &generator)!
                }
            }
            var cuts = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                Int.random(in: 0...input.count, using: &generator)
            }.sorted()
            cuts.append(input.count)
            func firstFailure(vector: Bool) -> String {
                var validator = UTF8Validator()
                validator.usesVectorPath = vector
                var start = 0
                return input.withUnsafeBytes { bytes in
                    for end in cuts {
                        let piece = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
                        if let failure = validator.validate(piece, base: start) {
                            return "\(failure.leadOffset) \(failure.byteOffset) \(failure.feedEnd) \(failure.reason)"
                        }
                        start = end
                    }
                    return "valid"
                }
            }
            let scalar = firstFailure(vector: false)
            let vector = firstFailure(vector: true)
            #expect(
                scalar == vector,
                "round \(round), cuts \(cuts): \(String(decoding: input, as: UTF8.self).debugDescription)"
            )
            // And the same as in one piece: the cuts change nothing.
            let cutsUsed = cuts
            cuts = [input.count]
            let whole = firstFailure(vector: false)
            cuts = cutsUsed
            #expect(
                scalar == whole,
                "round \(round), cuts \(cuts) against one piece: \(String(decoding: input, as: UTF8.self).debugDescription)"
            )
        }
    }

    @Test func invalidUTF8OutsideStringsIsAnInvalidCharacterAtEveryChunkSize() throws {
        let document: [UInt8] = Array("[1,".utf8) + [0xE0, 0x80, 0xAF] + Array("]".utf8)
        for size in Self.chunkSizes {
            let error = try #require(Self.parseError(document, chunkSize: size) as? JSONParseError)
            #expect(error.kind == .invalidCharacter && error.byteOffset == 3, "\(error) at chunk size \(size)")
        }
    }

    @Test func theUTF8CheckCanBeTurnedOff() {
        let document: [UInt8] = Array("[\"".utf8) + [0xED, 0xA0, 0x80] + Array("\"]".utf8)
        var options = JSONParser.Options()
        options.validatesUTF8 = false
        #expect(Self.parseError(document, chunkSize: 1 << 16, options: options) == nil)
    }

    // MARK: White space, misuse, byte order mark, locations

    @Test func whiteSpaceIsNotAToken() throws {
        // 20 MB of spaces inside a document: more than the 16 MiB token limit, and valid.
        let parser = JSONParser(handler: DiscardingTestHandler())
        try parser.parse(from: RepeatingSource(prefix: "[1,", fill: "          ", count: 2_000_000, suffix: "2]"))
        #expect(parser.bytesConsumed > 20_000_000)
        // Endless white space is stopped by the document limit, and reported as that.
        var options = JSONParser.Options()
        options.maxDocumentBytes = 32 << 20
        let limited = JSONParser(options: options, handler: DiscardingTestHandler())
        let error = try #require(throws: JSONParseError.self) {
            try limited.parse(from: RepeatingSource(prefix: "[", fill: " \n\t", count: nil, suffix: ""))
        }
        #expect(error.kind == .documentLimitExceeded)
        // A real token past the limit is still one.
        options = JSONParser.Options()
        options.maxTokenBytes = 1 << 20
        let long = JSONParser(options: options, handler: DiscardingTestHandler())
        let tokenError = try #require(throws: JSONParseError.self) {
            try long.parse(from: RepeatingSource(prefix: "[   \"", fill: "abcdefgh", count: 1 << 18, suffix: "\"]"))
        }
        #expect(tokenError.kind == .tokenLimitExceeded)
    }

    @Test func parseAfterFinishAndReentrantParseAreUsageErrors() throws {
        let parser = JSONParser(handler: DiscardingTestHandler())
        try parser.parse("[1]")
        try parser.finish()
        #expect(throws: JSONParserUsageError.self) { try parser.parse("[2]") }
        #expect(throws: JSONParserUsageError.self) { try parser.parse("") }

        final class Reentrant: JSONEventHandler {
            weak var parser: JSONParser?
            func number(_ value: JSONNumberView, context: JSONEventContext) throws { try parser?.parse("1") }
        }
        let handler = Reentrant()
        let reentered = JSONParser(handler: handler)
        handler.parser = reentered
        #expect(throws: JSONParserUsageError.self) { try reentered.parse("[1,2]") }
    }

    @Test func aByteOrderMarkAtTheStartIsSkippedAndCounted() throws {
        let document: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("[1,x]".utf8)
        for size in Self.chunkSizes {
            let error = try #require(Self.parseError(document, chunkSize: size) as? JSONParseError)
            #expect(
                error.kind == .invalidCharacter && error.byteOffset == 6 && error.column == 7,
                "\(error) at chunk size \(size)"
            )
            #expect(Self.parseError([0xEF, 0xBB, 0xBF] + Array("[1]".utf8), chunkSize: size) == nil)
            // Only at the very start, and only the whole mark.
            #expect(Self.parseError([0xEF, 0xBB] + Array("[1]".utf8), chunkSize: size) != nil)
            #expect(Self.parseError(Array("[1]".utf8) + [0xEF, 0xBB, 0xBF], chunkSize: size) != nil)
        }
    }

    @Test(arguments: [
        ("[1,x]", 3, "$[1]"), ("[x]", 1, "$[0]"), ("{\"a\":x}", 5, "$.a"), ("[1,2,]", 5, "$[2]"), ("x", 0, "$"),
        ("{\"a\":1,x}", 7, "$"), ("{\"a\":[1,{\"b\":2},x]}", 16, "$.a[2]"),
    ])
    func errorsOutsideStringsPointAtTheOffendingByte(document: String, offset: Int, path: String) throws {
        for size in Self.chunkSizes {
            let error = try #require(Self.parseError(Array(document.utf8), chunkSize: size) as? JSONParseError)
            #expect(error.byteOffset == offset && error.path?.description == path, "\(error) at chunk size \(size)")
            #expect(!error.description.hasPrefix("error:"))
        }
    }

    /// Found by the parser fuzzer: a string where `,` or `}` is expected. YAJL's offset for it
    /// moves within the string with the chunking (Docs/Conformance.md); the path must not.
    @Test func errorsAfterAValueKeepTheirPathAtEveryChunkSize() throws {
        let document = Array(#"{"a": [1,{ "b": [2, {"c": 3}]": [1,{ "b": 4}]}]}"#.utf8)
        var paths: Set<String> = []
        for size in Self.chunkSizes + [4, 5, 6, 11, 13] {
            let error = try #require(Self.parseError(document, chunkSize: size) as? JSONParseError)
            #expect(error.kind == .unexpectedToken && error.message.hasPrefix("after key and value"), "\(error)")
            paths.insert(error.path?.description ?? "-")
        }
        #expect(paths == ["$.a[1].b"])
    }

    /// Found by the parser fuzzer: the `[` before a bad byte lies more than 64 bytes of white
    /// space back; the path must be the next element at every chunk size.
    @Test func theNextElementIsFoundHoweverFarBackItsBracketIs() throws {
        let document = Array(("\r\r[" + String(repeating: "\r", count: 100)).utf8) + [0xF3, 0xF2, 0x5D]
        for size in Self.chunkSizes + [50, 64, 65] {
            let error = try #require(Self.parseError(document, chunkSize: size) as? JSONParseError)
            #expect(
                error.kind == .invalidCharacter && error.byteOffset == 103 && error.path?.description == "$[0]",
                "\(error) at chunk size \(size)"
            )
        }
    }

    @Test func optionsOutOfRangeThrowInsteadOfTrapping() throws {
        for options in [
            JSONParser.Options(maxTokenBytes: Int.max), JSONParser.Options(maxTokenBytes: 0),
            JSONParser.Options(chunkSize: 0),
            JSONParser.Options(chunkSize: 100_000 << 30), JSONParser.Options(maxDepth: -1),
            JSONParser.Options(maxDocumentBytes: -5),
        ] {
            #expect(throws: JSONOptionError.self) {
                try JSONParser(options: options, handler: DiscardingTestHandler()).parse("[1]")
            }
            #expect(throws: JSONOptionError.self) {
                try JSONParser(options: options, handler: DiscardingTestHandler()).parse(from: .text("[1]"))
            }
        }
        let error = try #require(throws: JSONOptionError.self) { try JSONParser.Options(chunkSize: 0).validate() }
        #expect(error.description == "JSONParser.Options.chunkSize is 0; it must be from 1 to 1073741824 (1 GiB)")
    }

    // MARK: Numbers

    @Test func integersBeyondInt64StayExact() throws {
        for text in ["9223372036854775808", "-9223372036854775809", "123456789012345678901234567890"] {
            let number = try #require(JSONNumber(text))
            #expect(number.value == .unrepresentable)
            #expect(number.text == text)
            #expect(number.doubleValue == Double(text))
        }
        #expect(JSONNumber("9223372036854775807")?.value == .integer(.max))
        #expect(JSONNumber("-0")?.doubleValue?.sign == .minus)
        #expect(JSONNumber("1e400")?.doubleValue == nil)
    }

    // MARK: Writer

    @Test(arguments: [
        "1]}{\"evil\":true", "", "+1", "01", "1.", ".5", "1e", "NaN", "Infinity", "0x10", " 1", "1 ", "--1",
    ])
    func theWriterRefusesNumberTextThatIsNotANumber(text: String) throws {
        let sink = MemoryOutputSink()
        let writer = JSONWriter(to: sink)
        try writer.startArray()
        let error = try #require(throws: JSONWriterError.self) {
            var text = text
            try text.withUTF8 { try writer.number(text: UnsafeRawBufferPointer($0)) }
        }
        #expect(error.kind == .invalidNumber)
        try writer.endArray()
        try writer.finish()
        #expect(sink.string == "[]")
    }

    @Test func theWriterAcceptsEveryNumberForm() throws {
        let sink = MemoryOutputSink()
        let writer = JSONWriter(to: sink)
        try writer.startArray()
        for text in ["0", "-0", "1.5", "-1.5e-3", "1E+2", "123456789012345678901234567890"] {
            try writer.number(JSONNumber(text)!)
        }
        try writer.endArray()
        try writer.finish()
        #expect(sink.string == "[0,-0,1.5,-1.5e-3,1E+2,123456789012345678901234567890]")
    }

    @Test(arguments: ["->", "x", "\u{0}", String(repeating: " ", count: 65)])
    func aWriterWithAnIndentYAJLRefusesThrowsInsteadOfCrashing(indent: String) throws {
        let writer = JSONWriter(to: MemoryOutputSink(), options: .init(beautify: true, indent: indent))
        #expect(throws: JSONOptionError.self) { try writer.startArray() }
        #expect(throws: JSONOptionError.self) { try writer.finish() }
        #expect(throws: JSONOptionError.self) { try JSONWriter.Options(beautify: true, indent: indent).validate() }
    }

    @Test func theWriterFlushesByBytesNotByCalls() throws {
        var largest = 0
        let writer = JSONWriter(to: .closure { largest = max(largest, $0.count) })
        let big = String(repeating: "a", count: 1 << 20)
        try writer.startArray()
        for _ in 0..<10 { try writer.string(big) }
        try writer.endArray()
        try writer.finish()
        // Each write is the 64 KiB buffer plus at most one value, never several megabytes.
        #expect(largest <= (1 << 20) + (64 << 10) + 64, "largest write \(largest)")
    }

    // MARK: Bounded memory

    @Test func deepPathsOfHugeKeysAreBounded() throws {
        // 64 nested objects with 8 MB keys: the path keeps at most 4 KiB of each.
        let key = String(repeating: "k", count: 8 << 20)
        var keyPath: JSONPath?
        let parser = JSONParser { event, context in
            if case .number = event { keyPath = context.path }
        }
        let resetPeak = ProcessMemory.resetPeak()
        let before = ProcessMemory.field("VmRSS") ?? 0
        try parser.parse(from: SegmentsSource([("{\"" + key + "\":", 64), ("1", 1), ("}", 64)]))
        let path = try #require(keyPath)
        #expect(path.components.count == 64)
        if case .key(let first) = path.components[0] {
            #expect(first.hasSuffix("…") && first.utf8.count <= PathStack.maxKeyBytes + 3)
        } else {
            Issue.record("expected a key")
        }
        if resetPeak, let peak = ProcessMemory.field("VmHWM") {
            #expect(peak - before < 64 << 20, "peak grew by \((peak - before) >> 20) MiB")
        } else {
            print(
                "⚠️  SKIPPING the peak-memory check of deepPathsOfHugeKeysAreBounded: \(ProcessMemory.unavailable ?? "no VmHWM")"
            )
        }
    }

    @Test func reformattingLargeStringsIsBounded() throws {
        // An array of 60 strings of 8 MiB, parsed and written back.
        var written = 0
        let writer = JSONWriter(to: .closure { written += $0.count })
        let resetPeak = ProcessMemory.resetPeak()
        let before = ProcessMemory.field("VmRSS") ?? 0
        let parser = JSONParser(handler: JSONWritingHandler(writer: writer))
        try parser.parse(
            from: SegmentsSource([
                ("[", 1), ("\"" + String(repeating: "s", count: 8 << 20) + "\",", 59), ("\"end\"]", 1),
            ])
        )
        try writer.finish()
        #expect(written > 59 * (8 << 20))
        if resetPeak, let peak = ProcessMemory.field("VmHWM") {
            #expect(peak - before < 64 << 20, "peak grew by \((peak - before) >> 20) MiB")
        } else {
            print(
                "⚠️  SKIPPING the peak-memory check of reformattingLargeStringsIsBounded: \(ProcessMemory.unavailable ?? "no VmHWM")"
            )
        }
    }
}
