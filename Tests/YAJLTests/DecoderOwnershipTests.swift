import Foundation
import Synchronization
import Testing
import YAJL

/// No container can outlive what it points to: decoders made by `superDecoder` keep their
/// record's state alive, and a container kept past its record throws instead of reading freed
/// memory. Run under `make sanitize` (AddressSanitizer), these are use-after-free checks.
@Suite("Decoder and container ownership")
struct DecoderOwnershipTests {
    enum K: String, CodingKey { case x, name, items, `super` }
    enum Inner: String, CodingKey { case a }

    struct ThroughSuperDecoderForKey: Decodable {
        let a: Int
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: K.self)
            // The decoder made here is held by nothing but this expression.
            a = try c.superDecoder(forKey: .x).container(keyedBy: Inner.self).decode(Int.self, forKey: .a)
        }
    }

    struct ThroughSuperDecoder: Decodable {
        let a: Int
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: K.self)
            a = try c.superDecoder().container(keyedBy: Inner.self).decode(Int.self, forKey: .a)
        }
    }

    struct ThroughUnkeyedSuperDecoder: Decodable {
        let a: Int
        init(from decoder: any Decoder) throws {
            var list = try decoder.unkeyedContainer()
            a = try list.superDecoder().container(keyedBy: Inner.self).decode(Int.self, forKey: .a)
        }
    }

    @Test func superDecodersOwnTheirState() throws {
        for _ in 0..<3 {
            let one = try JSONRecordReader(
                ThroughSuperDecoderForKey.self,
                at: "$[*]",
                from: .text(#"[{"x":{"a":1}},{"x":{"a":2}}]"#)
            )
            #expect(try one.next()?.a == 1)
            #expect(try one.next()?.a == 2)
            let two = try JSONRecordReader(ThroughSuperDecoder.self, at: "$[*]", from: .text(#"[{"super":{"a":3}}]"#))
            #expect(try two.next()?.a == 3)
            let three = try JSONRecordReader(ThroughUnkeyedSuperDecoder.self, at: "$[*]", from: .text(#"[[{"a":4}]]"#))
            #expect(try three.next()?.a == 4)
        }
    }

    /// Keeps the containers and decoders it was given, to use them after decoding.
    final class Escapes: @unchecked Sendable {
        var keyed: KeyedDecodingContainer<K>?
        var nested: KeyedDecodingContainer<Inner>?
        var unkeyed: (any UnkeyedDecodingContainer)?
        var decoder: (any Decoder)?
        var superDecoder: (any Decoder)?
    }
    static let escapes = Mutex(Escapes())

    struct Escaping: Decodable {
        let name: String
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: K.self)
            name = try c.decode(String.self, forKey: .name)
            let nested = try c.nestedContainer(keyedBy: Inner.self, forKey: .x)
            let list = try c.nestedUnkeyedContainer(forKey: .items)
            let sup = try c.superDecoder(forKey: .x)
            DecoderOwnershipTests.escapes.withLock {
                $0.keyed = c
                $0.nested = nested
                $0.unkeyed = list
                $0.decoder = decoder
                $0.superDecoder = sup
            }
        }
    }

    @Test func containersKeptPastTheirRecordThrowInsteadOfReading() throws {
        do {
            let reader = try JSONRecordReader(
                Escaping.self,
                at: "$[*]",
                from: .text(#"[{"name":"a","x":{"a":1},"items":[1,2]},{"name":"b","x":{"a":2},"items":[]}]"#)
            )
            #expect(try reader.next()?.name == "a")
            // After the first record, while the reader lives…
            try Self.expectExpired()
            #expect(try reader.next()?.name == "b")
        }
        // …and after the reader (its session and tape) is gone.
        try Self.expectExpired()
    }

    static func expectExpired() throws {
        let kept = escapes.withLock { $0 }
        let keyed = try #require(kept.keyed)
        #expect(throws: DecodingError.self) { try keyed.decode(String.self, forKey: .name) }
        #expect(!keyed.contains(.name))
        #expect(keyed.allKeys.isEmpty)
        let nested = try #require(kept.nested)
        #expect(throws: DecodingError.self) { try nested.decode(Int.self, forKey: .a) }
        var unkeyed = try #require(kept.unkeyed)
        #expect(throws: DecodingError.self) { try unkeyed.decode(Int.self) }
        let decoder = try #require(kept.decoder)
        #expect(throws: DecodingError.self) { try decoder.container(keyedBy: K.self) }
        #expect(throws: DecodingError.self) { try decoder.singleValueContainer() }
        let sup = try #require(kept.superDecoder)
        #expect(throws: DecodingError.self) { try sup.container(keyedBy: Inner.self) }
    }
}
