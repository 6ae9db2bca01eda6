import Testing
import YAJL

@testable import YAJLCore

/// ``JSONArray`` and ``JSONObject`` keep their elements in shared storage: checked over generated
/// values that equality and hashing agree with a plain recursive definition, and that a copy is
/// never changed by writes to another (copy on write through every mutating entry point).
@Suite("JSONValue storage")
struct JSONValueStorageTests {
    typealias Random = NumberParsingTests.SplitMix

    /// A random value of at most `depth` levels, from a small alphabet so that equal values occur.
    static func value(_ random: inout Random, depth: Int) -> JSONValue {
        let pick = Int(random.next() % (depth > 0 ? 7 : 5))
        switch pick {
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2: return .number(JSONNumber(["0", "1", "-0", "1.0", "1e2"][Int(random.next() % 5)])!)
        case 3: return .string(["", "a", "b", "é"][Int(random.next() % 4)])
        case 4: return .string("k")
        case 5:
            return .array((0..<Int(random.next() % 4)).map { _ in value(&random, depth: depth - 1) })
        default:
            return .object(
                JSONObject(
                    (0..<Int(random.next() % 3)).map { _ in
                        JSONObject.Member(
                            key: ["a", "b"][Int(random.next() % 2)],
                            value: value(&random, depth: depth - 1)
                        )
                    }
                )
            )
        }
    }

    /// The recursive definition of equality the iterative one must agree with.
    static func reference(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { reference($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && reference($0.value, $1.value) }
        default: return false
        }
    }

    @Test(arguments: 0..<20)
    func equalityAndHashingAgreeWithTheRecursiveDefinition(seed: UInt64) {
        var random = Random(state: 0x57A6E &+ seed)
        let values = (0..<60).map { _ in Self.value(&random, depth: 3) }
        for a in values {
            for b in values {
                let equal = Self.reference(a, b)
                #expect((a == b) == equal, "\(a) vs \(b)")
                if equal { #expect(a.hashValue == b.hashValue, "\(a)") }
            }
            // The same value rebuilt from its text is equal and hashes equally.
            let reparsed = try? JSONValue(parsing: a.description)
            #expect(reparsed == a && reparsed?.hashValue == a.hashValue, "\(a)")
        }
    }

    @Test(arguments: 0..<10)
    func writesNeverReachACopy(seed: UInt64) {
        var random = Random(state: 0xC0E &+ seed)
        for _ in 0..<50 {
            let original = JSONArray((0..<3).map { _ in Self.value(&random, depth: 2) })
            let text = JSONValue.array(original).description
            var copies = Array(repeating: original, count: 6)
            copies[0].append("x")
            copies[1][0] = "y"
            copies[2].elements.removeAll()
            copies[3].replaceSubrange(0..<1, with: [1, 2])
            copies[4].reserveCapacity(100)
            copies[4].insert(nil, at: 0)
            copies[5].elements[1] = ["z"]
            #expect(JSONValue.array(original).description == text)
            for copy in copies { #expect(copy != original) }
            var object = JSONObject(original.enumerated().map { .init(key: "\($0.offset)", value: $0.element) })
            let objectCopy = object
            object.members[0].value = "changed"
            object.members.append(.init(key: "new", value: true))
            #expect(objectCopy.count == 3 && objectCopy[0].value == original[0])
            #expect(object.count == 4 && object[0].value == "changed")
        }
    }

    @Test func arraysBehaveAsSwiftArrays() {
        var array: JSONArray = [1, "two", nil]
        #expect(array.count == 3 && array.elements == [1, "two", nil])
        array.removeFirst()
        array += [true]
        #expect(JSONValue.array(array).description == #"["two",null,true]"#)
        let fromSwift: [JSONValue] = ["a", ["b"]]
        let value = JSONValue.array(fromSwift)
        #expect(value.arrayValue == fromSwift && value[1]?[0] == "b")
        if case .array(let elements) = value {
            #expect(elements.map(\.description) == [#""a""#, #"["b"]"#])
        } else {
            Issue.record("not an array: \(value)")
        }
        let object: JSONObject = ["a": 1, "a": 2]
        #expect(object.values(forKey: "a") == [1, 2] && object["a"] == 1)
    }
}
