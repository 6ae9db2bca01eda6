import Foundation
import Testing
import YAJL

@testable import YAJLCore

/// Keys and values become `String`s through one helper (`makeString`): every string made that
/// way must be the very string `String(decoding:as:)` makes and behave as one (equality, hashing,
/// its UTF-8, appending, use as a dictionary key).
@Suite("Small strings")
struct SmallStringTests {
    /// Every byte value at every position of texts of 0 to 20 bytes (past the 15 a small string
    /// holds): ASCII, DEL, NUL, a lead byte alone, a continuation byte, a whole two-byte character.
    @Test(arguments: 0...20)
    func everyByteAtEveryPositionMakesTheStandardLibrarysString(length: Int) {
        let base = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        var texts: [[UInt8]] = [base]
        for position in 0..<length {
            for byte: UInt8 in [0x00, 0x01, 0x20, 0x22, 0x5C, 0x7E, 0x7F, 0x80, 0xBF, 0xC3, 0xE2, 0xFF] {
                var text = base
                text[position] = byte
                texts.append(text)
            }
            if position + 1 < length {
                var text = base
                text[position] = 0xC3
                text[position + 1] = 0xA9  // é
                texts.append(text)
            }
        }
        for text in texts {
            let made = text.withUnsafeBytes { makeString($0) }
            let expected = String(decoding: text, as: UTF8.self)
            #expect(made == expected, "\(text)")
            #expect(Array(made.utf8) == Array(expected.utf8), "\(text)")
            #expect(made.hashValue == expected.hashValue, "\(text)")
            #expect(made.count == expected.count, "\(text)")
        }
    }

    /// Strings made this way work as keys, grow when appended to (leaving the small form), and
    /// compare with literals and with strings the standard library made another way.
    @Test func madeStringsBehaveAsStrings() {
        var dictionary: [String: Int] = [:]
        for n in 0..<2000 {
            let text = Array("k\(n)".utf8)
            dictionary[text.withUnsafeBytes { makeString($0) }] = n
        }
        for n in 0..<2000 { #expect(dictionary["k\(n)"] == n) }
        var grown = Array("abcdefghijklmno".utf8).withUnsafeBytes { makeString($0) }
        #expect(grown == "abcdefghijklmno")
        grown += "p"
        #expect(grown == "abcdefghijklmnop")
        #expect(grown.utf8.count == 16)
        let empty = [UInt8]().withUnsafeBytes { makeString($0) }
        #expect(empty.isEmpty && empty == "")
        #expect(Array("Zürich".utf8).withUnsafeBytes { makeString($0) } == "Zürich")
    }

    /// Keys, string values and number text read through the public API are the document's text.
    @Test func valuesReadThroughTheAPIAreTheDocumentsText() throws {
        let keys = [
            "", "a", "ab", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmno", "abcdefghijklmnop", "é", "\u{7f}",
        ]
        let members = keys.enumerated().map { "\"\($1)\":\"\($1)\($0)\"" }
        let object = "{" + members.joined(separator: ",") + ",\"n\":-12.5e3}"
        let value = try JSONValue(parsing: object)
        guard case .object(let parsed) = value else {
            Issue.record("not an object: \(value)")
            return
        }
        #expect(parsed.members.map(\.key) == keys + ["n"])
        for (index, key) in keys.enumerated() { #expect(parsed[key] == .string("\(key)\(index)")) }
        #expect(parsed["n"]?.numberValue?.text == "-12.5e3")
        let reader = try JSONRecordReader(JSONValue.self, at: "$", from: .text(object))
        #expect(try reader.next() == value)
        struct Record: Decodable, Equatable {
            let a: String
            let abcdefghijklmno: String
            let accented: String
            enum CodingKeys: String, CodingKey {
                case a, abcdefghijklmno
                case accented = "é"
            }
        }
        let decoded = try JSONRecordReader(Record.self, at: "$", from: .text(object)).next()
        #expect(decoded == Record(a: "a1", abcdefghijklmno: "abcdefghijklmno6", accented: "é8"))

        final class Keys: JSONEventHandler {
            var seen: [String] = []
            func key(_ key: JSONStringView, context: JSONEventContext) throws { seen.append(key.string) }
            func string(_ value: JSONStringView, context: JSONEventContext) throws { seen.append(value.string) }
            func number(_ value: JSONNumberView, context: JSONEventContext) throws { seen.append(value.text) }
        }
        let handler = Keys()
        try JSONParser(handler: handler).parse(from: .text(object))
        #expect(handler.seen == keys.enumerated().flatMap { [$1, "\($1)\($0)"] } + ["n", "-12.5e3"])
    }
}
