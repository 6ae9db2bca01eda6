import Foundation
import Testing
import YAJLFixtures
import YAJLTestSupport

@testable import YAJLCore

/// `JSONParser.validate` against a full parse, over the corners of YAJL's grammar, generated and
/// mutated documents, and real ones: validation's lean pass (YAJL with only the callbacks its limits
/// need) must accept exactly what a parse with position and path tracking accepts (whatever it
/// leaves undecided goes to that parse, so a document it wrongly left would cost only time, but
/// one it wrongly accepted would be a wrong verdict), and `validate` must give the parse's verdict
/// and error. Both directions are checked, at reads of 1, 3, 7 and 64 KiB (a token split
/// anywhere).
@Suite("Validation: verdicts against a full parse")
struct ValidationVerdictTests {
    static func scan(_ bytes: [UInt8], _ options: JSONParser.Options = .init()) throws -> LeanValidation.Verdict {
        try LeanValidation.run(MemoryByteSource(bytes), options: options)
    }

    /// The full pass (YAJL with position and path tracking): `nil` when accepted, else the error.
    static func fullPass(_ bytes: [UInt8], _ options: JSONParser.Options = .init()) -> String? {
        do {
            try JSONParser.validateWithTracking(MemoryByteSource(bytes), options: options)
            return nil
        } catch {
            return "\(error)"
        }
    }

    static let readSizes = [1, 3, 7, 64 << 10]

