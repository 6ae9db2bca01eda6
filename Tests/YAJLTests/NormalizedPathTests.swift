import Foundation
import Testing
import YAJL
import YAJLTestSupport

/// `JSONPath.normalized` against RFC 9535 §2.7 written out here scalar by scalar, over keys that
/// need every escape, generated keys and indices; and each normalized path, read back as a query,
/// selects the value it names.
@Suite("JSONPath: normalized paths")
struct NormalizedPathTests {
    /// Keys with each escape, each control character, and text that needs none.
    static let keys: [String] =
        [
            "", "plain", "it's", "'", "''", "back\\slash", "\\'", "quo\"te", "a/b", "a.b", "first name", "\u{7F}",
            "é", "日本語", "😀", "\u{2028}", "\u{FEFF}", "tab\tand\nnewline", "\u{8}\u{C}\r",
        ] + (0..<0x20).map { "c" + String(UnicodeScalar(UInt8($0))) + "d" }

    @Test(arguments: keys)
    func eachKeyAsTheRFCWritesIt(_ key: String) throws {
        let path = JSONPath([.key(key), .index(3)])
        #expect(path.normalized == NormalizedPath.reference(path.components))
        // Read back as a query, it selects the value it names.
        let document = try JSONSerialization.data(withJSONObject: [key: [0, 1, 2, 3], "other": [4, 5, 6, 7]])
        let reader = try JSONRecordReader(Int.self, at: path.normalized, from: .bytes(Array(document)))
        var selected: [Int] = []
        while let value = try reader.next() { selected.append(value) }
        #expect(selected == [3], "\(path.normalized)")
    }

    @Test func generatedPathsAsTheRFCWritesThem() {
        var random = NumberParsingTests.SplitMix(state: 0x9535)
        let pieces = [
            "a", "Z", "_", "0", " ", "'", "\\", "\"", "\n", "\u{1}", "\u{1F}", "\u{7F}", "é", "😀", "\u{2028}",
        ]
        let indices = [0, 1, 9, 10, 99, 12_345, Int(Int32.max), Int.max]
        for _ in 0..<2_000 {
            let components: [JSONPath.Component] = (0..<Int(random.next() % 6)).map { _ in
                if random.next() % 3 == 0 { return .index(indices[Int(random.next() % UInt64(indices.count))]) }
                let length = Int(random.next() % 7)
                return .key((0..<length).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined())
            }
            let path = JSONPath(components)
            #expect(path.normalized == NormalizedPath.reference(components))
        }
    }
}
