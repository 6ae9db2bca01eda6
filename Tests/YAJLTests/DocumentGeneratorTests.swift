import Foundation
import Testing
import YAJLFixtures
import YAJLTestSupport

/// The synthetic documents the demo, the tests and the benchmarks read: what their content
/// promises, and the version check that makes a cached document of an earlier generator again.
@Suite("Document generator")
struct DocumentGeneratorTests {
    /// The numbers document's points: a full-precision coordinate (past the 15 digits of the fast
    /// path, as canada.json's) then one of six decimals.
    @Test func numbersHoldFullPrecisionAndShortCoordinates() throws {
        let file = TemporaryFile("generator-numbers.json")
        defer { file.remove() }
        let counts = try DocumentGenerator.write(.numbers, targetBytes: 256 << 10, to: file.path)
        let text = try String(contentsOfFile: file.path, encoding: .utf8)
        let points = text.matches(of: try Regex(#"\[(-?[0-9][0-9.e+-]*),(-?[0-9][0-9.e+-]*)\]"#))
        #expect(points.count == counts.records * 32)
        var precise = 0
        for point in points {
            let first = try #require(point.output[1].substring.map(String.init))
            let second = try #require(point.output[2].substring.map(String.init))
            if Self.significantDigits(first) >= 15 { precise += 1 }
            #expect(Self.significantDigits(second) <= 9, "\(second)")
            #expect(Double(first).map { $0 >= -180 && $0 < 180 } == true, "\(first)")
        }
        // Shortest round-trip forms of random 53-bit doubles: 15 or more digits nearly always.
        #expect(precise * 100 >= points.count * 95, "\(precise) of \(points.count) first coordinates")
    }

    @Test(arguments: DocumentGenerator.Kind.allCases)
    func aDocumentOfThisVersionIsCurrentAndAnEarlierOneIsNot(kind: DocumentGenerator.Kind) throws {
        let file = TemporaryFile("generator-version-\(kind).json")
        defer { file.remove() }
        #expect(!DocumentGenerator.isCurrent(file.path, kind: kind) || kind == .ndjson)  // missing
        try DocumentGenerator.write(kind, targetBytes: 16 << 10, to: file.path)
        #expect(DocumentGenerator.isCurrent(file.path, kind: kind))
        guard kind != .ndjson else { return }  // no meta, never changed: always current
        var text = try String(contentsOfFile: file.path, encoding: .utf8)
        let current = #""version":\#(DocumentGenerator.version)}"#
        #expect(text.contains(current))
        text = text.replacingOccurrences(of: current, with: #""version":1}"#)
        try text.write(toFile: file.path, atomically: true, encoding: .utf8)
        #expect(!DocumentGenerator.isCurrent(file.path, kind: kind))
    }

    /// Digits from the first non-zero one, sign, point and exponent left out.
    static func significantDigits(_ number: String) -> Int {
        let mantissa = number.split(whereSeparator: { $0 == "e" || $0 == "E" }).first ?? ""
        return mantissa.filter(\.isNumber).drop(while: { $0 == "0" }).count
    }
}