    /// The lean pass's verdict and `validate`'s against the full pass's, at every read size; `what`
    /// names the input. Returns whether the full pass (at the options' own read size) accepted.
    @discardableResult
    static func expectSameVerdict(
        _ bytes: [UInt8],
        _ what: @autoclosure () -> String,
        options given: JSONParser.Options = .init(),
        readSizes: [Int] = readSizes
    )
        throws -> Bool
    {
        let full = fullPass(bytes, given)
        for readSize in readSizes {
            var options = given
            options.chunkSize = readSize
            let verdict = try scan(bytes, options)
            if verdict == .valid {
                #expect(full == nil, "\(what()) at \(readSize): the lean pass accepted, the parse said \(full!)")
            } else if full == nil && readSize == 64 << 10 {
                // Whole reads of a valid document are decided by the lean pass, or its speed is gone.
                #expect(Bool(false), "\(what()) at \(readSize): valid, but the lean pass said \(verdict)")
            }
            // The error itself (its offset can depend on where reads end: Docs/Conformance.md); the
            // full pass at the options' own read size is the one made above.
            #expect(
                ValidationTests.validating(bytes, options: options)
                    == (readSize == given.chunkSize ? full : fullPass(bytes, options)),
                "\(what()) at \(readSize)"
            )
        }
        return full == nil
    }

    @Test(
        .enabled(if: SharedMaterial.isAvailable, "../shared/conformance not found: scanner conformance cases skipped"),
        arguments: ConformanceTests.cases(prefix: "y_") + ConformanceTests.cases(prefix: "n_")
            + ConformanceTests.cases(prefix: "i_")
    )
    func acceptsExactlyWhatAParseAccepts(_ name: String) throws {
        try Self.expectSameVerdict(try ConformanceTests.bytes(name), name)
    }

    /// The corners of YAJL's grammar, one by one (with a verdict written out, so that a change of
    /// YAJL's configuration would be seen).
    @Test(arguments: [
        // YAJL's white space includes vertical tab and form feed.
        ("[1,\u{0B}2]", true), ("\u{0C}[\u{0C}]\u{0B}", true), ("[1\u{00}]", false), ("[1]\u{00}", false),
        ("  ", false), ("", false), ("\n1\n", true), ("1 2", false), ("[1] x", false),
        // Numbers.
        ("-0", true), ("-", false), ("-a", false), ("01", false), ("-01", false), ("0.5", true), ("0.", false),
        ("1.e5", false), (".5", false), ("+1", false), ("1e", false), ("1e+", false), ("1E-0", true),
        ("1e+5", true), ("1.5.3", false), ("1ee5", false), ("0x1", false), ("[1e5,2E+5,3.25e-7]", true),
        ("[-]", false), ("[1.]", false), ("[0,-0.0e0]", true), ("123456789012345678901234567890", true),
        // Literals.
        ("true", true), ("tru", false), ("truex", false), ("[true,false,null]", true), ("[nul]", false),
        ("[falsE]", false), ("[true1]", false), ("nulll", false), ("[True]", false),
        // Strings and escapes.
        (#""""#, true), (#""a"#, false), (#""\/\b\f\n\r\t\"\\""#, true), (#""\a""#, false), (#""\u00e9""#, true),
        (#""\u00G9""#, false), (#""\u00e""#, false), (#""\uD83D\uDE00""#, true), (#""\ud800""#, false),
        ("\"tab\u{09}\"", false), ("\"nul\u{00}\"", false), ("\"del\u{7F}\"", true), ("\"é ü 😀\"", true),
        (#""a"  "b""#, false), (#"["a""b"]"#, false),
        // Structure.
        ("[]", true), ("{}", true), ("[[]]", true), ("[1,]", false), ("[,1]", false), ("[1,,2]", false),
        (#"{"a":1,}"#, false), (#"{"a" 1}"#, false), (#"{"a":}"#, false), (#"{1:1}"#, false), (#"{"a":1"#, false),
        (#"{"a":1]"#, false), (#"[1}"#, false), ("]", false), ("}", false), ("[", false), ("[[1]", false),
        (#"{"a":{"b":[{}]},"c":[[],{}]}"#, true), (#"{"a"}"#, false), (#"{"a":1:2}"#, false), (#"{,}"#, false),
        (#"[1:2]"#, false), (#"{"a":1 "b":2}"#, false), (#"{"a":1,"b"}"#, false),
    ])
    func grammarCorners(_ document: String, _ valid: Bool) throws {
        let bytes = Array(document.utf8)
        #expect((Self.fullPass(bytes) == nil) == valid, "the parse's verdict on \(document.debugDescription)")
        try Self.expectSameVerdict(bytes, document.debugDescription)
    }

    /// Documents made from a grammar with near misses (bad escapes, numbers, literals, commas,
    /// controls, invalid UTF-8), then mutated byte by byte: a differential test against the parse.
    @Test(arguments: 0..<8)
    func generatedAndMutatedDocuments(seed: UInt64) throws {
        var random = NumberParsingTests.SplitMix(state: 0x5CA7 &+ seed)
        var accepted = 0
        for _ in 0..<400 {
            var document = AlmostJSON.value(&random, depth: 0)
            if random.next() % 3 == 0 { AlmostJSON.mutate(&document, &random) }
            if Self.fullPass(document) == nil { accepted += 1 }
            try Self.expectSameVerdict(document, String(decoding: document, as: UTF8.self).debugDescription)
        }
        // The generator must make valid documents too, or only one direction would be tested.
        #expect(accepted > 40, "only \(accepted) of 400 generated documents were valid")
    }

    /// Long strings and keys full of escapes (the UTF-8 check's surrogate test finds escapes 64
    /// bytes at a time), after 0 to 63 bytes so that every escape lands at every place in a block:
    /// valid, then with one byte replaced at a random place by a control byte, a quote, a
    /// backslash, `u`, or a letter that is neither an escape nor a hexadecimal digit. The verdict
    /// is the parse's at every read size.
    @Test(arguments: 0..<4)
    func stringsFullOfEscapes(seed: UInt64) throws {
        var random = NumberParsingTests.SplitMix(state: 0xE5C &+ seed)
        let pieces = [
            #"\n"#, #"\""#, #"\\"#, #"\/"#, #"\b"#, #"\f"#, #"\r"#, #"\t"#, #"\u00e9"#, #"\uD83D\uDE00"#, #"\\\\"#,
            #"\\u"#, "ab", "u", "é", " ",
        ]
        let replacements: [UInt8] = [
            0x01, 0x1F, UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "g"),
        ]
        var accepted = 0
        var rejected = 0
        for round in 0..<64 {
            var text = String(repeating: "a", count: round)
            let length = round + 70 + Int(random.next() % 400)
            while text.utf8.count < length { text += pieces[Int(random.next() % UInt64(pieces.count))] }
            let document = Array(("{\"k\":[\"" + text + "\",\"" + text + "\"],\"" + text + "\":1}").utf8)
            try Self.expectSameVerdict(document, "escapes, round \(round)")
            for _ in 0..<8 {
                var damaged = document
                let at = 7 + Int(random.next() % UInt64(document.count - 12))
                damaged[at] = replacements[Int(random.next() % UInt64(replacements.count))]
                if Self.fullPass(damaged) == nil { accepted += 1 } else { rejected += 1 }
                try Self.expectSameVerdict(damaged, "escapes, round \(round), byte \(at) replaced")
            }
        }
        // Both verdicts must occur, or only one direction would be tested.
        #expect(rejected > 100 && accepted > 10, "\(accepted) damaged documents valid, \(rejected) not")
    }

    /// Real documents (the generator's kinds, and the shared corpus when present) at reads that
    /// cut every kind of token somewhere: all valid; then each cut short, or with one byte
    /// changed, at 12 places: the verdict is the parse's.
    @Test(arguments: ["records", "numbers", "strings", "dates", "canada.json", "citm_catalog.json", "twitter.json"])
    func realDocumentsWholeAndDamaged(_ name: String) throws {
        var document: [UInt8]
        if let kind = DocumentGenerator.Kind(rawValue: name) {
            let file = TemporaryFile("verdict-\(name).json")
            defer { file.remove() }
            try DocumentGenerator.write(kind, targetBytes: 200 << 10, to: file.path, seed: 7)
            document = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file.path)))
        } else if let directory = SharedMaterial.corpusDirectory,
            let data = try? Data(contentsOf: directory.appendingPathComponent(name))
        {
            document = [UInt8](data)
        } else {
            print("ValidationVerdictTests: ../shared/corpus/\(name) not found: that document is skipped")
            return
        }
        for readSize in [7, 4096, 65536] {
            var options = JSONParser.Options()
            options.chunkSize = readSize
            #expect(try Self.scan(document, options) == .valid, "\(name) at \(readSize)")
        }
        var random = NumberParsingTests.SplitMix(state: UInt64(document.count))
        for round in 0..<12 {
            var damaged = document
            let at = Int.random(in: 0..<document.count, using: &random)
            if round % 2 == 0 {
                damaged.removeSubrange(at...)
            } else {
                damaged[at] = AlmostJSON.oneOf(Array("{}[],:\"\\-.0e1tn x".utf8) + [0x00, 0x0B, 0xC3], &random)
            }
            let full = Self.fullPass(damaged)
            for readSize in [13, 65536] {
                var options = JSONParser.Options()
                options.chunkSize = readSize
                let verdict = try Self.scan(damaged, options)
                #expect((verdict == .valid) == (full == nil), "\(name), change \(round) at \(at), reads of \(readSize)")
            }
        }
    }

    /// ``JSONParser/Options/maxDepth``: the lean pass counts levels as the full pass does.
    @Test(arguments: [1, 2, 5, 64, 65, 200])
    func depthLimit(maxDepth: Int) throws {
        var options = JSONParser.Options()
        options.maxDepth = maxDepth
        let atLimit = Array(
            (String(repeating: "[{\"k\":", count: maxDepth / 2) + String(repeating: "[", count: maxDepth % 2)).utf8
        )
        let closing = Array(
            (String(repeating: "]", count: maxDepth % 2) + String(repeating: "}]", count: maxDepth / 2)).utf8
        )
        let fits = atLimit + Array("1".utf8) + closing
        #expect(try Self.scan(fits, options) == .valid)
        let deeper = atLimit + Array("[1]".utf8) + closing
        #expect(try Self.scan(deeper, options) == .undecided)
        #expect(Self.fullPass(deeper, options)?.contains("maxDepth") == true)
    }

    /// Tokens near ``JSONParser/Options/maxTokenBytes``: `validate` gives the parse's verdict.
    @Test(arguments: ["\"abcdefghijklmnopqrstuvwxyz\"", "12345678901234567890123", "[\"abcdefghijklmnop\",\"x\"]"])
    func tokensNearTheLimit(_ document: String) throws {
        var options = JSONParser.Options()
        options.maxTokenBytes = 24
        for readSize in Self.readSizes {
            options.chunkSize = readSize
            let bytes = Array(document.utf8)
            #expect(
                ValidationTests.validating(bytes, options: options)
                    == ValidationTests.withHandler(bytes, options: options)
            )
        }
    }

    /// Vertical tabs and form feeds are white space to YAJL, so they are no token's bytes: the full
    /// pass counted them into the next token, and rejected `\v\v\v\v\v\v0` under a 6-byte limit at
    /// small reads while the lean pass accepted it (found by the parser fuzzer).
    @Test(arguments: [[0x0B], [0x0C], [0x20, 0x0A, 0x0B, 0x0C, 0x09, 0x0D]] as [[UInt8]])
    func yajlWhiteSpaceIsNotTokenBytes(_ space: [UInt8]) throws {
        var options = JSONParser.Options()
        options.maxTokenBytes = 6
        let document = Array(repeating: space, count: 12).flatMap { $0 } + Array("0".utf8)
        for readSize in Self.readSizes {
            options.chunkSize = readSize
            #expect(Self.fullPass(document, options) == nil, "reads of \(readSize)")
            #expect(ValidationTests.validating(document, options: options) == nil, "reads of \(readSize)")
        }
    }

    /// Runs of string bytes and of white space (checked for UTF-8 16 bytes a step, then one by one):
    /// a byte that ends the run (or must not be in it) at every position of runs of 0 to 40 bytes,
    /// after 0 to 15 bytes of white space (every alignment of the 16-byte steps): quotes,
    /// backslashes (escapes good and bad), the controls at both ends of 0x00–0x1F, and the bytes
    /// that only look like them to a signed compare (0x7F, 0xC3 0xA9, 0xF0 0x9F 0x98 0x80). Each
    /// verdict is the full parse's, at reads of one byte and of the whole document. Under a
    /// sanitizer, the lengths around the 16-byte steps only.
    @Test(arguments: [0, 1, 7, 8, 15])
    func runsSkippedInBlocksStopAtEveryPosition(indent: Int) throws {
        let lengths = Sanitizer.scaled(
            Array(0...40),
            underSanitizer: [0, 1, 2, 15, 16, 17, 31, 32, 33, 40],
            "runs skipped in blocks: lengths"
        )
        let leading = Array(repeating: UInt8(ascii: " "), count: indent)
        let plain = Array("abcdefghijklmnopqrstuvwxyz0123456789 ~!@#$%^&*()_+-={}[]:;',.<>?/`|".utf8)
        let stringStops: [[UInt8]] = [
            [0x22], [0x5C, 0x6E], [0x5C, 0x71], [0x00], [0x1F], [0x09], [0x0A], [0x20], [0x7F], [0xC3, 0xA9],
            [0xF0, 0x9F, 0x98, 0x80],
        ]
        let spaces: [UInt8] = [0x20, 0x0A, 0x20, 0x09, 0x20, 0x0D, 0x0B, 0x20, 0x0C]
        let spaceStops: [[UInt8]] = [[0x31], [0x00], [0x08], [0x0E], [0x1F], [0x22, 0x22], [0x5D], [0x2C]]
        var verdicts: [Bool: Int] = [:]
        for length in lengths {
            for position in 0...length {
                for stop in stringStops {
                    let run = (0..<length).map { plain[($0 &* 7 &+ length) % plain.count] }
                    let document =
                        leading + Array("[\"".utf8) + run[..<position] + stop + run[position...] + Array("\"]".utf8)
                    let accepted = try Self.expectSameVerdict(
                        document,
                        "string \(document.debugDescription)",
                        readSizes: [1, 64 << 10]
                    )
                    verdicts[accepted, default: 0] += 1
                }
                for stop in spaceStops {
                    let run = (0..<length).map { spaces[($0 &+ length) % spaces.count] }
                    let document = leading + Array("[".utf8) + run[..<position] + stop + run[position...] + [0x5D]
                    let accepted = try Self.expectSameVerdict(
                        document,
                        "white space \(document.debugDescription)",
                        readSizes: [1, 64 << 10]
                    )
                    verdicts[accepted, default: 0] += 1
                }
            }
        }
        // Both verdicts, many times each, or one direction would go untested.
        let documents = verdicts.values.reduce(0, +)
        print("runs skipped in blocks, indent \(indent): \(verdicts)")
        #expect(
            verdicts[true, default: 0] > documents / 4 && verdicts[false, default: 0] > documents / 4,
            "\(verdicts)"
        )
    }

    /// Every parser option is judged by the lean pass as by the parse.
    @Test(arguments: [
        "allowComments", "allowMultipleValues", "allowPartialValues", "allowTrailingGarbage", "validatesUTF8",
    ])
    func everyOptionIsJudgedAlike(_ option: String) throws {
        var options = JSONParser.Options()
        switch option {
        case "allowComments": options.allowComments = true
        case "allowMultipleValues": options.allowMultipleValues = true
        case "allowPartialValues": options.allowPartialValues = true
        case "allowTrailingGarbage": options.allowTrailingGarbage = true
        default: options.validatesUTF8 = false
        }
        for document in ["[1]", "[1] [2]", "[1, /* c */ 2]", "[1,2", "[1] x", "[\"\u{FFFF}\"]"] {
            try Self.expectSameVerdict(Array(document.utf8), "\(document) with \(option)", options: options)
        }
        try Self.expectSameVerdict([0x22, 0xC0, 0xAF, 0x22], "invalid UTF-8 with \(option)", options: options)
    }

    /// A document larger than ``JSONParser/Options/maxDocumentBytes`` goes to the full pass.
    @Test func documentLimit() throws {
        var options = JSONParser.Options()
        options.maxDocumentBytes = 8
        #expect(try Self.scan(Array("[1,2]".utf8), options) == .valid)
        #expect(try Self.scan(Array("[1,2,3,4,5]".utf8), options) == .undecided)
        #expect(
            ValidationTests.validating(Array("[1,2,3,4,5]".utf8), options: options)?.contains("maxDocumentBytes")
                == true
        )
    }
}
