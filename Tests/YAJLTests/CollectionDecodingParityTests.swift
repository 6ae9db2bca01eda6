import Foundation
import Testing
import YAJL

/// Arrays of any element and dictionaries keyed by strings, which the tape decoder decodes with
/// loops of its own (not the standard library's `init(from:)`): the same values and the same
/// errors, at the same coding paths, as `JSONDecoder`, under every key strategy.
@Suite("Arrays and dictionaries: parity with JSONDecoder")
struct CollectionDecodingParityTests {
    struct Item: Decodable, Equatable {
        let id: Int
        let name: String
    }

    /// A position as GeoJSON writes it, `[lon, lat]`, through an unkeyed container of its own.
    struct Position: Decodable, Equatable {
        let lon: Double
        let lat: Double
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            lon = try container.decode(Double.self)
            lat = try container.decode(Double.self)
        }
    }

    struct Tagged: Decodable, Equatable {
        let someLabel: String
        let someCounts: [String: Int]
        let nestedItems: [String: [Item]]
    }

    enum Key {
        case useDefaultKeys, convertFromSnakeCase, custom
    }

    /// A key strategy that drops the prefix `x-` from every key: applied to a struct's keys,
    /// never to a dictionary's.
    static func unprefixed(_ path: [any CodingKey]) -> any CodingKey {
        let key = path.last!.stringValue
        return AnyKey(stringValue: key.hasPrefix("x-") ? String(key.dropFirst(2)) : key)
    }

    struct AnyKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// The value, or the error described as in ``Parity/describe(_:)``.
    static func foundation<T: Decodable & Equatable>(_ type: T.Type, _ json: String, keys: Key) -> Result<T, Failure> {
        let decoder = JSONDecoder()
        switch keys {
        case .useDefaultKeys: break
        case .convertFromSnakeCase: decoder.keyDecodingStrategy = .convertFromSnakeCase
        case .custom: decoder.keyDecodingStrategy = .custom(unprefixed)
        }
        do { return .success(try decoder.decode(T.self, from: Data(json.utf8))) } catch {
            return .failure(Failure(Parity.describe(error)))
        }
    }

    static func ours<T: Decodable & Equatable>(_ type: T.Type, _ json: String, keys: Key) -> Result<T, Failure> {
        var options = JSONRecordOptions()
        switch keys {
        case .useDefaultKeys: break
        case .convertFromSnakeCase: options.decoding.keyDecodingStrategy = .convertFromSnakeCase
        case .custom: options.decoding.keyDecodingStrategy = .custom(unprefixed)
        }
        do {
            let reader = try JSONRecordReader(T.self, at: "$", from: .text(json), options: options)
            guard let value = try reader.next() else { return .failure(Failure("no record")) }
            return .success(value)
        } catch let error as JSONRecordDecodingError {
            return .failure(Failure(error.underlying.map(Parity.describe) ?? "no DecodingError: \(error)"))
        } catch {
            return .failure(Failure("\(error)"))
        }
    }

    struct Failure: Error, Equatable {
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// The inputs on which the decoders disagree, as lines for the failure message.
    static func differences<T: Decodable & Equatable>(
        _ type: T.Type,
        _ inputs: [String],
        keys: Key = .useDefaultKeys
    )
        -> [String]
    {
        inputs.compactMap { json in
            let (mine, theirs) = (ours(T.self, json, keys: keys), foundation(T.self, json, keys: keys))
            return mine == theirs ? nil : "\(T.self) \(keys) \(json): ours \(mine), JSONDecoder \(theirs)"
        }
    }

    @Test func arraysOfStructsValuesAndErrorsWithTheirPaths() {
        var differences = Self.differences(
            [Item].self,
            [
                #"[{"id":1,"name":"a"},{"id":2,"name":"b"}]"#, "[]", #"[{"id":1}]"#, "[null]", "[1]", "{}", "null",
                #"[{"id":1,"name":"a"},{"id":"x","name":"b"}]"#, #"[{"id":1,"name":"a"},[]]"#,
            ]
        )
        differences += Self.differences(
            [[Position]].self,
            [
                "[[[1,2],[3,4]],[[5,6]]]", "[[]]", "[]", "[[[1,2],[3]]]", "[[[1,2],[3,\"x\"]]]", "[[[1,2]],[null]]",
                "[[[1,2],{}]]", "[[[-65.613616999999977,43.420273000000009]]]", "[[1]]",
            ]
        )
        differences += Self.differences(
            [[Int]].self,
            ["[[1,2],[3]]", "[[1],[2,null]]", "[[1],\"a\"]", "[[9223372036854775808]]", "[[],[]]"]
        )
        differences += Self.differences([Int?].self, ["[1,null,3]", "[null]", "[1,\"a\"]"])
        differences += Self.differences([Date].self, ["[0,1.5,-1e3]", "[\"x\"]"])
        differences += Self.differences([Set<Int>].self, ["[[1,2,2],[]]", "[[1,null]]"])
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    @Test func dictionariesKeyedByStringsValuesAndErrorsWithTheirPaths() {
        var differences = Self.differences(
            [String: Item].self,
            [
                #"{"a":{"id":1,"name":"x"},"b":{"id":2,"name":"y"}}"#, "{}", #"{"a":{"id":1}}"#, #"{"a":null}"#, "[]",
                "null", #"{"a":{"id":1,"name":"x"},"b":{"id":true,"name":"y"}}"#,
            ]
        )
        differences += Self.differences(
            [String: Int?].self,
            [#"{"a":1,"b":null}"#, #"{"a":"1"}"#, #"{"":0,"\u00e9\u00e9":1,"a\"b":2}"#]
        )
        differences += Self.differences(
            [String: [String: Double]].self,
            [#"{"a":{"x":1.5},"b":{}}"#, #"{"a":{"x":1e400}}"#, #"{"a":[]}"#]
        )
        // Long keys (past the key cache's 16 bytes) and many members.
        let many = (0..<300).map { "\"key_number_\($0)_of_many\":\($0)" }.joined(separator: ",")
        differences += Self.differences([String: Int].self, ["{\(many)}"])
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    /// `JSONDecoder` keeps a repeated key's first value and does not decode the later ones (a
    /// later value of the wrong type is no error); so does a struct's member.
    @Test(arguments: [
        #"{"k":1,"k":2}"#, #"{"k":1,"k":"x"}"#, #"{"k":"x","k":1}"#, #"{"a":1,"k":2,"a":3,"k":4,"b":5}"#,
    ])
    func repeatedKeysKeepTheFirstValue(json: String) {
        #expect(
            Self.ours([String: Int].self, json, keys: .useDefaultKeys)
                == Self.foundation([String: Int].self, json, keys: .useDefaultKeys)
        )
        let wrapped = "[\(json),\(json)]"
        #expect(
            Self.ours([[String: Int]].self, wrapped, keys: .useDefaultKeys)
                == Self.foundation([[String: Int]].self, wrapped, keys: .useDefaultKeys)
        )
    }

    /// A key strategy renames a struct's keys, never a dictionary's (as in `JSONDecoder`).
    @Test(arguments: [Key.useDefaultKeys, .convertFromSnakeCase, .custom])
    func keyStrategiesLeaveDictionaryKeysAsTheyAre(keys: Key) {
        let snake =
            #"{"some_label":"x","some_counts":{"inner_key":1,"x_y":2,"UPPER":3},"nested_items":{"a_b":[{"id":1,"name":"n"}]}}"#
        let prefixed =
            #"{"x-someLabel":"x","x-someCounts":{"x-inner":1,"x_y":2},"x-nestedItems":{"x-a":[{"x-id":1,"name":"n"}]}}"#
        let plain = #"{"someLabel":"x","someCounts":{"inner_key":1},"nestedItems":{"a_b":[{"id":1,"name":"n"}]}}"#
        var differences = Self.differences(Tagged.self, [snake, prefixed, plain], keys: keys)
        differences += Self.differences([String: Int].self, [#"{"inner_key":1,"x_y":2,"x-z":3}"#], keys: keys)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        // The case this is about, spelled out: the dictionary's keys stay snake_case.
        switch keys {
        case .useDefaultKeys: break
        case .convertFromSnakeCase:
            let decoded = try? Self.ours(Tagged.self, snake, keys: keys).get()
            #expect(decoded?.someCounts == ["inner_key": 1, "x_y": 2, "UPPER": 3])
        case .custom:
            let decoded = try? Self.ours(Tagged.self, prefixed, keys: keys).get()
            #expect(decoded?.someCounts == ["x-inner": 1, "x_y": 2])
            #expect(decoded?.nestedItems["x-a"] == [Item(id: 1, name: "n")])
        }
    }

    /// Reads its array through two containers and a copy of one: each keeps its own place (a copy
    /// made to peek at the first element does not move the original).
    struct Peeking: Decodable, Equatable {
        let kind: String
        let values: [Int]
        let again: [Int]
        let peekedNext: Int
        let counts: [Int?]
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            var peek = container
            kind = try peek.decode(String.self)
            var second = try decoder.unkeyedContainer()
            _ = try container.decode(String.self)
            var values: [Int] = []
            while !container.isAtEnd { values.append(try container.decode(Int.self)) }
            self.values = values
            _ = try second.decode(String.self)
            var again: [Int] = []
            while !second.isAtEnd { again.append(try second.decode(Int.self)) }
            self.again = again
            peekedNext = try peek.decode(Int.self) * 100 + peek.currentIndex
            counts = [container.count, second.count, peek.count]
        }
    }

    /// Keeps one nested unkeyed container per element alive at once (more than the decoder
    /// reuses), then reads them from the last to the first.
    struct AllAtOnce: Decodable, Equatable {
        let digest: Int
        let indices: [Int]
        init(from decoder: any Decoder) throws {
            var outer = try decoder.unkeyedContainer()
            var inners: [any UnkeyedDecodingContainer] = []
            while !outer.isAtEnd { inners.append(try outer.nestedUnkeyedContainer()) }
            var digest = 0
            for index in inners.indices.reversed() {
                while !inners[index].isAtEnd { digest = digest &* 31 &+ (try inners[index].decode(Int.self)) }
            }
            self.digest = digest
            indices = inners.map(\.currentIndex)
        }
    }

    @Test func unkeyedContainersAndTheirCopiesKeepTheirOwnPlace() {
        var differences = Self.differences(
            [Peeking].self,
            [#"[["a",1,2,3],["b",4],["c",5,6]]"#, #"[["a"]]"#, #"[["a",1,"x"]]"#, #"[[1,2]]"#]
        )
        let many = "[" + (0..<40).map { "[\($0),\($0 * 7),\($0 % 5)]" }.joined(separator: ",") + "]"
        differences += Self.differences(
            [AllAtOnce].self,
            ["[\(many),\(many)]", "[[[1],[2,3],[]],[]]", "[[[1],[2,\"x\"]]]", "[[[1],{}]]"]
        )
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }
}
