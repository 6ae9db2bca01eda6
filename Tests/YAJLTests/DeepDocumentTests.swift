import Foundation
import Testing
import YAJL
import YAJLTestSupport

@testable import YAJLCore

/// Documents as deep as the options allow are read, captured, evaluated and written again with no
/// recursion proportional to their depth: on the default stack of the caller and of the parsing
/// threads the package starts.
@Suite("Deep documents")
struct DeepDocumentTests {
    enum Shape: String, CaseIterable, CustomStringConvertible {
        case arrays, objects, mixed
        var description: String { rawValue }

        func document(depth: Int) -> String {
            switch self {
            case .arrays: return String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
            case .objects:
                return String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
            case .mixed:
                var text = ""
                for level in 0..<depth { text += level % 2 == 0 ? #"{"a":"# : "[" }
                text += #""x""#
                for level in (0..<depth).reversed() { text += level % 2 == 0 ? "}" : "]" }
                return text
            }
        }
    }

    static let depths = [1_000, 30_000, 100_000]

    static func options(depth: Int, concurrently: Bool) -> JSONRecordOptions {
        var options = JSONRecordOptions()
        options.parser.maxDepth = depth + 10
        options.parsesConcurrently = concurrently
        return options
    }

    /// The whole document captured as a fragment: its bytes are the document's (already minified).
    @Test(arguments: Shape.allCases, depths)
    func theWholeDocumentIsCapturedAndWrittenBack(_ shape: Shape, _ depth: Int) throws {
        let document = shape.document(depth: depth)
        for concurrently in [false, true] {
            let reader = try JSONRecordReader(
                JSONFragment.self,
                at: "$",
                from: .text(document),
                options: Self.options(depth: depth, concurrently: concurrently)
            )
            let fragment = try #require(try reader.next())
            #expect(fragment.bytes.count == document.utf8.count)
            #expect(fragment.bytes.elementsEqual(document.utf8), "\(shape) at depth \(depth)")
            #expect(try reader.next() == nil)
        }
    }

    /// A selection deep inside: the innermost scalar, by a descendant query, in both orders.
    @Test(arguments: Shape.allCases, depths)
    func aDeepSelectionIsFound(_ shape: Shape, _ depth: Int) throws {
        let document = shape.document(depth: depth)
        for order in [JSONRecordOptions.Order.document, .rfc] {
            var options = Self.options(depth: depth, concurrently: false)
            options.order = order
            let query = shape == .mixed ? #"$..[?@ == "x"]"# : "$..[?@ == 1]"
            let reader = try JSONRecordReader(JSONFragment.self, at: query, from: .text(document), options: options)
            var found: [JSONRecord<JSONFragment>] = []
            while let record = try reader.nextRecord() { found.append(record) }
            #expect(found.count == 1, "\(shape) at depth \(depth), \(order)")
            #expect(found.first?.path.count == depth)
        }
    }

    /// A value deeper than the writer's limit is refused with its error, not a crash.
    @Test(arguments: Shape.allCases)
    func writingPastTheWritersDepthIsAnError(_ shape: Shape) throws {
        // Deep enough to be far past the writer's limit, shallow enough for the test thread's
        // stack to release the `JSONValue` (Swift releases nested enum payloads recursively).
        let document = shape.document(depth: 2_000)
        let reader = try JSONRecordReader(
            JSONFragment.self,
            at: "$",
            from: .text(document),
            options: Self.options(depth: 2_000, concurrently: false)
        )
        let fragment = try #require(try reader.next())
        let value = try JSONValue(parsing: fragment.bytes, options: .init(maxDepth: 2_010))
        #expect(value.description.utf8.elementsEqual(document.utf8))
        let writer = JSONWriter(to: MemoryOutputSink())
        let error = try #require(throws: JSONWriterError.self) { try writer.write(value) }
        #expect(error.kind == .depthLimitExceeded)
        #expect("\(error)".contains("\(JSONWriter.maxDepth)"))
        // Foundation's form is built without recursion too.
        let object = try value.foundationObject()
        #expect(object is [Any] || object is [String: Any])
    }
}

/// A recursive `Decodable` type meets the decoder's depth limit before the stack can overflow.
@Suite("Deep recursive Decodable types")
struct DeepDecodableTests {
    final class Node: Decodable, Sendable {
        let next: Node?
        let items: [Node]?
    }

