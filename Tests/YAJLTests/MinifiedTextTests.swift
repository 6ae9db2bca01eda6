import Testing
import YAJL

@testable import YAJLCore

/// Minified text past one generator's 127 levels: a container deeper than that continues in a
/// further generator (``MinifiedText``), which must print the separator before it, keep the bytes
/// in order, and give way again when it closes. Generated documents, written as `yajl_gen` writes
/// them, with siblings, keys and scalars on both sides of every level around the boundaries, come
/// back byte for byte from the tape (``JSONFragment``) and from a tree (``JSONValue/description``).
@Suite("Minified text at any depth")
struct MinifiedTextTests {
    /// Values beside the spine, in `yajl_gen`'s form (escapes as it writes them).
    static let siblings = [
        "[]", "{}", "[1,{\"a\":[true]}]", "\"x\\n\\\"y\\u001F\"", "-0", "1.5E+3", "null", "{\"k\":{\"l\":[]}}",
    ]

    /// A document nested `depth` levels along one spine: at each level an array or an object, with
    /// 0 to 2 siblings before and after the spine's child; the innermost value is a scalar or an
    /// empty container. With `long`, one sibling near each boundary is a 70,000-byte string, so
    /// that the output is handed over in several pieces on both sides of a boundary.
    static func document(depth: Int, seed: UInt64, long: Bool) -> String {
        var random = NumberParsingTests.SplitMix(state: seed)
        var before: [String] = []
        var after: [String] = []
        let longString = "\"" + String(repeating: "w", count: 70_000) + "\""
        for level in 0..<depth {
            let isObject = random.next() % 2 == 0
            var members = 0
            func member(_ value: String) -> String {
                defer { members += 1 }
                return isObject ? "\"k\(members)\":" + value : value
            }
            func sibling() -> String {
                long && level % JSONWriter.maxDepth == JSONWriter.maxDepth - 1 && members == 0
                    ? longString : siblings[Int(random.next() % UInt64(siblings.count))]
            }
            var head = isObject ? "{" : "["
            for _ in 0..<Int(random.next() % 3) { head += member(sibling()) + "," }
            if isObject { head += "\"s\":" }
            var tail = ""
            for _ in 0..<Int(random.next() % 3) { tail += "," + member(sibling()) }
            before.append(head)
            after.append(tail + (isObject ? "}" : "]"))
        }
        let innermost = ["1", "[]", "{}", "\"end\""][Int(random.next() % 4)]
        return before.joined() + innermost + after.reversed().joined()
    }

    static let depths = [1, 126, 127, 128, 129, 253, 254, 255, 256, 381, 600]

    @Test(arguments: depths, [false, true])
    func deepDocumentsComeBackByteForByte(depth: Int, long: Bool) throws {
        for seed in UInt64(1)...4 {
            let document = Self.document(depth: depth, seed: seed &* 7919 &+ UInt64(depth), long: long)
            var options = JSONRecordOptions()
            options.parser.maxDepth = depth + 10
            let reader = try JSONRecordReader(JSONFragment.self, at: "$", from: .text(document), options: options)
            let fragment = try #require(try reader.next())
            let text = String(decoding: fragment.bytes, as: UTF8.self)
            let same = text == document
            let first = zip(text.utf8, document.utf8).prefix { $0 == $1 }.count
            #expect(
                same,
                "depth \(depth), seed \(seed): from byte \(first), \(WriterAndFragmentBytesTests.excerpt(text, first)) where the document has \(WriterAndFragmentBytesTests.excerpt(document, first))"
            )
            let value = try JSONValue(parsing: Array(document.utf8), options: .init(maxDepth: depth + 10))
            let described = value.description == document
            #expect(described, "depth \(depth), seed \(seed): JSONValue.description")
        }
    }

    /// One reader writes every fragment through the same generators (its decoding session keeps
    /// them): values of every depth in turn, scalars among them, each come back as they are.
    @Test(arguments: [false, true])
    func oneReadersFragmentsOfEveryDepthInTurn(concurrently: Bool) throws {
        let depths = [300, 1, 129, 0, 128, 600, 2, 127, 0, 255]
        let documents = depths.enumerated().map { index, depth in
            depth == 0 ? "\"v\(index)\"" : Self.document(depth: depth, seed: UInt64(index), long: index == 5)
        }
        var options = JSONRecordOptions()
        options.parser.maxDepth = 700
        options.parser.allowMultipleValues = true
        options.parsesConcurrently = concurrently
        let text = documents.joined(separator: "\n")
        let reader = try JSONRecordReader(JSONFragment.self, at: "$", from: .text(text), options: options)
        var read: [String] = []
        while let fragment = try reader.next() { read.append(fragment.description) }
        #expect(read.count == documents.count)
        for (index, (got, expected)) in zip(read, documents).enumerated() {
            let same = got == expected
            #expect(same, "value \(index), depth \(depths[index])")
        }
    }

    /// Within one generator's depth (the spine, and siblings up to three levels deeper), the
    /// text is what ``JSONWriter`` writes for the same walk.
    @Test(arguments: [1, 60, 124])
    func withinTheWritersDepthTheWriterAgrees(depth: Int) throws {
        for seed in UInt64(1)...4 {
            let document = Self.document(depth: depth, seed: seed, long: false)
            let value = try JSONValue(parsing: Array(document.utf8))
            let sink = MemoryOutputSink()
            let writer = JSONWriter(to: sink)
            try writer.write(value)
            try writer.finish()
            #expect(sink.string == value.description)
            #expect(sink.string == document)
        }
    }
}
