import Foundation
import Testing
import YAJL

@Suite("Typed events and paths")
struct ParserEventTests {
    @Test func eventsOfASmallDocument() {
        let outcome = parse(#"{"a": [1, 2.5, "x", true, false, null], "b": {}}"#)
        #expect(outcome.error == nil)
        #expect(
            outcome.events.map(\.description) == [
                "startObject @$ d0",
                #"key("a") @$.a d1"#,
                "startArray @$.a d1",
                "number(1) @$.a[0] d2",
                "number(2.5) @$.a[1] d2",
                #"string("x") @$.a[2] d2"#,
                "bool(true) @$.a[3] d2",
                "bool(false) @$.a[4] d2",
                "null @$.a[5] d2",
                "endArray @$.a d1",
                #"key("b") @$.b d1"#,
                "startObject @$.b d1",
                "endObject @$.b d1",
                "endObject @$ d0",
            ]
        )
    }

    @Test(arguments: [
        (#"{"results": [{"name": "x"}, {"name": "y", "geo": [1, [2, 3]]}]}"#, "$.results[1].geo[1][1]"),
        (#"{"a b": {"c.d": {"it's": {"": 1}}}}"#, #"$['a b']['c.d']['it\'s']['']"#),
        (#"{"ключ": {"_ok1": {"1x": 1}}}"#, "$['ключ']._ok1['1x']"),
        (#"[[[], [[7]]]]"#, "$[0][1][0][0]"),
        (#"{"tab\there": {"q\"": 1}}"#, #"$['tab\there']['q"']"#),
    ])
    func pathOfTheDeepestScalar(document: String, expected: String) {
        let outcome = parse(document)
        #expect(outcome.error == nil)
        let deepest = outcome.events.filter { if case .number = $0.event { return true } else { return false } }.last
        #expect(deepest?.path == expected)
    }

    @Test func pathComponentsAreExposed() throws {
        var seen: [JSONPath] = []
        let parser = JSONParser { event, context in
            if case .number = event { seen.append(context.path!) }
        }
        try parser.parse(#"{"a": [10, {"b": 20}]}"#)
        try parser.finish()
        #expect(seen == [[.key("a"), .index(0)], [.key("a"), .index(1), .key("b")]])
        #expect(seen[1].count == 3)
        #expect(JSONPath.root.description == "$")
    }

    @Test func depthAndMaxDepth() throws {
        let parser = JSONParser(handler: EventRecorder())
        try parser.parse("[[1], {\"a\": [[[]]]}]")
        try parser.finish()
        #expect(parser.maxDepthSeen == 5)
        #expect(parser.state == .finished)
    }

    @Test func pathTrackingCanBeTurnedOff() {
        let outcome = parse(#"{"a": [1]}"#, options: .init(tracksPath: false))
        #expect(outcome.events.allSatisfy { $0.path == "-" })
        #expect(outcome.events.map(\.depth) == [0, 1, 1, 2, 1, 0])
        let failure = parse(#"{"a": [1"#, options: .init(tracksPath: false))
        #expect(failure.error?.path == nil)
        #expect(failure.error?.description == "premature EOF at line 1, column 9 (byte 8)")
    }

    @Test func multipleValuesEachStartAtTheRoot() throws {
        var indices: [Int] = []
        var paths: [String] = []
        let parser = JSONParser(options: .init(allowMultipleValues: true)) { event, context in
            if case .number = event {
                indices.append(context.topLevelIndex)
                paths.append(context.path!.description)
            }
        }
        try parser.parse("{\"a\":1}\n{\"a\":2}\n[3]\n4\n")
        try parser.finish()
        #expect(indices == [0, 1, 2, 3])
        #expect(paths == ["$.a", "$.a", "$[0]", "$"])
        #expect(parser.topLevelValueCount == 4)
    }

    @Test func stringsAreUnescapedAndBorrowedViewsCompare() throws {
        final class Finder: JSONEventHandler {
            var matches = 0
            var text = ""
            func key(_ key: JSONStringView, context: JSONEventContext) throws {
                if key == "naïve" { matches += 1 }
                #expect(!(key == "other"))
            }
            func string(_ value: JSONStringView, context: JSONEventContext) throws { text = value.string }
        }
        let finder = Finder()
        let parser = JSONParser(handler: finder)
        try parser.parse(#"{"na\u00efve": "a\"b\\c\/d\n\u00e9\ud83d\ude00"}"#)
        try parser.finish()
        #expect(finder.matches == 1)
        #expect(finder.text == "a\"b\\c/d\né😀")
    }

    @Test func optionsChangeWhatIsAccepted() {
        #expect(parse("[1 /* c */, // d\n 2]").error?.kind == .commentNotAllowed)
        #expect(parse("[1 /* c */, // d\n 2]", options: .init(allowComments: true)).error == nil)
        #expect(parse("[1] x").error?.kind == .trailingGarbage)
        #expect(parse("[1] x", options: .init(allowTrailingGarbage: true)).error == nil)
        #expect(parse("1 2").error?.kind == .trailingGarbage)
        #expect(parse("1 2", options: .init(allowMultipleValues: true)).events.count == 2)
        #expect(parse("[1, 2").error?.kind == .prematureEndOfInput)
        let partial = parse("[1, 2", options: .init(allowPartialValues: true))
        #expect(partial.error == nil)
        #expect(partial.events.count == 3)
        let invalidUTF8: [UInt8] = Array("[\"a".utf8) + [0xFF, 0xFE] + Array("\"]".utf8)
        #expect(parse(invalidUTF8).error?.kind == .invalidUTF8)
        #expect(parse(invalidUTF8, options: .init(validatesUTF8: false)).error == nil)
    }

    @Test func aTopLevelNumberIsDeliveredByFinish() throws {
        let recorder = EventRecorder()
        let parser = JSONParser(handler: recorder)
        try parser.parse("12")
        try parser.parse("34")
        #expect(recorder.events.isEmpty)
        try parser.finish()
        #expect(recorder.events.map(\.event) == [.number(JSONNumber("1234")!)])
    }

    @Test func stopEndsTheParseWithoutAnError() throws {
        let recorder = EventRecorder()
        recorder.stopAfter = 3
        let parser = JSONParser(handler: recorder)
        let state = try parser.parse("[1, 2, 3, 4, 5]")
        #expect(state == .stopped)
        #expect(recorder.events.count == 3)
        #expect(parser.bytesConsumed == 5)  // just past "2"
        #expect(try parser.parse("garbage") == .stopped)
        #expect(try parser.finish() == .stopped)
    }

    @Test func aHandlerErrorIsRethrownUnchanged() throws {
        let recorder = EventRecorder()
        recorder.throwAfter = 2
        let parser = JSONParser(handler: recorder)
        #expect(throws: HandlerFailure(count: 2)) { try parser.parse("[1, 2, 3]") }
        #expect(parser.state == .failed)
        // Every later call rethrows the same error.
        #expect(throws: HandlerFailure(count: 2)) { try parser.finish() }
    }

    @Test func aHandlerErrorDuringFinishIsRethrown() throws {
        let recorder = EventRecorder()
        recorder.throwAfter = 1
        let parser = JSONParser(handler: recorder)
        try parser.parse("42")
        #expect(throws: HandlerFailure(count: 1)) { try parser.finish() }
    }

    @Test func eventByteOffsets() throws {
        var offsets: [Int] = []
        let parser = JSONParser { _, context in offsets.append(context.byteOffset) }
        try parser.parse(#"{"ab": [1, "x"]}"#)
        try parser.finish()
        // Just past each token: { "ab" [ 1 "x" ] }
        #expect(offsets == [1, 5, 8, 9, 14, 15, 16])
    }
}
