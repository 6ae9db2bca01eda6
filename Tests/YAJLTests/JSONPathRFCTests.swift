import Foundation
import Testing
import YAJL

/// RFC 9535's own examples (§1.5 and the tables of §2.3–2.6), run through the streaming reader
/// in both orders and with every chunk size down to one byte.
@Suite("JSONPath: RFC 9535 examples")
struct JSONPathRFCTests {
    /// The values `query` selects from `document`: in `order`, minified, read `chunkSize` bytes at a time.
    static func select(
        _ query: String,
        in document: String,
        order: JSONRecordOptions.Order,
        chunkSize: Int = 64 << 10
    ) throws -> [String] {
        var options = JSONRecordOptions()
        options.order = order
        options.parser.chunkSize = chunkSize
        options.parsesConcurrently = false
        let reader = try JSONRecordReader(JSONValue.self, at: query, from: .text(document), options: options)
        var values: [String] = []
        while let value = try reader.next() { values.append(value.description) }
        return values
    }

    static let bookstore = #"""
        { "store": {
            "book": [
              { "category": "reference", "author": "Nigel Rees", "title": "Sayings of the Century", "price": 8.95 },
              { "category": "fiction", "author": "Evelyn Waugh", "title": "Sword of Honour", "price": 12.99 },
              { "category": "fiction", "author": "Herman Melville", "title": "Moby Dick", "isbn": "0-553-21311-3", "price": 8.99 },
              { "category": "fiction", "author": "J. R. R. Tolkien", "title": "The Lord of the Rings", "isbn": "0-395-19395-8", "price": 22.99 }
            ],
            "bicycle": { "color": "red", "price": 399 }
          }
        }
        """#
    static let names = #"{"o": {"j j": {"k.k": 3}}, "'": {"@": 2}}"#
    static let wildcards = #"{"o": {"j": 1, "k": 2}, "a": [5, 3]}"#
    static let letters = #"["a", "b", "c", "d", "e", "f", "g"]"#
    static let filters = #"""
        {"a": [3, 5, 1, 2, 4, 6, {"b": "j"}, {"b": "k"}, {"b": {}}, {"b": "kilo"}],
         "o": {"p": 1, "q": 2, "r": 3, "s": 5, "t": {"u": 6}}, "e": "f"}
        """#
    static let descendants = #"{"o": {"j": 1, "k": 2}, "a": [5, 3, [{"j": 4}, {"k": 6}]]}"#
    static let nulls = #"{"a": null, "b": [null], "c": [{}], "null": 1}"#

    /// (query, document, the RFC's result in its order, values separated by `|`).
    @Test(arguments: [
        // §1.5, Table 2
        ("$.store.book[*].author", bookstore, #""Nigel Rees"|"Evelyn Waugh"|"Herman Melville"|"J. R. R. Tolkien""#),
        ("$..author", bookstore, #""Nigel Rees"|"Evelyn Waugh"|"Herman Melville"|"J. R. R. Tolkien""#),
        ("$.store..price", bookstore, "8.95|12.99|8.99|22.99|399"),
        (
            "$..book[2]", bookstore,
            #"{"category":"fiction","author":"Herman Melville","title":"Moby Dick","isbn":"0-553-21311-3","price":8.99}"#
        ),
        ("$..book[2].author", bookstore, #""Herman Melville""#),
        ("$..book[2].publisher", bookstore, ""),
        ("$..book[-1].title", bookstore, #""The Lord of the Rings""#),
        ("$..book[0,1].title", bookstore, #""Sayings of the Century"|"Sword of Honour""#),
        ("$..book[:2].title", bookstore, #""Sayings of the Century"|"Sword of Honour""#),
        ("$..book[?@.isbn].title", bookstore, #""Moby Dick"|"The Lord of the Rings""#),
        ("$..book[?@.price<10].title", bookstore, #""Sayings of the Century"|"Moby Dick""#),
        // §2.3.1.3 names
        ("$.o['j j']", names, #"{"k.k":3}"#),
        ("$.o['j j']['k.k']", names, "3"),
        (#"$.o["j j"]["k.k"]"#, names, "3"),
        (#"$["'"]["@"]"#, names, "2"),
        // §2.3.2.3 wildcards
        ("$[*]", wildcards, #"{"j":1,"k":2}|[5,3]"#),
        ("$.o[*]", wildcards, "1|2"),
        ("$.o[*, *]", wildcards, "1|2|1|2"),
        ("$.a[*]", wildcards, "5|3"),
        // §2.3.3.3 indices, §2.3.4.3 slices
        ("$[1]", letters, #""b""#),
        ("$[-2]", letters, #""f""#),
        ("$[1:3]", letters, #""b"|"c""#),
        ("$[5:]", letters, #""f"|"g""#),
        ("$[1:5:2]", letters, #""b"|"d""#),
        ("$[5:1:-2]", letters, #""f"|"d""#),
        ("$[::-1]", letters, #""g"|"f"|"e"|"d"|"c"|"b"|"a""#),
        ("$[-3:]", letters, #""e"|"f"|"g""#),
        ("$[0:7:0]", letters, ""),
        // §2.3.5.3 filters
        ("$.a[?@.b == 'kilo']", filters, #"{"b":"kilo"}"#),
        ("$.a[?(@.b == 'kilo')]", filters, #"{"b":"kilo"}"#),
        ("$.a[?@>3.5]", filters, "5|4|6"),
        ("$.a[?@.b]", filters, #"{"b":"j"}|{"b":"k"}|{"b":{}}|{"b":"kilo"}"#),
        (
            "$[?@.*]", filters,
            #"[3,5,1,2,4,6,{"b":"j"},{"b":"k"},{"b":{}},{"b":"kilo"}]|{"p":1,"q":2,"r":3,"s":5,"t":{"u":6}}"#
        ),
        ("$[?@[?@.b]]", filters, #"[3,5,1,2,4,6,{"b":"j"},{"b":"k"},{"b":{}},{"b":"kilo"}]"#),
        ("$.o[?@<3, ?@<3]", filters, "1|2|1|2"),
        (#"$.a[?@<2 || @.b == "k"]"#, filters, #"1|{"b":"k"}"#),
        (#"$.a[?match(@.b, "[jk]")]"#, filters, #"{"b":"j"}|{"b":"k"}"#),
        (#"$.a[?search(@.b, "[jk]")]"#, filters, #"{"b":"j"}|{"b":"k"}|{"b":"kilo"}"#),
        ("$.o[?@>1 && @<4]", filters, "2|3"),
        ("$.o[?@.u || @.x]", filters, #"{"u":6}"#),
        ("$.a[?@.b == $.x]", filters, "3|5|1|2|4|6"),
        ("$.a[?@ == @]", filters, #"3|5|1|2|4|6|{"b":"j"}|{"b":"k"}|{"b":{}}|{"b":"kilo"}"#),
        ("$.a[?length(@.b) == 4]", filters, #"{"b":"kilo"}"#),
        ("$.o[?count(@.*) == 1]", filters, #"{"u":6}"#),
        ("$.o[?value(@..u) == 6]", filters, #"{"u":6}"#),
        ("$[?@.o.t.u == 6].e", filters, ""),
        ("$[?@.t.u == 6]", filters, #"{"p":1,"q":2,"r":3,"s":5,"t":{"u":6}}"#),
        ("$.o[?@.u == 6]", filters, #"{"u":6}"#),
        // §2.5.2.3 descendants, in the RFC's order
        ("$..j", descendants, "1|4"),
        ("$..[0]", descendants, #"5|{"j":4}"#),
        (
            "$..[*]", descendants,
            #"{"j":1,"k":2}|[5,3,[{"j":4},{"k":6}]]|1|2|5|3|[{"j":4},{"k":6}]|{"j":4}|{"k":6}|4|6"#
        ),
        ("$..*", descendants, #"{"j":1,"k":2}|[5,3,[{"j":4},{"k":6}]]|1|2|5|3|[{"j":4},{"k":6}]|{"j":4}|{"k":6}|4|6"#),
        ("$..o", descendants, #"{"j":1,"k":2}"#),
        ("$.o..[*, *]", descendants, "1|2|1|2"),
        ("$.a..[0, 1]", descendants, #"5|3|{"j":4}|{"k":6}"#),
        // §2.6.1 null semantics
        ("$.a", nulls, "null"),
        ("$.a[0]", nulls, ""),
        ("$.a.d", nulls, ""),
        ("$.b[0]", nulls, "null"),
        ("$.b[*]", nulls, "null"),
        ("$.b[?@]", nulls, "null"),
        ("$.b[?@==null]", nulls, "null"),
        ("$.c[?@.d==null]", nulls, ""),
        ("$.null", nulls, "1"),
    ])
    func rfcExamples(query: String, document: String, expected: String) throws {
        let rfc = try Self.select(query, in: document, order: .rfc)
        #expect(rfc.joined(separator: "|") == expected, "\(query) in RFC order")
        for chunkSize in [1, 3, 64 << 10] {
            let streamed = try Self.select(query, in: document, order: .document, chunkSize: chunkSize)
            #expect(streamed.sorted() == rfc.sorted(), "\(query) in document order, chunks of \(chunkSize)")
            let buffered = try Self.select(query, in: document, order: .rfc, chunkSize: chunkSize)
            #expect(buffered == rfc, "\(query) in RFC order, chunks of \(chunkSize)")
        }
    }

    @Test func documentOrderIsWhereValuesStart() throws {
        let document = #"{"a":{"b":1},"c":2}"#
        #expect(try Self.select("$..*", in: document, order: .document) == [#"{"b":1}"#, "1", "2"])
        #expect(try Self.select("$..*", in: document, order: .rfc) == [#"{"b":1}"#, "2", "1"])
        // A node selected twice comes twice in a row.
        #expect(try Self.select("$[1,0,1]", in: "[7,8]", order: .document) == ["7", "8", "8"])
        #expect(try Self.select("$[1,0,1]", in: "[7,8]", order: .rfc) == ["8", "7", "8"])
    }

    @Test func nestedAndRepeatedMatchesCarryTheirPaths() throws {
        let document = #"{"a":{"a":{"b":1}},"x":[{"a":2}]}"#
        let reader = try JSONRecordReader(JSONValue.self, at: "$..a..b", from: .text(document))
        var seen: [String] = []
        while let record = try reader.nextRecord() { seen.append("\(record.path.normalized)=\(record.value)") }
        // `$..a` selects $.a and $.a.a; `..b` finds $.a.a.b from each: the RFC's nodelist has it twice.
        #expect(seen == ["$['a']['a']['b']=1", "$['a']['a']['b']=1"])

        let lines = try JSONRecordReader(
            JSONValue.self,
            at: "$..n",
            from: .text("{\"n\": {\n  \"n\": [\n    {\"n\": 3}]}}")
        )
        var located: [String] = []
        while let record = try lines.nextRecord() {
            located.append("\(record.path):\(record.line):\(record.byteOffset)")
        }
        #expect(located == ["$.n:1:6", "$.n.n:2:15", "$.n.n[0].n:3:27"])
    }

    @Test func severalQueriesWithDifferentTypesInOnePass() throws {
        struct Meta: Decodable, Equatable { let count: Int }
        struct Book: Decodable, Equatable { let title: String }
        let document = #"{"meta": {"count": 2}, "books": [{"title": "A"}, {"title": "B"}]}"#
        let reader = try JSONRecordReader(JSONFragment.self, at: ["$.meta", "$.books[*]"], from: .text(document))
        var meta: [Meta] = []
        var books: [Book] = []
        while let record = try reader.nextRecord() {
            switch record.queryIndex {
            case 0: meta.append(try record.value.decode(Meta.self))
            default: books.append(try record.value.decode(Book.self))
            }
        }
        #expect(meta == [Meta(count: 2)])
        #expect(books == [Book(title: "A"), Book(title: "B")])
    }

    @Test func buffersAreLimitedWithAClearError() throws {
        let document = "[" + (0..<10_000).map(String.init).joined(separator: ",") + "]"
        var options = JSONRecordOptions()
        options.maxBufferedBytes = 1_000
        let reader = try JSONRecordReader(JSONValue.self, at: "$[-1]", from: .text(document), options: options)
        do {
            _ = try reader.next()
            Issue.record("a 10000-element array was buffered past a 1000-byte limit")
        } catch let error as JSONPathBufferError {
            #expect(error.limit == 1_000)
            #expect(error.description.contains("maxBufferedBytes"))
            #expect(error.description.contains("counts from the end"))
        }
        options.maxBufferedBytes = 1 << 20
        let raised = try JSONRecordReader(JSONValue.self, at: "$[-1]", from: .text(document), options: options)
        #expect(try raised.next()?.description == "9999")
    }

    @Test func filtersAndSlicesStillStopReadingEarly() throws {
        // After $.a closes nothing can match: the invalid tail is never read.
        let document = #"{"a": [1, 5, 2], "b": "#
        let reader = try JSONRecordReader(JSONValue.self, at: "$.a[?@ > 1]", from: .text(document))
        var values: [String] = []
        while let value = try reader.next() { values.append(value.description) }
        #expect(values == ["5", "2"])
        // A slice or indices past their end: the rest of the array is neither read nor validated.
        for (query, document, expected) in [
            ("$.a[0:2]", #"{"a": [1, 5, 2, oops"#, ["1", "5"]),
            ("$.a[1,0]", #"{"a": [1, 5, 2, oops"#, ["1", "5"]),
            ("$[:3:2]", "[7, 8, 9, 10, oops", ["7", "9"]),
        ] {
            let reader = try JSONRecordReader(JSONValue.self, at: query, from: .text(document))
            var values: [String] = []
            while let value = try reader.next() { values.append(value.description) }
            #expect(values == expected, "\(query)")
        }
    }
}
