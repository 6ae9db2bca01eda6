import Foundation
import Synchronization
import Testing
import YAJL

/// Containers used as Foundation allows: classes encoding and decoding their superclass,
/// containers asked for twice, keys written twice, containers written to alternately (generated
/// programs of container calls), errors thrown by user code, heterogeneous arrays read with
/// `try?`, unkeyed containers walked element by element. Each compared with `JSONEncoder` and
/// `JSONDecoder` (``CodableParity``).
@Suite("Codable parity: containers, classes and errors")
struct CodableContainerParityTests {
    // MARK: Classes

    class Animal: Codable, Equatable, CustomStringConvertible {
        var name: String
        var legs: Int
        init(name: String, legs: Int) {
            self.name = name
            self.legs = legs
        }
        static func == (a: Animal, b: Animal) -> Bool { a.description == b.description }
        var description: String { "\(type(of: self))(\(name), \(legs)\(extra))" }
        var extra: String { "" }
    }

    /// `super.encode(to: container.superEncoder())`, the common form.
    final class Dog: Animal {
        var breed: String
        enum CodingKeys: String, CodingKey { case breed }
        init(breed: String) {
            self.breed = breed
            super.init(name: "rex", legs: 4)
        }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            breed = try container.decode(String.self, forKey: .breed)
            try super.init(from: container.superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(breed, forKey: .breed)
            try super.encode(to: container.superEncoder())
        }
        override var extra: String { ", \(breed)" }
    }

