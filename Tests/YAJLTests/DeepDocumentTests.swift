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

/// `JSONValue`s are built as deep as ``JSONValue/maxDepth`` and dropped safely there; deeper
/// ones are refused with a located error naming the limit, by every way of reading one, never a
/// stack overflow when the value is released.
@Suite("Deep JSONValues")
struct DeepJSONValueTests {
    typealias Shape = DeepDocumentTests.Shape

    @Test(arguments: Shape.allCases)
    func valuesAtTheLimitAreBuiltAndReleased(_ shape: Shape) throws {
        let document = shape.document(depth: JSONValue.maxDepth)
        var value: JSONValue? = try JSONValue(parsing: document, options: .init(maxDepth: JSONValue.maxDepth + 10))
        #expect(value?.description.utf8.count == document.utf8.count)
        value = nil  // released here, on the test's thread
        #expect(value == nil)
    }

    @Test(arguments: Shape.allCases, [JSONValue.maxDepth + 1, 100_000, 400_000])
    func deeperValuesAreRefusedByEveryReader(_ shape: Shape, _ depth: Int) async throws {
        let document = shape.document(depth: depth)
        let options = DeepDocumentTests.options(depth: depth, concurrently: true)
        func check(_ error: any Error, _ how: String) {
            #expect("\(error)".contains("JSONValue.maxDepth (\(JSONValue.maxDepth))"), "\(how): \(error)")
        }
        do {
            _ = try JSONValue(parsing: document, options: options.parser)
            Issue.record("JSONValue(parsing:) built \(depth) levels")
        } catch { check(error, "JSONValue(parsing:)") }
        do {
            let reader = try JSONRecordReader(JSONValue.self, at: "$", from: .text(document), options: options)
            _ = try reader.next()
            Issue.record("JSONRecordReader built \(depth) levels")
        } catch { check(error, "JSONRecordReader") }
        do {
            for try await _ in JSONRecords(JSONValue.self, at: "$", from: .text(document), options: options) {}
            Issue.record("JSONRecords built \(depth) levels")
        } catch { check(error, "JSONRecords") }
        do {
            let tokens = JSONTokenReader(from: .text(document), options: options.parser)
            _ = try tokens.next()
            _ = try tokens.value()
            Issue.record("JSONTokenReader built \(depth) levels")
        } catch { check(error, "JSONTokenReader") }
        // A record type holding a JSONValue: the error has the record's coding path.
        struct Wrapper: Decodable { let a: JSONValue }
        if shape == .objects && depth > JSONValue.maxDepth + 1 {  // `a` is one level less deep
            do {
                let reader = try JSONRecordReader(Wrapper.self, at: "$", from: .text(document), options: options)
                _ = try reader.next()
                Issue.record("Wrapper built \(depth) levels")
            } catch {
                check(error, "Wrapper")
                #expect("\(error)".contains("a"), "\(error)")
            }
        }
        // The same document as a fragment: flat bytes, no limit but the parser's.
        let reader = try JSONRecordReader(JSONFragment.self, at: "$", from: .text(document), options: options)
        #expect(try reader.next()?.bytes.count == document.utf8.count)
    }
}
