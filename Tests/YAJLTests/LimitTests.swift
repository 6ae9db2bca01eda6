import Foundation
import Testing
import YAJL
import YAJLTestSupport

/// Hostile and broken input ends with a clear, located error, early and in bounded memory.
@Suite("Limits and bad input", .serialized)
struct LimitTests {
    @Test func tenMillionOpeningBracketsHitTheDepthLimit() throws {
        let probe = DeliveryProbe(RepeatingSource(prefix: "", fill: "[", count: 10_000_000, suffix: ""))
        let parser = JSONParser(handler: DiscardingTestHandler())
        let error = try #require(throws: JSONParseError.self) { try parser.parse(from: probe) }
        #expect(error.kind == .depthLimitExceeded)
        #expect(error.byteOffset == 1_000)  // the 1,001st bracket
        #expect(error.column == 1_001)
        #expect(error.limitOption == "maxDepth")
        #expect(error.message == "nesting is deeper than 1000 levels (raise Options.maxDepth)")
        #expect(error.path?.count == 1_000)
        #expect(error.description.contains("…(976 more)…"))
        #expect(probe.delivered == 64 << 10, "read past the first chunk: \(probe.delivered)")
    }

    @Test(arguments: [1, 10, 512])
    func aConfiguredDepthIsEnforcedExactly(limit: Int) {
        let ok = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(parse(ok, options: .init(maxDepth: limit)).error == nil)
        let error = parse(tooDeep, options: .init(maxDepth: limit)).error
        #expect(error?.kind == .depthLimitExceeded)
        #expect(error?.byteOffset == limit)
    }

    @Test func a2GiBStringHitsTheTokenLimitWithoutBeingHeld() throws {
        // Streamed: the 2 GiB exist neither in memory nor on disk.
        let probe = DeliveryProbe(
            RepeatingSource(prefix: #"{"blob": ""#, fill: "abcdefgh", count: 2 << 27, suffix: #""}"#)
        )
        #expect(probe.base.totalLength! > 2 << 30)
        let resetPeak = ProcessMemory.resetPeak()
        let before = ProcessMemory.field("VmRSS") ?? 0
        let parser = JSONParser(handler: DiscardingTestHandler())
        let error = try #require(throws: JSONParseError.self) { try parser.parse(from: probe) }
        #expect(error.kind == .tokenLimitExceeded)
        #expect(error.limitOption == "maxTokenBytes")
        #expect(error.path?.description == "$.blob")
        // The parse stopped after about the limit, not after 2 GiB.
        #expect(probe.delivered <= 2 * JSONParser.Options().maxTokenBytes + (64 << 10))
        if resetPeak, let peak = ProcessMemory.field("VmHWM") {
            // The buffered token (≤ 16 MiB, in a buffer that doubles) plus one read.
            #expect(peak - before < 80 << 20, "peak grew by \((peak - before) >> 20) MiB")
        }
    }

    @Test func aLongStringWithinARaisedLimitParsesInFewReads() throws {
        let length = 100 << 20
        let probe = DeliveryProbe(
            RepeatingSource(prefix: "[\"", fill: "0123456789abcdef", count: length / 16, suffix: "\", 1]")
        )
        final class Lengths: JSONEventHandler {
            var stringLength = 0
            var numbers = 0
            func string(_ value: JSONStringView, context: JSONEventContext) throws { stringLength = value.count }
            func number(_ value: JSONNumberView, context: JSONEventContext) throws { numbers += 1 }
        }
        let lengths = Lengths()
        try JSONParser(options: .init(maxTokenBytes: 128 << 20), handler: lengths).parse(from: probe)
        #expect(lengths.stringLength == length)
        #expect(lengths.numbers == 1)
    }

    @Test func theDocumentLimitStopsAnEndlessStream() throws {
        // Never ends: without a limit this would read forever.
        let probe = DeliveryProbe(RepeatingSource(prefix: "[", fill: "1,", count: nil, suffix: ""))
        let parser = JSONParser(options: .init(maxDocumentBytes: 1 << 20), handler: DiscardingTestHandler())
        let error = try #require(throws: JSONParseError.self) { try parser.parse(from: probe) }
        #expect(error.kind == .documentLimitExceeded)
        #expect(error.byteOffset == 1 << 20)
        #expect(parser.bytesConsumed == 1 << 20)
        #expect(error.path?.description.hasPrefix("$[") == true)
    }

    /// Found by the parser fuzzer: limit errors counted the lines of their chunk twice.
    @Test(arguments: [1, 3, 1 << 20])
    func limitErrorsAreLocatedByLineAndColumn(chunkSize: Int) throws {
        let document = "[\n  \"abc\",\n  \"a long string that goes on\"\n]"
        func location(_ offset: Int) -> String {
            let before = Array(document.utf8.prefix(offset))
            let line = before.filter { $0 == UInt8(ascii: "\n") }.count + 1
            let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
            return "\(line):\(column)"
        }
        let documentLimit = try #require(
            parse(document, chunkSize: chunkSize, options: .init(maxDocumentBytes: 20)).error
        )
        #expect(documentLimit.kind == .documentLimitExceeded)
        #expect(documentLimit.byteOffset == 20)
        #expect("\(documentLimit.line):\(documentLimit.column)" == location(20))
        #expect(location(20) == "3:10")
        if chunkSize == 1 {
            // Only a token that spans chunks is buffered, so only then does the token limit apply.
            let tokenLimit = try #require(parse(document, chunkSize: chunkSize, options: .init(maxTokenBytes: 8)).error)
            #expect(tokenLimit.kind == .tokenLimitExceeded)
            #expect((14...22).contains(tokenLimit.byteOffset))
            #expect("\(tokenLimit.line):\(tokenLimit.column)" == location(tokenLimit.byteOffset))
        }
    }