    static func document(depth: Int, inArrays: Bool) -> String {
        let open = inArrays ? #"{"items":["# : #"{"next":"#
        let close = inArrays ? "]}" : "}"
        return String(repeating: open, count: depth) + "{}" + String(repeating: close, count: depth)
    }

    @Test(arguments: [10, 511, 512, 513, 5_000, 100_000], [false, true])
    func theDepthLimitHolds(_ depth: Int, _ inArrays: Bool) throws {
        let text = Self.document(depth: depth, inArrays: inArrays)
        for concurrently in [false, true] {
            var options = JSONRecordOptions()
            options.parser.maxDepth = 2 * depth + 10
            options.parsesConcurrently = concurrently
            let reader = try JSONRecordReader(Node.self, at: "$", from: .text(text), options: options)
            // Each value decoded inside the record is a level: a Node in `next`, or the array in
            // `items` and the Node in it.
            let levels = inArrays ? 2 * depth : depth
            if levels <= JSONRecordDecodingOptions().maxDepth {
                var node = try #require(try reader.next())
                var nodes = 0
                while let next = node.next ?? node.items?.first {
                    node = next
                    nodes += 1
                }
                #expect(nodes == depth)
            } else {
                let error = try #require(throws: JSONRecordDecodingError.self) { _ = try reader.next() }
                #expect("\(error)".contains("JSONRecordDecodingOptions.maxDepth"), "\(error)")
                #expect("\(error)".contains("512"))
            }
        }
    }

    /// The option moves the limit both ways (raised only a little: a debug build under
    /// AddressSanitizer takes several KiB of stack per level, which is why raising it is the
    /// caller's decision).
    @Test(arguments: [(limit: 100, depth: 100, decodes: true), (100, 101, false), (520, 515, true)])
    func theLimitIsAnOption(_ limit: Int, _ depth: Int, _ decodes: Bool) throws {
        let text = Self.document(depth: depth, inArrays: false)
        var options = JSONRecordOptions()
        options.parser.maxDepth = 2_000
        options.decoding.maxDepth = limit
        let reader = try JSONRecordReader(Node.self, at: "$", from: .text(text), options: options)
        if decodes {
            #expect(try reader.next() != nil)
        } else {
            let error = try #require(throws: JSONRecordDecodingError.self) { _ = try reader.next() }
            #expect("\(error)".contains("more than \(limit) levels"), "\(error)")
        }
    }
}

/// `JSONValue`s of any depth the options allow are built by every reader, compared, hashed,
/// written and released without recursion: on a thread whose stack is far too small for one
/// frame per level (256 KiB), so any recursion left would crash the test.
@Suite("Deep JSONValues")
struct DeepJSONValueTests {
    typealias Shape = DeepDocumentTests.Shape

    /// Runs `body` on a new thread with a stack of `stackSize` bytes and waits for it.
    static func onSmallStack<T: Sendable>(
        _ stackSize: Int = 256 << 10,
        _ body: @escaping @Sendable () throws -> T
    )
        throws -> T
    {
        let done = DispatchSemaphore(value: 0)
        let result = LockedValue<Result<T, any Error>?>(nil)
        let thread = Thread {
            result.set(Result { try body() })
            done.signal()
        }
        thread.stackSize = stackSize
        thread.start()
        done.wait()
        return try #require(result.get()).get()
    }

