import Foundation
import Testing
import YAJL
import YAJLTestSupport

/// Every document gives identical events, paths and depths — or the identical error at the same
/// absolute offset, line and column — whatever the chunk boundaries.
@Suite("Chunk-size invariance")
struct ChunkInvarianceTests {
    static let documents: [String] = [
        #"{"a": [1, 2.5, -3e10, "x", true, false, null], "b": {"c": {}}, "d": []}"#,
        #"{"näme": "Zürich 東京 🎉", "emoji": "😀👍🏽", "mixed": "aé東😀"}"#,
        #"["\u00e9\u6771\ud83d\ude00", "\\\"\/\b\f\n\r\t", "\u0000 nul", "a\u00e9b"]"#,
        #"{"long key with spaces and \"quotes\"": "a string that is long enough to span many small chunks of input text"}"#,
        #"[123456789012345678901234567890, 1.7976931348623157e308, 1e400, -0, 0.000001, 9223372036854775807]"#,
        "{\n  \"pretty\": [\n    1,\n    {\"x\": \"y\"}\n  ]\n}\n",
        #"[[[[[[[[[[{"deep": [[[["bottom"]]]]}]]]]]]]]]]"#,
        "  \t\r\n 42 \n",
        #""just a string""#,
        // Invalid documents: the error must be the same too.
        #"{"a": [1, 2"#,
        #"{"a": "unterminated"#,
        #"{"a": tru}"#,
        "[\"bad \\x escape\"]",
        "[\"bad \\u12G4 hex\"]",
        "{\"k\": [1,\n 2,\n 3.]}",
        #"{"a": 1}{"b": 2}"#,
        "[1, 2, 3] trailing",
        #"{"a" 1}"#,
        "[\"ctl \u{01} char\"]",
        // Offending tokens split by chunk boundaries (YAJL points at their start).
        #"{"a":"a" 12345}"#,
        #"[1 true]"#,
        #"{"key" null}"#,
        #"[123 456]"#,
        #"{"a": 1 false}"#,
    ]

    static let invalidUTF8Documents: [[UInt8]] = [
        Array(#"["ok", "bad "#.utf8) + [0xC3, 0x28] + Array(#"", 1]"#.utf8),
        Array(#"{"k"#.utf8) + [0xE2, 0x82] + Array(#"": 1}"#.utf8),
    ]

    static let chunkSizes = [1, 2, 3, 7, 31]

    @Test(arguments: documents)
    func textDocument(_ document: String) {
        assertInvariant(Array(document.utf8))
    }

    @Test(arguments: invalidUTF8Documents)
    func invalidUTF8Document(_ document: [UInt8]) {
        let whole = assertInvariant(document)
        #expect(whole.error?.kind == .invalidUTF8)
    }

    @Test func ndjsonWithMultipleValues() {
        let text = "{\"id\":1,\"v\":\"é\"}\n{\"id\":2,\"v\":[1,2]}\n3\n\"s\"\n"
        let whole = assertInvariant(Array(text.utf8), options: .init(allowMultipleValues: true))
        #expect(whole.error == nil)
        #expect(whole.events.count == 17)
    }

    @Test(
        .enabled(if: SharedMaterial.isAvailable, "../shared/corpus not found: corpus invariance skipped"),
        arguments: ["twitter.json", "citm_catalog.json", "canada.json"]
    )
    func corpusDocument(_ name: String) throws {
        let url = try #require(SharedMaterial.corpusDirectory?.appendingPathComponent(name))
        let bytes = try [UInt8](Data(contentsOf: url))
        let whole = parse(bytes)
        #expect(whole.error == nil)
        // 1-byte chunks over megabytes would take long in debug builds: use 7 and 31, and 4093.
        for size in Sanitizer.scaled([7, 31, 4093], underSanitizer: [31, 4093], "\(name): chunk sizes") {
            let chunked = parse(bytes, chunkSize: size)
            #expect(chunked == whole, "\(name) at chunk size \(size)")
        }
    }

    /// Keys that YAJL hands over in place are kept as pointers into the chunk while it is parsed
    /// and copied only when the chunk is done: paths of later chunks, and of errors found after
    /// the chunk's memory is reused, must still name them. Every chunk is copied into one buffer
    /// that is overwritten with `#` as soon as the parser returns.
    @Test(arguments: [
        #"{"outer": {"inner key": [1, {"k": "v"}, 2], "next": {"deep": {"deeper": true}}}, "last": [null]}"#,
        #"{"a\"b": {"é": {"x": [1, 2, 3]}}, "plain": {"y": "z"}}"#,
        #"{"level1": {"level2": {"level3": [1, 2, oops]}}}"#,
        #"{"k1": {"k2": {"k3": 1,}}}"#,
    ])
    func keysOutliveTheirChunk(_ document: String) {
        let bytes = Array(document.utf8)
        let whole = parse(bytes)
        for size in [1, 2, 5, 9, 16] {
            let recorder = EventRecorder()
            let parser = JSONParser(handler: recorder)
            var reused = [UInt8](repeating: UInt8(ascii: "#"), count: size)
            var error: JSONParseError?
            do {
                var start = 0
                while start < bytes.count {
                    let end = min(bytes.count, start + size)
                    for i in start..<end { reused[i - start] = bytes[i] }
                    defer { for i in reused.indices { reused[i] = UInt8(ascii: "#") } }
                    _ = try reused.withUnsafeBytes { buffer in
                        try parser.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<(end - start)]))
                    }
                    start = end
                }
                try parser.finish()
            } catch let thrown as JSONParseError {
                error = thrown
            } catch {
                Issue.record("unexpected error type: \(error)")
            }
            let chunked = ParseOutcome(events: recorder.events, error: error)
            #expect(chunked.events == whole.events, "events differ at chunk size \(size)")
            #expect(
                chunked.error.map(ErrorLocation.init) == whole.error.map(ErrorLocation.init),
                "error differs at chunk size \(size)"
            )
        }
        #expect(!whole.events.isEmpty)
    }

    @discardableResult
    private func assertInvariant(_ bytes: [UInt8], options: JSONParser.Options = .init()) -> ParseOutcome {
        let whole = parse(bytes, options: options)
        for size in Self.chunkSizes {
            let chunked = parse(bytes, chunkSize: size, options: options)
            #expect(chunked.events == whole.events, "events differ at chunk size \(size)")
            #expect(
                chunked.error.map(ErrorLocation.init) == whole.error.map(ErrorLocation.init),
                "error differs at chunk size \(size)"
            )
        }
        return whole
    }
}