    @Test func tenMillionSmallKeysInOneObjectKeepMemoryFlat() throws {
        // Keys are not retained: memory does not grow with their number (the tool test feeds
        // 100,000,000 of them to the release build; see scripts/hostile-inputs.sh).
        let probe = DeliveryProbe(
            RepeatingSource(prefix: "{", fill: #""key":0,"#, count: 10_000_000, suffix: #""end":1}"#)
        )
        final class Counter: JSONEventHandler {
            var keys = 0
            func key(_ key: JSONStringView, context: JSONEventContext) throws { keys += 1 }
        }
        let resetPeak = ProcessMemory.resetPeak()
        let before = ProcessMemory.field("VmRSS") ?? 0
        let counter = Counter()
        let started = ContinuousClock.now
        try JSONParser(handler: counter).parse(from: probe)
        #expect(counter.keys == 10_000_001)
        print("10,000,000 keys: \(ContinuousClock.now - started) in a debug build")
        if resetPeak, let peak = ProcessMemory.field("VmHWM") {
            #expect(peak - before < 4 << 20, "peak grew by \((peak - before) >> 10) KiB")
        } else {
            print("⚠️  10,000,000 keys: peak-memory check skipped (\(ProcessMemory.unavailable ?? "peak not reset"))")
        }
    }

    @Test(arguments: ["1", "-1", "0.1", "1e"])
    func numbersWithAHundredThousandDigitsParseFast(shape: String) throws {
        let digits = String(repeating: "7", count: 100_000)
        let text: String
        switch shape {
        case "1": text = digits
        case "-1": text = "-" + digits
        case "0.1": text = "0." + digits
        default: text = "1e" + digits
        }
        let started = ContinuousClock.now
        let whole = parse("[\(text), 1]")
        let elapsed = ContinuousClock.now - started
        #expect(whole.error == nil)
        guard whole.events.count > 1, case .number(let number) = whole.events[1].event else {
            Issue.record("expected a number, got \(whole.events)")
            return
        }
        #expect(number.text == text)  // lossless
        #expect(number.value == (shape == "0.1" ? .double(0.7777777777777778) : .unrepresentable))
        #expect(elapsed < .seconds(2), "took \(elapsed)")
        // In 4 KiB chunks YAJL buffers the token across 25 reads: still fast, still the same.
        let chunkedStart = ContinuousClock.now
        let chunked = parse("[\(text), 1]", chunkSize: 4096)
        #expect(chunked == whole)
        #expect(ContinuousClock.now - chunkedStart < .seconds(2))
    }

    @Test func deeplyNestedJSONPathExpressionsAreRefused() {
        for expression in [
            "$" + String(repeating: "[0]", count: 100_000),
            "$" + String(repeating: ".a", count: 61),
            "$" + String(repeating: "..a", count: 1_000),
            "$" + String(repeating: "[", count: 100_000),
        ] {
            let started = ContinuousClock.now
            #expect(throws: JSONPathSyntaxError.self) { try JSONPathQuery(expression) }
            #expect(ContinuousClock.now - started < .seconds(1))
        }
        #expect((try? JSONPathQuery("$" + String(repeating: ".a", count: 60))) != nil)  // the limit itself
    }

    @Test func everyTruncationOfADocumentIsReported() {
        let document = #"{"results": [{"name": "Zürich", "n": [1, 2.5, -3e2], "ok": true, "nil": null}]}"#
        let bytes = Array(document.utf8)
        for length in 0..<bytes.count {
            let outcome = parse(Array(bytes[..<length]), chunkSize: 3)
            let error = outcome.error
            #expect(error?.kind == .prematureEndOfInput, "prefix \(length): \(String(describing: error))")
            #expect(error?.byteOffset == length)
            #expect(error?.message.hasPrefix("premature EOF") == true, "\(String(describing: error))")
        }
        #expect(parse(bytes, chunkSize: 3).error == nil)
    }

    @Test func invalidUTF8InKeysIsRejectedWithItsLocation() throws {
        let bytes: [UInt8] = Array("{\n  \"ok\": 1,\n  \"k".utf8) + [0xFF] + Array("\": 2}".utf8)
        let error = try #require(parse(bytes).error)
        #expect(error.kind == .invalidUTF8)
        #expect(error.line == 3)
        #expect(error.path?.description == "$.ok")
        #expect(error.excerpt.contains("\u{FFFD}"))
    }

    @Test func nulBytesAreErrorsOutsideStringsAndInsideThem() {
        #expect(parse([UInt8(ascii: "["), 0, UInt8(ascii: "]")]).error?.kind == .invalidCharacter)
        #expect(parse(Array("[\"a".utf8) + [0] + Array("b\"]".utf8)).error?.kind == .invalidCharacter)
        // Escaped, a NUL is a valid character and is delivered intact.
        #expect(parse(#"["a\u0000b"]"#).events[1].event == .string("a\u{0}b"))
    }

    @Test func errorDescriptionReadsAsDocumented() throws {
        let text = "{\"results\": [\n  {\"name\": \"a\"},\n  {\"name\": \"b\"},\n  {\"name\": "
        let error = try #require(parse(text).error)
        #expect(
            error.description == "premature EOF at line 4, column 12 (byte \(text.utf8.count)) in $.results[2].name"
        )
        #expect(error.detailedDescription.hasSuffix("  {\"name\": \n               ^"))
    }
}
