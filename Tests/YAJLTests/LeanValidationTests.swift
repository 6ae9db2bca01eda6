import Foundation
import Testing
import YAJL
import YAJLTestSupport

@testable import YAJLCore

/// The lean first pass of `JSONParser.validate`: it accepts only what a parse with a handler
/// accepts, it does accept valid documents (or the speed-up would be gone unnoticed), and every
/// case it leaves undecided ends with the full pass's own verdict and error.
@Suite("Validation: the lean first pass")
struct LeanValidationTests {
    static func lean(_ bytes: [UInt8], _ options: JSONParser.Options = .init()) throws -> LeanValidation.Verdict {
        try LeanValidation.run(MemoryByteSource(bytes), options: options)
    }

    /// A parse with a handler, and `validate`: `nil` when accepted, else the error's text.
    static func parsed(_ bytes: [UInt8], _ options: JSONParser.Options = .init()) -> String? {
        ValidationTests.withHandler(bytes, options: options)
    }

    static func validated(_ bytes: [UInt8], _ options: JSONParser.Options = .init()) -> String? {
        ValidationTests.validating(bytes, options: options)
    }

    @Test(
        .enabled(if: SharedMaterial.isAvailable, "../shared/conformance not found: lean validation cases skipped"),
        arguments: ConformanceTests.cases(prefix: "y_") + ConformanceTests.cases(prefix: "n_")
            + ConformanceTests.cases(prefix: "i_")
    )
    func acceptsExactlyWhatAParseAccepts(_ name: String) throws {
        let bytes = try ConformanceTests.bytes(name)
        for chunkSize in [1, 7, 64 << 10] {
            var options = JSONParser.Options()
            options.chunkSize = chunkSize
            let full = Self.parsed(bytes, options)
            let verdict = try Self.lean(bytes, options)
            // Valid for the lean pass only when the full parse accepts.
            if verdict == .valid { #expect(full == nil, "\(name) at \(chunkSize): lean accepted, parse said \(full!)") }
            // And a document the parse accepts is decided by the lean pass (unless a byte order
            // mark is split by one-byte reads, which the full pass handles).
            if full == nil && chunkSize > 3 { #expect(verdict == .valid, "\(name) at \(chunkSize): left undecided") }
            // (That `validate` then gives the parse's verdict and error, at these chunk sizes, is
            // ValidationTests.sameVerdictAndErrorAsAParse.)
        }
    }

    /// Limits and inputs the lean pass must leave to the full pass (which then decides alike).
    @Test(arguments: [
        ("[[[[1]]]]", "maxDepth 3", false),
        (#"["a string longer than the limit"]"#, "maxTokenBytes 8", false),
        (#"[1, 2, 3]"#, "maxDocumentBytes 5", false),
        ("\u{FEFF}[1]", "", true),
        ("\u{FEFF}", "", false),
        ("", "", false),
        ("   ", "", false),
        (#"["\ud800"]"#, "", false),
        (#"["\ud83d\ude00"]"#, "", true),
        ("[1] [2]", "allowMultipleValues", true),
        ("[1] [2]", "", false),
        ("[1, /* c */ 2]", "allowComments", true),
        ("[1, /* c */ 2]", "", false),
        ("[1,2", "allowPartialValues", true),
    ])
    func limitsAndOptions(document: String, option: String, leanAccepts: Bool) throws {
        var options = JSONParser.Options()
        switch option {
        case "maxDepth 3": options.maxDepth = 3
        case "maxTokenBytes 8": options.maxTokenBytes = 8
        case "maxDocumentBytes 5": options.maxDocumentBytes = 5
        case "allowMultipleValues": options.allowMultipleValues = true
        case "allowComments": options.allowComments = true
        case "allowPartialValues": options.allowPartialValues = true
        default: break
        }
        let bytes = Array(document.utf8)
        #expect(try Self.lean(bytes, options) == (leanAccepts ? .valid : .undecided))
        #expect(Self.validated(bytes, options) == Self.parsed(bytes, options))
    }

    @Test func invalidUTF8IsLeftToTheFullPass() throws {
        for bad: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80]] {
            let bytes = Array(#"["x"#.utf8) + bad + Array(#""]"#.utf8)
            #expect(try Self.lean(bytes) == .undecided)
            let error = Self.validated(bytes)
            #expect(error == Self.parsed(bytes))
            #expect(error?.contains("invalid bytes in UTF8 string") == true, "\(error ?? "accepted")")
        }
    }

    /// Strings are not seen by the lean pass: a run of them longer than the token limit makes it
    /// give up (it cannot tell one long string from many short ones); the full pass accepts.
    @Test func manyShortStringsPastTheTokenLimitAreAccepted() throws {
        var options = JSONParser.Options()
        options.maxTokenBytes = 1024
        options.chunkSize = 256
        let strings = Array(("[" + Array(repeating: #""abcd""#, count: 2_000).joined(separator: ",") + "]").utf8)
        #expect(try Self.lean(strings, options) == .undecided)
        #expect(Self.validated(strings, options) == nil)
        // Numbers are seen: the same length of them stays decided.
        let numbers = Array(("[" + Array(repeating: "12345", count: 2_000).joined(separator: ",") + "]").utf8)
        #expect(try Self.lean(numbers, options) == .valid)
        // One string past the limit: the full pass's error.
        let long = Array(("[\"" + String(repeating: "x", count: 5_000) + "\"]").utf8)
        #expect(try Self.lean(long, options) == .undecided)
        #expect(Self.validated(long, options)?.contains("maxTokenBytes") == true)
    }

    /// Scalars are watched only after a read without a container event: numbers among
    /// containers, then a flat run of numbers, stay decided; one number past the limit among
    /// containers is still the full pass's error. (Reads of a quarter of the limit: a read in
    /// which scalars were not watched counts as one without a value, and a value ends a count
    /// that began with the last read with a value, so reads of a third of the limit or more give
    /// up on a flat run after containers.)
    @Test(arguments: [64, 256])
    func scalarsAreWatchedWhereContainersStop(chunkSize: Int) throws {
        var options = JSONParser.Options()
        options.maxTokenBytes = 1024
        options.chunkSize = chunkSize
        let pairs = Array(repeating: "[1.5,-2]", count: 500).joined(separator: ",")
        let flat = Array(repeating: "123456", count: 1_000).joined(separator: ",")
        let mixed = Array(("[" + pairs + "," + flat + "," + pairs + "]").utf8)
        #expect(try Self.lean(mixed, options) == .valid)
        let longNumber = Array(("[" + pairs + "," + String(repeating: "7", count: 3_000) + "," + pairs + "]").utf8)
        #expect(try Self.lean(longNumber, options) == .undecided)
        let error = Self.validated(longNumber, options)
        #expect(error == Self.parsed(longNumber, options))
        #expect(error?.contains("maxTokenBytes") == true, "\(error ?? "accepted")")
    }

    /// Tokens around the token limit, among containers or alone at the top, at many read sizes
    /// and options: whenever the lean pass accepts, the full pass accepts too, at the same reads
    /// and with the whole document in one read, and `validate` accepts. (The fuzzer found a
    /// number ending in the read after one without a value: the lean pass counted only that read.)
    @Test(arguments: 0..<8)
    func neverAcceptsPastTheTokenLimit(seed: UInt64) throws {
        var random = NumberParsingTests.SplitMix(state: seed &* 0x2545_F491_4F6C_DD1D)
        var leanAccepted = 0
        for _ in 0..<500 {
            let limit = Int.random(in: 4...40, using: &random)
            var text = ""
            let values = Int.random(in: 1...6, using: &random)
            let wrap = Bool.random(using: &random)
            if wrap { text += "[" }
            for index in 0..<values {
                if index > 0 { text += wrap ? "," : " " }
                text += String(repeating: " ", count: Int.random(in: 0...3, using: &random))
                let length = Int.random(in: 1...(limit + limit / 2), using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: text += "1" + String(repeating: "2", count: length - 1)
                case 1: text += "5e" + String(repeating: "6", count: length)
                case 2: text += "\"" + String(repeating: "s", count: length) + "\""
                default: text += "[" + String(repeating: "7", count: length) + "]"
                }
            }
            if wrap { text += "]" }
            if Bool.random(using: &random) { text += "jb" }
            var options = JSONParser.Options()
            options.maxTokenBytes = limit
            options.allowMultipleValues = !wrap
            options.allowTrailingGarbage = true
            options.chunkSize = Int.random(in: 1...limit, using: &random)
            let bytes = Array(text.utf8)
            let verdict = try Self.lean(bytes, options)
            guard verdict == .valid else { continue }
            leanAccepted += 1
            var wholeReads = options
            wholeReads.chunkSize = max(bytes.count, 1)
            for parseOptions in [options, wholeReads] {
                let parsed = Self.parsed(bytes, parseOptions)
                #expect(
                    parsed == nil,
                    "lean accepted \(text) (limit \(limit), reads \(options.chunkSize)); parse: \(parsed ?? "")"
                )
            }
            #expect(Self.validated(bytes, options) == nil)
        }
        // The cases are not all left to the full pass (or this test would check nothing).
        #expect(leanAccepted > 15, "the lean pass accepted only \(leanAccepted) cases")
    }

    @Test func restartableSources() throws {
        let file = TemporaryFile("lean.json")
        defer { file.remove() }
        let text = #"{"a": [1, {"b": tru}]}"#
        try Data(text.utf8).write(to: URL(fileURLWithPath: file.path))
        #expect(FileByteSource(path: file.path).restartableCopy() != nil)
        #expect(FileByteSource(path: "/dev/null").restartableCopy() == nil, "a device is not restartable")
        var used = MemoryByteSource([1, 2, 3])
        var buffer = [UInt8](repeating: 0, count: 1)
        _ = try buffer.withUnsafeMutableBytes { try used.read(into: $0) }
        #expect(used.restartableCopy() == nil, "a source already read from is not restartable")
        // The error from a file is the full pass's, located.
        let error = try #require(throws: JSONParseError.self) { try JSONParser.validate(.file(file.path)) }
        #expect("\(error)" == Self.parsed(Array(text.utf8)))
        #expect(error.path.map { "\($0)" } == "$.a[1].b")
    }
}
