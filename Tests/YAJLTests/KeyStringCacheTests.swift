import Foundation
import Testing
import YAJL

@testable import YAJLCore

/// The keys of owned `JSONValue`s come from a per-session cache of the strings made for keys
/// before: a key found there must be exactly the key the bytes spell, whatever its length and
/// however many other keys share its slot.
@Suite("Key string cache")
struct KeyStringCacheTests {
    /// Keys of every length from 0 to 24 (past the 16 bytes the cache keeps), and keys that differ
    /// in one byte only, at the start, the middle or the end: each is the string its bytes make,
    /// looked up once and again after thousands of other keys have passed through the same slots.
    @Test(arguments: 0...24)
    func everyKeyIsTheStringItsBytesMake(length: Int) {
        let cache = KeyStringCache()
        var keys: [[UInt8]] = []
        let base = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        keys.append(base)
        for position in [0, length / 2, length - 1] where position >= 0 && position < length {
            var variant = base
            variant[position] = UInt8(ascii: "Z")
            keys.append(variant)
        }
        keys.append(Array("é\(String(repeating: "ü", count: length / 2))".utf8).prefix(length) + [])
        // Thousands of other keys of the same length, through every slot.
        for n in 0..<4096 {
            keys.append(Array(String(format: "%0\(max(length, 1))d", n).utf8.suffix(length)))
        }
        for round in 0..<2 {
            for key in keys {
                let made = key.withUnsafeBytes { cache.string($0) }
                let expected = key.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
                #expect(made == expected, "round \(round), key \(key)")
                #expect(Array(made.utf8) == Array(expected.utf8))
            }
        }
    }

    /// Records read as `JSONValue`s keep every key, in order, with duplicates, 16-byte keys that
    /// share their first eight bytes, keys past 16 bytes (made every time) and non-ASCII keys.
    @Test func recordsReadAsValuesKeepTheirKeys() throws {
        let keys = [
            "a", "ab", "abc", "abcd", "abcdefg", "abcdefgh", "abcdefgh12345678", "abcdefgh92345678",
            "abcdefgh12345679", "a very long key that is past sixteen bytes", "é", "ü€", "a",
        ]
        let record = "{" + keys.enumerated().map { "\"\($1)\":\($0)" }.joined(separator: ",") + "}"
        let text = "[" + Array(repeating: record, count: 300).joined(separator: ",") + "]"
        let reader = try JSONRecordReader(JSONValue.self, at: "$[*]", from: .text(text))
        var count = 0
        while let value = try reader.next() {
            guard case .object(let object) = value else {
                Issue.record("not an object: \(value)")
                return
            }
            #expect(object.members.map(\.key) == keys)
            count += 1
        }
        #expect(count == 300)
    }
}