    @Test(arguments: Shape.allCases, [10_001, 100_000])
    func everyReaderBuildsAndReleasesDeepValues(_ shape: Shape, _ depth: Int) async throws {
        let document = shape.document(depth: depth)
        let options = DeepDocumentTests.options(depth: depth, concurrently: true)
        let sequential = DeepDocumentTests.options(depth: depth, concurrently: false)
        var built: [(String, JSONValue)] = []
        built.append(("JSONValue(parsing:)", try JSONValue(parsing: document, options: options.parser)))
        for (name, recordOptions) in [("concurrent", options), ("sequential", sequential)] {
            let reader = try JSONRecordReader(JSONValue.self, at: "$", from: .text(document), options: recordOptions)
            built.append(("JSONRecordReader \(name)", try #require(try reader.next())))
        }
        for try await value in JSONRecords(JSONValue.self, at: "$", from: .text(document), options: options) {
            built.append(("JSONRecords", value))
        }
        let tokens = JSONTokenReader(from: .text(document), options: options.parser)
        _ = try tokens.next()
        built.append(("JSONTokenReader", try tokens.value()))
        // A record type holding a JSONValue, decoded on the parsing thread and on the caller's.
        struct Wrapper: Decodable { let a: JSONValue }
        if shape == .objects {
            let reader = try JSONRecordReader(Wrapper.self, at: "$", from: .text(document), options: options)
            built.append(("Wrapper", .object(["a": try #require(try reader.next()).a])))
        }
        #expect(built.count == (shape == .objects ? 6 : 5))
        let reference = built[0].1
        let hash = reference.hashValue
        let text = Array(document.utf8)
        for (how, value) in built {
            #expect(value == reference, "\(how)")
            #expect(value.hashValue == hash, "\(how)")
            #expect(Array(value.description.utf8) == text, "\(how)")
        }
        // Dropped on a small stack: each value is the last copy of its tree but the reference's.
        let values = LockedValue(built.map(\.1))
        built = []
        try Self.onSmallStack { values.set([]) }
        _ = try Self.onSmallStack { [reference] in reference.description.utf8.count }
    }

    /// Parsed, compared, hashed, described and released on a 256 KiB stack.
    @Test(arguments: Shape.allCases)
    func aSmallStackHoldsAnyDepth(_ shape: Shape) throws {
        let depth = 200_000
        let document = shape.document(depth: depth)
        let ok = try Self.onSmallStack {
            let options = JSONParser.Options(maxDepth: depth + 10)
            var first: JSONValue? = try JSONValue(parsing: document, options: options)
            var second: JSONValue? = try JSONValue(parsing: document, options: options)
            let equal = first == second && first.hashValue == second.hashValue
            let same = first?.description == document
            first = nil
            second = nil
            return equal && same && first == nil && second == nil
        }
        #expect(ok)
    }

    /// Foundation trees convert both ways on explicit stacks. The depth is kept moderate: Swift
    /// releases a nested `[Any]` recursively (the caller's tree, not ours), and bridging a nested
    /// `NSDictionary` to `[String: Any]` copies its whole subtree, at every level.
    @Test(arguments: Shape.allCases)
    func foundationTreesConvertAtDepth(_ shape: Shape) throws {
        let depth = 300
        let value = try JSONValue(parsing: shape.document(depth: depth), options: .init(maxDepth: depth + 10))
        let object = try value.foundationObject()
        let back = try JSONValue(foundation: object)
        #expect(back == value)
        #expect(back.description == shape.document(depth: depth))
    }

    /// Values built by hand, nested a million levels through every kind of container, and values
    /// that share subtrees: released on a small stack, the shared parts intact after.
    @Test func handBuiltAndSharedValuesAreReleasedIteratively() throws {
        let depth = 1_000_000
        let (levels, leaf) = try Self.onSmallStack { () -> (Int, JSONValue) in
            var value: JSONValue = "leaf"
            for level in 0..<depth {
                value = level % 3 == 0 ? [value] : level % 3 == 1 ? ["k": value, "n": 1] : .array([1, value])
            }
            var shared: JSONValue? = value
            value = nil
            var outer: JSONValue? = ["a": shared!, "b": [shared!, shared!]]
            outer = nil  // releases only what `outer` alone held
            // `shared` is whole: walk down to its leaf.
            var node = shared!
            var levels = 0
            while true {
                switch node {
                case .array(let array): node = array[array.count - 1]
                case .object(let object): node = object.members[0].value
                default:
                    shared = nil  // the last copy of the whole tree
                    return (levels + (outer == nil ? 0 : 1), node)
                }
                levels += 1
            }
        }
        #expect(levels == depth)
        #expect(leaf == "leaf")
    }
}
