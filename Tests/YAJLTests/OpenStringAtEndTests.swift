import Foundation
import Testing
import YAJLTestSupport

@testable import YAJLCore

/// YAJL accepts input that ends inside a string opened after a complete value (it waits for the
/// rest of the token, and at the end it has none): `[1] "abc` passed as valid, and with several
/// values a last value cut inside a string was dropped without a word. Both are errors now, in
/// every way the input is read, and what must stay valid stays valid.
@Suite("Input that ends inside a string after a value")
struct OpenStringAtEndTests {
    static let cut = [
        #"[1]"abc"#, #"[1] "abc\""#, #"{"a":1} ""#, #"52"1975812"#, #""x" "y"#, #"true""#, "1 \"\u{00e9}",
        #"{"k":[true,{}]}"# + "\n\t\"tail", #"[1] "a\n"#, #"[1] "\u00e9"#,
    ]
    /// Cut right after a backslash or inside a `\u` escape: YAJL's own end of input (a space after
    /// them) is an invalid escape, so these were rejected before, with YAJL's words.
    static let cutInsideAnEscape = [#"[1] "abc\"#, #"[1] "a\u12"#, #"[1] "\u"#]
    static let whole = [#"[1]  "#, #""abc""#, "123", "[1]\n", #"{"a":"b"}"#, #"" ""#, #""\"""#]
    static let readSizes = [1, 2, 5, 64 << 10]

    /// The parse's error (`nil` when accepted), at a read size.
    static func parsed(
        _ text: String,
        readSize: Int,
        _ change: (inout JSONParser.Options) -> Void = { _ in }
    )
        -> JSONParseError?
    {
        var options = JSONParser.Options()
        options.chunkSize = readSize
        change(&options)
        do {
            try JSONParser(options: options) { _, _ in }.parse(from: .bytes(Array(text.utf8)))
            return nil
        } catch let error as JSONParseError {
            return error
        } catch {
            Issue.record("not a JSONParseError: \(error)")
            return nil
        }
    }

    @Test(arguments: cut)
    func oneValueThenAnOpenStringIsTrailingGarbage(_ text: String) throws {
        let bytes = Array(text.utf8)
        for readSize in Self.readSizes {
            let error = try #require(Self.parsed(text, readSize: readSize), "\(text.debugDescription) at \(readSize)")
            #expect(error.kind == .trailingGarbage)
            #expect(error.message.contains("never closed"), "\(error.message)")
            #expect(error.byteOffset == bytes.count, "located at the end of the input")
            var options = JSONParser.Options()
            options.chunkSize = readSize
            // `validate`, its lean pass, and the tool's path all agree.
            #expect(ValidationTests.validating(bytes, options: options) == "\(error)")
            #expect(try LeanValidation.run(MemoryByteSource(bytes), options: options) == .undecided)
        }
        // Trailing garbage allowed: accepted, as before.
        #expect(Self.parsed(text, readSize: 7) { $0.allowTrailingGarbage = true } == nil)
    }

    @Test(arguments: cutInsideAnEscape)
    func cutInsideAnEscapeIsRejectedAsBefore(_ text: String) throws {
        for readSize in Self.readSizes {
            #expect(Self.parsed(text, readSize: readSize)?.kind == .trailingGarbage)
            #expect(
                Self.parsed(text, readSize: readSize) { $0.allowMultipleValues = true }?.kind == .prematureEndOfInput
            )
            var options = JSONParser.Options()
            options.chunkSize = readSize
            #expect(ValidationTests.validating(Array(text.utf8), options: options) != nil)
        }
    }

    /// With several values, the last one cut inside a string is the end of the input inside a
    /// value, as for any other value (unless partial values are accepted).
    @Test(arguments: cut)
    func severalValuesEndingInsideAStringArePrematureEOF(_ text: String) throws {
        for readSize in Self.readSizes {
            let error = try #require(Self.parsed(text, readSize: readSize) { $0.allowMultipleValues = true })
            #expect(error.kind == .prematureEndOfInput, "\(text.debugDescription) at \(readSize): \(error)")
            #expect(error.message.contains("allowPartialValues"))
        }
        let partial = Self.parsed(text, readSize: 7) {
            $0.allowMultipleValues = true
            $0.allowPartialValues = true
        }
        #expect(partial == nil)
    }

    /// The events before the cut string are delivered, and no event for the cut string is.
    @Test func noEventForTheCutString() throws {
        var events: [JSONEvent] = []
        var options = JSONParser.Options()
        options.allowMultipleValues = true
        let parser = JSONParser(options: options) { event, _ in events.append(event) }
        #expect(throws: JSONParseError.self) { try parser.parse(from: .bytes(Array(#"{"a":1} "x" "cut"#.utf8))) }
        #expect(events.count == 5, "\(events)")
        #expect(events.last == .string("x"))
    }

    @Test(arguments: whole)
    func completeDocumentsStayValid(_ text: String) throws {
        for readSize in Self.readSizes {
            #expect(Self.parsed(text, readSize: readSize) == nil, "\(text.debugDescription) at \(readSize)")
            #expect(Self.parsed(text, readSize: readSize) { $0.allowMultipleValues = true } == nil)
            var options = JSONParser.Options()
            options.chunkSize = readSize
            #expect(ValidationTests.validating(Array(text.utf8), options: options) == nil)
        }
    }

    /// NDJSON records: a last line cut inside a string is an error, not a lost record.
    @Test func aCutLastRecordIsAnError() throws {
        let text = "{\"id\":1}\n{\"id\":2}\n\"cut"
        var options = JSONParser.Options()
        options.allowMultipleValues = true
        var seen = 0
        #expect(throws: JSONParseError.self) {
            try JSONParser(options: options) { event, _ in if case .endObject = event { seen += 1 } }
                .parse(from: .bytes(Array(text.utf8)))
        }
        #expect(seen == 2)
    }
}
