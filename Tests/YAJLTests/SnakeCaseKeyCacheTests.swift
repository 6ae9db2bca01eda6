import Foundation
import Testing
import YAJL

@testable import YAJLCore

/// The snake_case cache makes its table (8,192 slots) only when a key with `_` is first converted:
/// every decoding session has one, and most use no key strategy.
@Suite("Snake-case key cache")
struct SnakeCaseKeyCacheTests {
    static func matches(_ cache: SnakeCaseKeyCache, _ key: String, _ wanted: String) -> Bool {
        Array(key.utf8).withUnsafeBytes { cache.matches($0, wanted) }
    }

    @Test(arguments: [
        ("created_at", "createdAt", true),
        ("created_at", "created_at", false),
        ("user_id_2", "userId2", true),
        ("__private_key", "__privateKey", true),
        ("trailing_", "trailing_", true),
        ("a_b_c", "aBC", true),
        ("a_b_c", "abc", false),
    ])
    func theTableIsMadeByTheFirstKeyWithAnUnderscore(key: String, wanted: String, expected: Bool) {
        let cache = SnakeCaseKeyCache()
        #expect(!cache.hasTable)
        // Keys without `_` are compared as they are: no table.
        #expect(Self.matches(cache, "name", "name"))
        #expect(!Self.matches(cache, "name", "Name"))
        #expect(!cache.hasTable)
        // The first conversion makes it; the answer is JSONDecoder's, the first time and the next.
        #expect(Self.matches(cache, key, wanted) == expected)
        #expect(cache.hasTable)
        #expect(Self.matches(cache, key, wanted) == expected)
    }

    /// A new session has no table: only the snake_case strategy's first conversion makes one.
    @Test func aNewSessionHasNoTable() throws {
        let session = DecodingSession(options: JSONRecordDecodingOptions())
        #expect(!session.snakeCaseKeys.hasTable)
    }
}