/// Behaviours of YAJL that are lenient or lossy, pinned down so a change is noticed. Each is
/// documented in Docs/Conformance.md.
@Suite("Documented YAJL leniencies")
struct LeniencyTests {
    @Test func formFeedIsWhiteSpace() {
        #expect(parse("[1,\u{0C}2]").error == nil)
    }

    /// YAJL's own check let encoded surrogates through; the parser's strict check refuses them
    /// (see ReliabilityTests for every other form YAJL let through).
    @Test func encodedSurrogatesNoLongerPassTheUTF8Check() {
        let bytes: [UInt8] = Array("[\"".utf8) + [0xED, 0xA0, 0x80] + Array("\"]".utf8)
        let outcome = parse(bytes)
        let error = outcome.error
        #expect(error?.kind == .invalidUTF8 && error?.byteOffset == 2)
        #expect(outcome.events.count == 1)  // the array's start only: the string never arrives
    }

    /// Unpaired UTF-16 surrogate escapes (JSONTestSuite's `i_` cases), which YAJL decodes wrongly,
    /// are refused at the escape; with `validatesUTF8` off, YAJL's decoding is what you get
    /// (documented in Docs/Conformance.md).
    @Test(arguments: [
        // A high surrogate followed by no escape becomes "?".
        (#"["\ud800"]"#, "?"),
        // A lone low surrogate is encoded as 3 bytes (ED B0 80) that are not UTF-8; a String repairs them.
        (#"["\udc00x"]"#, "\u{FFFD}\u{FFFD}\u{FFFD}x"),
        // A high surrogate followed by a non-surrogate escape is combined into a wrong code point.
        (#"["\ud800\u0041"]"#, "\u{10041}"),
    ])
    func loneSurrogateEscapesAreRefusedUnlessTheCheckIsOff(document: String, yajlDecodes expected: String) throws {
        let refused = parse(document)
        #expect(
            refused.error?.kind == .invalidUTF8 && refused.error?.byteOffset == 2,
            "\(String(describing: refused.error))"
        )
        var options = JSONParser.Options()
        options.validatesUTF8 = false
        let events = EventRecorder()
        try JSONParser(options: options, handler: events).parse(document)
        try #require(events.events.count >= 2)
        #expect(events.events[1].event == .string(expected))
    }
}