    /// `superEncoder(forKey:)` and a second super-encoder in the same container.
    final class Cat: Animal {
        var lives: Int
        enum CodingKeys: String, CodingKey { case lives, parent, again }
        init(lives: Int) {
            self.lives = lives
            super.init(name: "tom", legs: 4)
        }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            lives = try container.decode(Int.self, forKey: .lives)
            try super.init(from: container.superDecoder(forKey: .parent))
            let again = try Animal(from: container.superDecoder(forKey: .again))
            guard again.name == name else {
                throw DecodingError.dataCorruptedError(forKey: .again, in: container, debugDescription: "differs")
            }
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(lives, forKey: .lives)
            try super.encode(to: container.superEncoder(forKey: .parent))
            try super.encode(to: container.superEncoder(forKey: .again))
        }
        override var extra: String { ", \(lives)" }
    }

    /// The superclass encoded through an unkeyed container's `superEncoder()`.
    final class Bird: Animal {
        var song: String
        init(song: String) {
            self.song = song
            super.init(name: "tweety", legs: 2)
        }
        required init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            song = try container.decode(String.self)
            try super.init(from: container.superDecoder())
            #expect(container.isAtEnd)
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(song)
            try super.encode(to: container.superEncoder())
        }
        override var extra: String { ", \(song)" }
    }

    /// A superclass whose state is one optional value: decoded from a missing key's
    /// super-decoder, it reads null.
    class Counter: Codable, Equatable {
        var count: Int?
        init(count: Int?) { self.count = count }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            count = container.decodeNil() ? nil : try container.decode(Int.self)
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(count)
        }
        static func == (a: Counter, b: Counter) -> Bool { a.count == b.count && type(of: a) == type(of: b) }
    }

    final class NamedCounter: Counter {
        var label = ""
        enum CodingKeys: String, CodingKey { case label }
        init(label: String, count: Int?) {
            self.label = label
            super.init(count: count)
        }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            label = try container.decode(String.self, forKey: .label)
            try super.init(from: container.superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(label, forKey: .label)
            try super.encode(to: container.superEncoder())
        }
    }

    @Test(arguments: CodableParity.Strategies.Keys.allCases)
    func classesEncodeAndDecodeTheirSuperclass(keys: CodableParity.Strategies.Keys) {
        var strategies = CodableParity.Strategies()
        strategies.keys = keys
        func both<T: Codable & Equatable>(_ value: T) {
            if let data = CodableParity.expectSameEncoding(value, strategies, "\(value)") {
                CodableParity.expectSameDecoding(T.self, from: data, strategies, "\(value)")
            }
        }
        both(Dog(breed: "collie"))
        both(Cat(lives: 9))
        both(Bird(song: "la"))
        both([Dog(breed: "a"), Dog(breed: "b")])
        both(["x": Cat(lives: 1)])
        both(NamedCounter(label: "n", count: 3))
        both(NamedCounter(label: "n", count: nil))
        // A missing "super" key: the super-decoder decodes a null.
        for json in [#"{"label":"n"}"#, #"{"label":"n","super":null}"#, #"{"label":"n","super":7}"#, #"{"breed":"x"}"#]
        {
            CodableParity.expectSameDecoding(NamedCounter.self, from: Data(json.utf8), strategies, json)
            CodableParity.expectSameDecoding(Dog.self, from: Data(json.utf8), strategies, json)
            CodableParity.expectSameDecoding(Cat.self, from: Data(json.utf8), strategies, json)
        }
    }

    // MARK: Coding paths seen by user code

    /// Every coding path user code can ask for, logged as text.
    final class PathLog: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ label: String, _ path: [any CodingKey]) {
            let text = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            lines.withLock { $0.append("\(label): \(text)") }
        }
        static let key = CodingUserInfoKey(rawValue: "paths")!
    }

    /// A value that logs the coding paths of its encoder and of each container it makes.
    struct PathProbe: Encodable {
        let depth: Int
        enum CodingKeys: String, CodingKey {
            case inner, list
            case superKey = "super"
            case other
        }
        func encode(to encoder: any Encoder) throws {
            let log = encoder.userInfo[PathLog.key] as! PathLog
            log.add("encoder \(depth)", encoder.codingPath)
            var container = encoder.container(keyedBy: CodingKeys.self)
            log.add("keyed \(depth)", container.codingPath)
            var nested = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .other)
            log.add("nested \(depth)", nested.codingPath)
            try nested.encode(depth, forKey: .inner)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            log.add("list \(depth)", list.codingPath)
            try list.encode(depth)
            var element = list.nestedContainer(keyedBy: CodingKeys.self)
            log.add("element \(depth)", element.codingPath)
            try element.encode("e", forKey: .inner)
            let superEncoder = list.superEncoder()
            log.add("list super \(depth)", superEncoder.codingPath)
            var single = superEncoder.singleValueContainer()
            log.add("list super single \(depth)", single.codingPath)
            try single.encode(true)
            let keyedSuper = container.superEncoder()
            log.add("super \(depth)", keyedSuper.codingPath)
            if depth < 3 { try PathProbe(depth: depth + 1).encode(to: keyedSuper) }
            if depth < 2 { try container.encode(PathProbe(depth: depth + 2), forKey: .inner) }
        }
    }

    @Test(arguments: CodableParity.Strategies.Keys.allCases)
    func codingPathsInsideNestedAndSuperEncoders(keys: CodableParity.Strategies.Keys) throws {
        var strategies = CodableParity.Strategies()
        strategies.keys = keys
        let theirs = PathLog()
        let foundation = strategies.foundationEncoder
        foundation.userInfo = [PathLog.key: theirs]
        let theirData = try foundation.encode([PathProbe(depth: 0)])
        let ours = PathLog()
        var options = strategies.encoding
        options.userInfo = [PathLog.key: ours]
        let sink = MemoryOutputSink()
        let writer = JSONRecordWriter<PathProbe>(to: sink, encoding: options)
        try writer.write(PathProbe(depth: 0))
        try writer.finish()
        // One difference, on purpose (FoundationParity.md): an unkeyed container's super-encoder
        // is at the container's path followed by its index; JSONEncoder's leaves out the path of
        // the array within its value (`[0].[2]` for `[0].list.[2]`).
        let ourLines = ours.lines.withLock { $0 }
        let theirLines = theirs.lines.withLock { $0 }
        #expect(ourLines.count == theirLines.count)
        for (our, their) in zip(ourLines, theirLines) {
            if our.hasPrefix("list super") {
                #expect(our.replacingOccurrences(of: ".list.[2]", with: ".[2]") == their)
                #expect(our.hasSuffix(".list.[2]"), "\(our)")
            } else {
                #expect(our == their)
            }
        }
        #expect(try CodableParity.canonical(sink.data) == CodableParity.canonical(theirData))
    }

    // MARK: Generated container programs

    /// A program of container calls, run the same way on both encoders: values written through
    /// several containers at once, in a random order; keys written twice; nested containers asked
    /// for twice for one key; dictionaries amended by the keyed container that follows.
    struct Program: Encodable, CustomStringConvertible {
        enum Step {
            case set(container: Int, key: String, value: Int)
            case setNil(container: Int, key: String)
            case nestedObject(container: Int, key: String)
            case nestedArray(container: Int, key: String)
            case setDictionary(container: Int, key: String, value: Int)
            case setArray(container: Int, key: String, value: Int)
            case append(container: Int, value: Int)
            case appendObject(container: Int)
            case appendArray(container: Int)
            case superValue(container: Int, value: Int)
            case again(container: Int)
        }
        let steps: [Step]
        var description: String { "\(steps)" }

        enum Container {
            case keyed(KeyedEncodingContainer<AnyKey>)
            case unkeyed(any UnkeyedEncodingContainer)
        }

        func encode(to encoder: any Encoder) throws {
            // A dictionary first, then a keyed container that amends it.
            var single = encoder.singleValueContainer()
            try single.encode(["start": 0])
            var containers: [Container] = [.keyed(encoder.container(keyedBy: AnyKey.self))]
            for step in steps {
                switch step {
                case .set(let index, let key, let value):
                    guard case .keyed(var container) = containers[index % containers.count] else { continue }
                    try container.encode(value, forKey: AnyKey(stringValue: key))
                case .setNil(let index, let key):
                    guard case .keyed(var container) = containers[index % containers.count] else { continue }
                    try container.encodeNil(forKey: AnyKey(stringValue: key))
                case .nestedObject(let index, let key):
                    guard case .keyed(var container) = containers[index % containers.count] else { continue }
                    containers.append(
                        .keyed(container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey(stringValue: key)))
                    )
                case .nestedArray(let index, let key):
                    guard case .keyed(var container) = containers[index % containers.count] else { continue }
                    containers.append(.unkeyed(container.nestedUnkeyedContainer(forKey: AnyKey(stringValue: key))))
                case .setDictionary(let index, let key, let value):
                    guard case .keyed(var container) = containers[index % containers.count] else { continue }
                    try container.encode(["d\(value % 3)": value], forKey: AnyKey(stringValue: key))
                case .setArray(let index, let key, let value):
                    guard case .keyed(var container) = containers[index % containers.count] else { continue }
                    try container.encode([value, value + 1], forKey: AnyKey(stringValue: key))
                case .append(let index, let value):
                    guard case .unkeyed(var container) = containers[index % containers.count] else { continue }
                    try container.encode(value)
                case .appendObject(let index):
                    guard case .unkeyed(var container) = containers[index % containers.count] else { continue }
                    containers.append(.keyed(container.nestedContainer(keyedBy: AnyKey.self)))
                case .appendArray(let index):
                    guard case .unkeyed(var container) = containers[index % containers.count] else { continue }
                    containers.append(.unkeyed(container.nestedUnkeyedContainer()))
                case .superValue(let index, let value):
                    switch containers[index % containers.count] {
                    case .keyed(var container):
                        var single = container.superEncoder().singleValueContainer()
                        try single.encode(value)
                    case .unkeyed(var container):
                        var single = container.superEncoder().singleValueContainer()
                        try single.encode(value)
                    }
                case .again(let index):
                    // The top-level keyed container asked for again: the same object.
                    if index % 4 == 0 { containers.append(.keyed(encoder.container(keyedBy: AnyKey.self))) }
                }
            }
        }

        /// Keys of three kinds that never mix (a key that holds a scalar is never asked for as a
        /// container, which `JSONEncoder` stops the process for): scalars, objects and arrays.
        /// `myKey`/`my_key` and `ab`/`AB` collide under the snake case and custom strategies.
        static func generate(count: Int, seed: UInt64) -> [Program] {
            var random = SeededGenerator(state: seed)
            let scalars = ["s0", "s1", "myKey", "my_key", "ab", "AB", "start"]
            return (0..<count).map { _ in
                let steps = (0..<Int.random(in: 1...30, using: &random)).map { _ -> Step in
                    let container = Int.random(in: 0...20, using: &random)
                    let value = Int.random(in: -5...100, using: &random)
                    let object = "o\(Int.random(in: 0...2, using: &random))"
                    let array = "a\(Int.random(in: 0...2, using: &random))"
                    switch Int.random(in: 0...11, using: &random) {
                    case 0, 1:
                        return .set(container: container, key: scalars.randomElement(using: &random)!, value: value)
                    case 2: return .setNil(container: container, key: scalars.randomElement(using: &random)!)
                    case 3: return .nestedObject(container: container, key: object)
                    case 4: return .nestedArray(container: container, key: array)
                    case 5: return .setDictionary(container: container, key: object, value: value)
                    case 6: return .setArray(container: container, key: array, value: value)
                    case 7, 8: return .append(container: container, value: value)
                    case 9:
                        return Bool.random(using: &random)
                            ? .appendObject(container: container) : .appendArray(container: container)
                    case 10: return .superValue(container: container, value: value)
                    default: return .again(container: container)
                    }
                }
                return Program(steps: steps)
            }
        }
    }

    /// Programs whose steps would make `JSONEncoder` stop the process are not generated: an
    /// object key set by a dictionary and then nested as an object is fine (both amend it).
    @Test(arguments: CodableParity.Strategies.Keys.allCases)
    func generatedContainerProgramsWriteWhatJSONEncoderWrites(keys: CodableParity.Strategies.Keys) {
        var strategies = CodableParity.Strategies()
        strategies.keys = keys
        for (number, program) in Program.generate(count: 300, seed: 0xC0DE + UInt64(keys.hashValue & 0xFF)).enumerated()
        {
            CodableParity.expectSameEncoding(program, strategies, "program \(number) \(program)")
            CodableParity.expectSameEncoding([program, program], strategies, "program \(number) twice")
        }
    }

    @Test func redundantContainersMergeAndRepeatedKeysKeepTheLastValue() throws {
        struct Merged: Encodable {
            enum Keys: String, CodingKey { case top, first, second, key }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                var one = container.nestedContainer(keyedBy: Keys.self, forKey: .top)
                var two = container.nestedContainer(keyedBy: Keys.self, forKey: .top)
                try one.encode(1, forKey: .first)
                try two.encode(2, forKey: .second)
                try container.encode(0, forKey: .key)
                try container.encode(42, forKey: .key)
            }
        }
        let data = try CodableParity.ourEncoding(Merged(), JSONRecordEncodingOptions())
        #expect(String(decoding: data, as: UTF8.self) == #"{"top":{"first":1,"second":2},"key":42}"#)
        CodableParity.expectSameEncoding(Merged())
    }

    // MARK: Values that encode nothing, misused containers, depth

    struct Empty: Codable, Equatable {
        init() {}
        init(from decoder: any Decoder) throws {}
        func encode(to encoder: any Encoder) throws {}
    }

    @Test func aValueThatEncodesNothing() throws {
        CodableParity.expectSameEncoding(Empty(), .init(), "top level")
        CodableParity.expectSameEncoding([Empty()], .init(), "element")
        CodableParity.expectSameEncoding(["a": Empty()], .init(), "member")
        let error = try #require(throws: EncodingError.self) { try CodableParity.ourEncoding(Empty(), .init()) }
        #expect("\(error)".contains("did not encode any values"))
        // In a JSONRecordWriter's array a record is an element: `{}`, as JSONEncoder().encode([value]).
        let sink = MemoryOutputSink()
        let writer = JSONRecordWriter<Empty>(to: sink)
        try writer.write(Empty())
        try writer.finish()
        #expect(sink.string == "[{}]")
    }

    @Test func aNaNNestedTwoLevelsDownNamesItsPath() throws {
        struct Outer: Encodable {
            let a: [String: [Double]]
        }
        CodableParity.expectSameEncoding(Outer(a: ["b": [1, .nan]]))
        let error = try #require(throws: EncodingError.self) {
            try CodableParity.ourEncoding(Outer(a: ["b": [1, .nan]]), .init())
        }
        #expect(CodableParity.keys(error) == ["a", "b", "[1]"])
        #expect("\(error)".contains("nonConformingFloatEncodingStrategy"))
    }

    /// What `JSONEncoder` stops the process for is an error here, and nothing is written.
    @Test func misusedContainersThrowInsteadOfTrapping() throws {
        struct TwoSingles: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(1)
                try container.encode(2)
            }
        }
        struct ArrayThenKeyed: Encodable {
            func encode(to encoder: any Encoder) throws {
                var array = encoder.unkeyedContainer()
                try array.encode(1)
                var keyed = encoder.container(keyedBy: AnyKey.self)
                try keyed.encode(2, forKey: AnyKey(stringValue: "b"))
            }
        }
        struct ScalarThenNested: Encodable {
            func encode(to encoder: any Encoder) throws {
                var keyed = encoder.container(keyedBy: AnyKey.self)
                try keyed.encode(1, forKey: AnyKey(stringValue: "a"))
                var nested = keyed.nestedUnkeyedContainer(forKey: AnyKey(stringValue: "a"))
                try nested.encode(2)
            }
        }
        for value in [TwoSingles() as any Encodable, ArrayThenKeyed(), ScalarThenNested()] {
            let sink = MemoryOutputSink()
            let writer = JSONWriter(to: sink)
            let error = try #require(throws: EncodingError.self) { try writer.encode(value) }
            #expect("\(error)".contains("Encoder misused"), "\(error)")
            #expect(sink.data.isEmpty)
        }
    }

    /// A recursive type deeper than the writer can nest fails with an error naming the limit,
    /// before user code can overflow the stack; any depth below it is written.
    @Test(arguments: [1, 10, 126, 127, 128, 1_000, 100_000])
    func recursiveValuesDeeperThanTheWriterAllows(depth: Int) throws {
        final class Node: Encodable {
            let child: Node?
            init(child: Node?) { self.child = child }
        }
        var node: Node? = nil
        for _ in 0..<depth { node = Node(child: node) }
        defer {
            // Released one node at a time: each node's release finds its child still held.
            var current = node
            node = nil
            while let next = current { current = next.child }
        }
        let sink = MemoryOutputSink()
        let writer = JSONWriter(to: sink)
        if depth <= JSONWriter.maxDepth {
            try writer.encode(node!)
            try writer.finish()
            #expect(sink.string.filter { $0 == "{" }.count == depth)
        } else {
            let error = try #require(throws: EncodingError.self) { try writer.encode(node!) }
            #expect("\(error)".contains("JSONWriter.maxDepth is 127"), "\(error)")
            #expect(sink.data.isEmpty)
        }
    }

    // MARK: Errors from user code

    struct Refusal: Error, Equatable {
        let reason: String
    }

    struct Refuses: Codable, Equatable {
        let value: Int
        init(value: Int) { self.value = value }
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            value = try container.decode(Int.self)
            if value < 0 { throw Refusal(reason: "negative \(value)") }
        }
        func encode(to encoder: any Encoder) throws {
            if value < 0 { throw Refusal(reason: "negative \(value)") }
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    @Test func errorsThrownByUserCodeReachTheCallerUnchanged() throws {
        let expected = Refusal(reason: "negative -3")
        #expect(throws: expected) { try JSONEncoder().encode([Refuses(value: -3)]) }
        #expect(throws: expected) { try CodableParity.ourEncoding([Refuses(value: -3)], .init()) }
        let writer = JSONRecordWriter<Refuses>(to: MemoryOutputSink())
        #expect(throws: expected) { try writer.write(Refuses(value: -3)) }
        let json = Data("[1, -3, 5]".utf8)
        #expect(throws: expected) { try JSONDecoder().decode([Refuses].self, from: json) }
        #expect(throws: expected) { try JSONRecordDecoder().decode([Refuses].self, from: json) }
        let reader = try JSONRecordReader(Refuses.self, at: "$[*]", from: MemoryByteSource(json))
        #expect(try reader.next() == Refuses(value: 1))
        #expect(throws: expected) { try reader.next() }
        // Skipped, the record's error keeps the user's error, located.
        var options = JSONRecordOptions()
        options.onDecodingFailure = .skip
        let skipping = try JSONRecordReader(Refuses.self, at: "$[*]", from: MemoryByteSource(json), options: options)
        var values: [Refuses] = []
        while let value = try skipping.next() { values.append(value) }
        #expect(values == [Refuses(value: 1), Refuses(value: 5)])
        let failure = try #require(skipping.report.failures.first)
        #expect(failure.underlyingError as? Refusal == expected)
        #expect(failure.byteOffset == 4)
    }

    // MARK: Decoding through unkeyed containers

    /// A value of an array whose elements are of several types, decoded with `try?` one type
    /// after another: a failed `decode` leaves the container where it was.
    enum Mixed: Decodable, Equatable {
        case int(Int)
        case double(Double)
        case string(String)
        case bool(Bool)
        case null
        case list([Mixed])
        case object([String: Mixed])

        init(from decoder: any Decoder) throws {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
                return
            }
            if let value = try? single.decode(Int.self) {
                self = .int(value)
                return
            }
            if let value = try? single.decode(Double.self) {
                self = .double(value)
                return
            }
            if let value = try? single.decode(String.self) {
                self = .string(value)
                return
            }
            if let value = try? single.decode(Bool.self) {
                self = .bool(value)
                return
            }
            if let value = try? single.decode([String: Mixed].self) {
                self = .object(value)
                return
            }
            var elements: [Mixed] = []
            var container = try decoder.unkeyedContainer()
            while !container.isAtEnd {
                if try container.decodeNil() {
                    elements.append(.null)
                } else if let value = try? container.decode(Int.self) {
                    elements.append(.int(value))
                } else if let value = try? container.decode(Double.self) {
                    elements.append(.double(value))
                } else if let value = try? container.decode(String.self) {
                    elements.append(.string(value))
                } else if let value = try? container.decode(Bool.self) {
                    elements.append(.bool(value))
                } else {
                    elements.append(try container.decode(Mixed.self))
                }
            }
            self = .list(elements)
        }
    }

    /// Generated JSON of every kind of value, nested.
    static func generatedJSON(_ random: inout SeededGenerator, depth: Int = 0) -> String {
        let kinds = depth > 3 ? 6 : 8
        switch Int.random(in: 0..<kinds, using: &random) {
        case 0: return "null"
        case 1: return "\(Int.random(in: -1000...1000, using: &random))"
        case 2: return "\(Double.random(in: -10...10, using: &random))"
        case 3: return ["\"a\"", "\"\"", "\"é\\n\"", "\"12\""].randomElement(using: &random)!
        case 4: return Bool.random(using: &random) ? "true" : "false"
        case 5: return ["1e400", "12345678901234567890", "-0", "1.0"].randomElement(using: &random)!
        case 6:
            let count = Int.random(in: 0...4, using: &random)
            return "[" + (0..<count).map { _ in generatedJSON(&random, depth: depth + 1) }.joined(separator: ",") + "]"
        default:
            let count = Int.random(in: 0...3, using: &random)
            return "{"
                + (0..<count).map { "\"k\($0)\":" + generatedJSON(&random, depth: depth + 1) }.joined(separator: ",")
                + "}"
        }
    }

    @Test func heterogeneousArraysDecodedWithTry() {
        var random = SeededGenerator(state: 0x4E7)
        for _ in 0..<300 {
            let json =
                "["
                + (0..<Int.random(in: 0...6, using: &random)).map { _ in Self.generatedJSON(&random) }.joined(
                    separator: ","
                ) + "]"
            CodableParity.expectSameDecoding(Mixed.self, from: Data(json.utf8), .init(), json)
        }
    }

    /// An unkeyed container walked element by element, its `count`, `currentIndex` and `isAtEnd`
    /// logged at each step, nested containers taken where they are, and `decodeNil()` at the end.
    struct Walk: Decodable, Equatable {
        var log: [String] = []

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            while !container.isAtEnd {
                log.append("at \(container.currentIndex) of \(container.count.map(String.init) ?? "?")")
                if try container.decodeNil() {
                    log.append("null")
                } else if let value = try? container.decode(Int.self) {
                    log.append("int \(value)")
                } else if var nested = try? container.nestedUnkeyedContainer() {
                    log.append("array of \(nested.count ?? -1)")
                    if !nested.isAtEnd, let first = try? nested.decode(JSONValueProbe.self) {
                        log.append("first \(first.kind)")
                    }
                } else if let nested = try? container.nestedContainer(keyedBy: AnyKey.self) {
                    log.append("object \(nested.allKeys.map(\.stringValue).sorted())")
                } else if let value = try? container.decode(String.self) {
                    log.append("string \(value)")
                } else {
                    log.append("other \(try container.decode(JSONValueProbe.self).kind)")
                }
            }
            log.append("end at \(container.currentIndex)")
            do {
                _ = try container.decodeNil()
                log.append("decodeNil at the end returned")
            } catch let error as DecodingError {
                if case .valueNotFound = error {
                    log.append("valueNotFound at \(CodableParity.keys(error))")
                } else {
                    log.append("\(error)")
                }
            }
            do {
                _ = try container.decode(Int.self)
            } catch let error as DecodingError {
                if case .valueNotFound = error { log.append("decode at the end: valueNotFound") }
            }
        }
    }

    /// The kind of any value, read through a single value container.
    struct JSONValueProbe: Decodable {
        let kind: String
        init(from decoder: any Decoder) throws {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                kind = "null"
            } else if (try? single.decode(Bool.self)) != nil {
                kind = "bool"
            } else if (try? single.decode(Double.self)) != nil {
                kind = "number"
            } else if (try? single.decode(String.self)) != nil {
                kind = "string"
            } else if (try? single.decode([Int?].self)) != nil || (try? single.decode([JSONValueProbe].self)) != nil {
                kind = "array"
            } else {
                kind = "object"
            }
        }
    }

    @Test func unkeyedContainersWalkedElementByElement() {
        CodableParity.expectSameDecoding(Walk.self, from: Data(#"[1,null,[2],{"a":3}]"#.utf8))
        var random = SeededGenerator(state: 0xA11)
        for _ in 0..<300 {
            let json =
                "["
                + (0..<Int.random(in: 0...6, using: &random)).map { _ in Self.generatedJSON(&random) }.joined(
                    separator: ","
                ) + "]"
            CodableParity.expectSameDecoding(Walk.self, from: Data(json.utf8), .init(), json)
        }
    }

    // MARK: Key strategies when decoding

    /// The keys a keyed container reports, and the value it decodes for each.
    struct KeyLog: Decodable, Equatable {
        var entries: [String] = []
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                entries.append(
                    "\(key.stringValue)=\((try? container.decode(Int.self, forKey: key)).map(String.init) ?? "?")"
                )
                entries.append("contains \(container.contains(key))")
            }
            entries.append("count \(container.allKeys.count)")
        }
    }

    @Test(arguments: [CodableParity.Strategies.Keys.snakeCase, .custom, .useDefaultKeys])
    func allKeysHoldsEachConvertedKeyOnce(keys: CodableParity.Strategies.Keys) {
        var strategies = CodableParity.Strategies()
        strategies.keys = keys
        let names = ["a_b", "aB", "a__b", "_a_b", "a_b_", "AB", "ab", "ab1", "my_key", "myKey", "URL_value", "a", "A"]
        var random = SeededGenerator(state: 0x5EED)
        for _ in 0..<200 {
            let members = (0..<Int.random(in: 0...6, using: &random)).map { index in
                "\"\(names.randomElement(using: &random)!)\": \(index)"
            }
            let json = "{" + members.joined(separator: ",") + "}"
            CodableParity.expectSameDecoding(KeyLog.self, from: Data(json.utf8), strategies, json)
        }
    }
}
