import Foundation
import Testing
import YAJL
import YAJLTestSupport

/// JSONTestSuite (../shared/conformance/JSONTestSuite/test_parsing): `y_` must parse, `n_` must
/// fail with a located error, `i_` must end either way without crashing.
@Suite("JSONTestSuite conformance")
struct ConformanceTests {
    /// Cases YAJL accepts although RFC 8259 forbids them. Documented in Docs/Conformance.md.
    static let knownLeniencies: Set<String> = [
        "n_structure_whitespace_formfeed.json"  // YAJL treats a form feed (0x0C) as white space.
    ]

    static func cases(prefix: String) -> [String] {
        guard let directory = SharedMaterial.conformanceDirectory,
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
        else { return [] }
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        let url = try #require(SharedMaterial.conformanceDirectory?.appendingPathComponent(name))
        return try [UInt8](Data(contentsOf: url))
    }

    @Test(.enabled(if: SharedMaterial.isAvailable, "../shared/conformance not found: JSONTestSuite skipped"))
    func theSuiteIsPresent() {
        #expect(Self.cases(prefix: "y_").count > 90)
        #expect(Self.cases(prefix: "n_").count > 180)
    }

    @Test(
        .enabled(if: SharedMaterial.isAvailable, "../shared/conformance not found: y_ cases skipped"),
        arguments: cases(prefix: "y_")
    )
    func mustAccept(_ name: String) throws {
        let bytes = try Self.bytes(name)
        let outcome = parse(bytes)
        #expect(outcome.error == nil, "\(name): \(outcome.error?.description ?? "")")
        #expect(parse(bytes, chunkSize: 1) == outcome, "\(name) differs at chunk size 1")
    }

    @Test(
        .enabled(if: SharedMaterial.isAvailable, "../shared/conformance not found: n_ cases skipped"),
        arguments: cases(prefix: "n_")
    )
    func mustReject(_ name: String) throws {
        let bytes = try Self.bytes(name)
        let outcome = parse(bytes)
        if Self.knownLeniencies.contains(name) {
            #expect(outcome.error == nil, "\(name): documented leniency no longer holds")
            return
        }
        let error = try #require(outcome.error, "\(name) was accepted")
        // The error says where: an offset within the input, a line and a column.
        #expect(error.byteOffset >= 0 && error.byteOffset <= bytes.count, "\(name): offset \(error.byteOffset)")
        #expect(error.line >= 1 && error.column >= 1)
        #expect(error.description.contains("at line \(error.line), column \(error.column) (byte \(error.byteOffset))"))
        let chunked = parse(bytes, chunkSize: 1)
        #expect(chunked.error.map(ErrorLocation.init) == ErrorLocation(error), "\(name) error differs at chunk size 1")
    }

    @Test(
        .enabled(if: SharedMaterial.isAvailable, "../shared/conformance not found: i_ cases skipped"),
        arguments: cases(prefix: "i_")
    )
    func mayEitherWay(_ name: String) throws {
        let bytes = try Self.bytes(name)
        let outcome = parse(bytes)
        #expect(parse(bytes, chunkSize: 3) == outcome, "\(name) differs at chunk size 3")
    }
}

/// ``JSONParser/validate(_:options:)`` delivers no events, yet must reach the same verdict and the
/// same error (message, offset, line, column, path) as a parse with a handler, at every chunking.
@Suite("Validation without events")
struct ValidationTests {
    static func withHandler(_ bytes: [UInt8], chunkSize: Int) -> String? {
        var options = JSONParser.Options()
        options.chunkSize = chunkSize
        return withHandler(bytes, options: options)
    }

    /// The verdict of a parse with a handler: `nil` when accepted, else the error's text.
    static func withHandler(_ bytes: [UInt8], options: JSONParser.Options) -> String? {
        do {
            try JSONParser(options: options, handler: EventRecorder()).parse(from: .bytes(bytes))
            return nil
        } catch {
            return "\(error)"
        }
    }

    static func validating(_ bytes: [UInt8], chunkSize: Int, maxDepth: Int = 1_000) -> String? {
        var options = JSONParser.Options()
        options.chunkSize = chunkSize
        options.maxDepth = maxDepth
        return validating(bytes, options: options)
    }

    /// The verdict of `JSONParser.validate`: `nil` when accepted, else the error's text.
    static func validating(_ bytes: [UInt8], options: JSONParser.Options) -> String? {
        do {
            try JSONParser.validate(.bytes(bytes), options: options)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test(
        .enabled(if: SharedMaterial.isAvailable, "../shared/conformance not found: validation cases skipped"),
        arguments: ConformanceTests.cases(prefix: "n_") + ConformanceTests.cases(prefix: "y_")
            + ConformanceTests.cases(prefix: "i_")
    )
    func sameVerdictAndErrorAsAParse(_ name: String) throws {
        let bytes = try ConformanceTests.bytes(name)
        for chunkSize in [1, 7, 64 << 10] {
            #expect(
                Self.validating(bytes, chunkSize: chunkSize) == Self.withHandler(bytes, chunkSize: chunkSize),
                "\(name) at \(chunkSize)"
            )
        }
    }

    @Test(arguments: [
        #"{"a": [1, 2, {"b": tru}]}"#, #"{"a":\n [1, 2"#, "[1,,2]", #"{"k": "\u{01}"}"#, "[[[[[[1]]]]]]", #"{"a":1}x"#,
        #"{"a": {"b": [true, false, null, "s", 1.5e3]}}"#,
    ])
    func locatedErrorsAndLimitsMatch(document: String) {
        let bytes = Array(document.utf8)
        #expect(Self.validating(bytes, chunkSize: 3) == Self.withHandler(bytes, chunkSize: 3))
        let deep = Self.validating(Array("[[[[1]]]]".utf8), chunkSize: 64, maxDepth: 3)
        #expect(deep?.contains("deeper than 3 levels") == true, "\(deep ?? "accepted")")
    }
}
