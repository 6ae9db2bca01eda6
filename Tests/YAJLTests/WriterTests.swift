// About 340 lines: the writer's suites (states, options, json_reformat parity, the writer against the records' text)
// share their helpers.

import Foundation
import Testing
import YAJL
import YAJLFixtures
import YAJLTestSupport

@Suite("Writer", .serialized)
struct WriterTests {
    /// Writes with `body` to memory and returns the text.
    static func written(_ options: JSONWriter.Options = .init(), _ body: (JSONWriter) throws -> Void) throws -> String {
        let sink = MemoryOutputSink()
        let writer = JSONWriter(to: sink, options: options)
        try body(writer)
        try writer.finish()
        return sink.string
    }

    /// Parses `text` and writes it back with `options`.
    static func reformat(
        _ text: String,
        _ options: JSONWriter.Options = .init(),
        chunkSize: Int = 64 << 10
    ) throws -> String {
        let sink = MemoryOutputSink()
        let writer = JSONWriter(to: sink, options: options)
        try JSONParser(options: .init(chunkSize: chunkSize), handler: JSONWritingHandler(writer: writer)).parse(
            from: .text(text)
        )
        try writer.finish()
        return sink.string
    }

    @Test func writesAllKindsMinified() throws {
        let text = try Self.written { w in
            try w.startObject()
            try w.key("s")
            try w.string("a\"b\\c\n\u{01}é/")
            try w.key("i")
            try w.integer(-42)
            try w.key("d")
            try w.double(0.1)
            try w.key("e")
            try w.double(1e-7)
            try w.key("n")
            try w.number(JSONNumber("1E+2")!)
            try w.key("b")
            try w.bool(true)
            try w.key("z")
            try w.null()
            try w.key("a")
            try w.startArray()
            try w.endArray()
            try w.endObject()
        }
        #expect(text == #"{"s":"a\"b\\c\n\u0001é/","i":-42,"d":0.1,"e":1e-07,"n":1E+2,"b":true,"z":null,"a":[]}"#)
    }

    @Test func beautifyAndOptions() throws {
        let pretty = try Self.reformat(
            #"{"a":[1,{"b":"x/y"}],"c":{}}"#,
            .init(beautify: true, indent: "  ", escapesSolidus: true)
        )
        // YAJL's own layout (as json_reformat's): an empty object spans a blank line.
        #expect(pretty == "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"x\\/y\"\n    }\n  ],\n  \"c\": {\n\n  }\n}\n")
    }

    /// Misuses of the writer, each with the message it must produce.
    enum Misuse: String, CaseIterable, Sendable {
        case keyOutside, keyForValue, valueForKey, arrayInObject, objectInArray, closeNothing, danglingKey, secondValue,
            unfinished

        func perform(on w: JSONWriter) throws {
            switch self {
            case .keyOutside: try w.key("k")
            case .keyForValue:
                try w.startObject()
                try w.key("k")
                try w.key("again")
            case .valueForKey:
                try w.startObject()
                try w.integer(1)
            case .arrayInObject:
                try w.startObject()
                try w.endArray()
            case .objectInArray:
                try w.startArray()
                try w.endObject()
            case .closeNothing: try w.endArray()
            case .danglingKey:
                try w.startObject()
                try w.key("k")
                try w.endObject()
            case .secondValue:
                try w.integer(1)
                try w.integer(2)
            case .unfinished:
                try w.startArray()
                try w.finish()
            }
        }

        var message: String {
            switch self {
            case .keyOutside: return "a key outside an object"
            case .keyForValue: return "a key where a value is expected"
            case .valueForKey: return "a number where a key is expected"
            case .arrayInObject: return "closing an array inside an object"
            case .objectInArray: return "closing an object inside an array"
            case .closeNothing: return "closing an array that is not open"
            case .danglingKey: return "closing an object where a value is expected (after a key)"
            case .secondValue: return "a number after the complete top-level value"
            case .unfinished: return "finishing with 1 container still open"
            }
        }
    }

    @Test(arguments: Misuse.allCases)
    func stateErrorsNameTheState(misuse: Misuse) {
        let writer = JSONWriter(to: MemoryOutputSink())
        do {
            try misuse.perform(on: writer)
            Issue.record("\(misuse): no error")
        } catch let error as JSONWriterError {
            #expect(error.kind == .invalidState)
            #expect(error.message.hasPrefix(misuse.message), "\(misuse): \(error.message)")
        } catch {
            Issue.record("\(misuse): \(error)")
        }
    }

    @Test func depthLimitAndNonFiniteDoubles() throws {
        let writer = JSONWriter(to: MemoryOutputSink())
        for _ in 0..<JSONWriter.maxDepth { try writer.startArray() }
        #expect(
            throws: JSONWriterError(
                kind: .depthLimitExceeded,
                message: "nesting deeper than 127 levels (YAJL's generator limit, YAJL_MAX_DEPTH = 128)"
            )
        ) {
            try writer.startArray()
        }
        let other = JSONWriter(to: MemoryOutputSink())
        #expect((try? other.double(.infinity)) == nil)
        #expect(throws: JSONWriterError.self) { try other.double(.nan) }
    }

    /// Arrays and objects mixed at every level up to the limit (all 127 of the writer's container
    /// bits): each close must match what is open there, and a wrong close is refused at any depth,
    /// with the state unchanged.
    @Test(arguments: [1, 2, 3])
    func deepMixedNestingClosesInOrder(seed: UInt64) throws {
        var random = NumberParsingTests.SplitMix(state: seed)
        let kinds = (0..<JSONWriter.maxDepth).map { _ in random.next() % 2 == 0 }  // true: array
        let text = try Self.written { w in
            for isArray in kinds {
                if isArray {
                    try w.startArray()
                } else {
                    try w.startObject()
                    try w.key("k")
                }
            }
            try w.null()
            for isArray in kinds.reversed() {
                if isArray {
                    #expect(throws: JSONWriterError.self) { try w.endObject() }
                    try w.endArray()
                } else {
                    #expect(throws: JSONWriterError.self) { try w.endArray() }
                    try w.endObject()
                }
            }
        }
        let expected =
            kinds.map { $0 ? "[" : #"{"k":"# }.joined() + "null" + kinds.reversed().map { $0 ? "]" : "}" }.joined()
        #expect(text == expected)
    }

    @Test func multipleValuesForNDJSON() throws {
        let text = try Self.written { w in
            w.allowMultipleValues()
            try w.integer(1)
            try w.startObject()
            try w.key("a")
            try w.null()
            try w.endObject()
        }
        #expect(text == "1\n{\"a\":null}")
    }

    @Test(arguments: [
        #"[-0,1E+2,1e-7,1.7976931348623157e308,123456789012345678901234567890,-9223372036854775808,0.1,5e-324,1E400]"#,
        #"{"":"","a":{"b":[[],{},[[]]]},"u":"é東😀\u0000\u001F","esc":"\"\\\/\b\f\n\r\t"}"#,
        #"[true,false,null,"x",{"dup":1,"dup":2}]"#,
        #""top-level string""#,
        "42",
    ])
    func minifiedDocumentsRoundTripByteForByte(_ document: String) throws {
        // `\/` comes back as `/` (YAJL unescapes it and does not re-escape by default); other escapes stay.
        let expected = document.replacingOccurrences(of: #"\/"#, with: "/")
        for chunk in [1, 3, 64 << 10] {
            #expect(try Self.reformat(document, chunkSize: chunk) == expected, "chunk \(chunk)")
        }
    }

    /// Random documents: parse, write minified, parse again: the same events.
    @Test func propertyParseWriteParseGivesTheSameEvents() throws {
        var random = SystemRandomNumberGenerator()
        func value(_ depth: Int) -> String {
            switch Int.random(in: 0..<(depth > 4 ? 5 : 8), using: &random) {
            case 0: return "null"
            case 1: return Bool.random(using: &random) ? "true" : "false"
            case 2: return String(Int64.random(in: Int64.min...Int64.max, using: &random))
            case 3:
                return ["1.5e300", "-0.0", "3.14159", "1E-5", "12345678901234567890123", "0"].randomElement(
                    using: &random
                )!
            case 4:
                let pieces = ["a", "é", "東", "😀", "\\n", "\\\"", "\\u0001", "\\ud83d\\ude00", " ", "\\/"]
                return "\""
                    + (0..<Int.random(in: 0..<6, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                    .joined() + "\""
            case 5, 6:
                return "["
                    + (0..<Int.random(in: 0..<4, using: &random)).map { _ in value(depth + 1) }.joined(separator: ", ")
                    + "]"
            default:
                return "{"
                    + (0..<Int.random(in: 0..<4, using: &random)).map { i in "\"k\(i)\": " + value(depth + 1) }.joined(
                        separator: ",\n"
                    ) + "}"
            }
        }
        for _ in 0..<300 {
            let document = value(0)
            let original = parse(document)
            #expect(original.error == nil, "\(document)")
            let minified = try Self.reformat(document)
            #expect(parse(minified).events.map(\.event) == original.events.map(\.event), "\(document) → \(minified)")
            let pretty = try Self.reformat(document, .init(beautify: true))
            #expect(parse(pretty).events.map(\.event) == original.events.map(\.event))
        }
    }

    /// `yajl reformat --minify`'s engine against YAJL's own `json_reformat -m`, byte for byte.
    static let jsonReformat: String? = {
        for path in ["/usr/bin/json_reformat", "/usr/local/bin/json_reformat"]
        where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        print("⚠️  SKIPPING json_reformat comparisons: json_reformat (Debian's yajl-tools) is not installed")
        return nil
    }()

    static func jsonReformatMinified(_ file: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: jsonReformat!)
        process.arguments = ["-m"]
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }

    static func ourMinified(_ file: String) throws -> Data {
        let sink = MemoryOutputSink()
        let writer = JSONWriter(to: sink)
        try JSONParser(options: .init(allowComments: true), handler: JSONWritingHandler(writer: writer)).parse(
            from: .file(file)
        )
        try writer.finish()
        return sink.data
    }

    @Test(
        .enabled(if: jsonReformat != nil && SharedMaterial.isAvailable, "json_reformat or ../shared/corpus missing"),
        arguments: ["twitter.json", "citm_catalog.json", "canada.json"]
    )
    func minifyMatchesJsonReformatOnTheCorpus(_ name: String) throws {
        let file = try #require(SharedMaterial.corpusDirectory?.appendingPathComponent(name).path)
        #expect(try Self.ourMinified(file) == Self.jsonReformatMinified(file))
    }

    @Test(
        .enabled(if: jsonReformat != nil, "json_reformat missing"),
        arguments: DocumentGenerator.Kind.allCases.filter { $0 != .ndjson }
    )
    func minifyMatchesJsonReformatOnGeneratedDocuments(_ kind: DocumentGenerator.Kind) throws {
        let file = TemporaryFile("reformat-\(kind).json")
        defer { file.remove() }
        try DocumentGenerator.write(kind, targetBytes: 2 << 20, to: file.path)
        #expect(try Self.ourMinified(file.path) == Self.jsonReformatMinified(file.path))
    }

    @Test func a256MiBDocumentIsReformattedWithFlatMemory() throws {
        let file = TemporaryFile("reformat-large.json")
        defer { file.remove() }
        let size = ProcessMemory.documentSize(forMemoryCheck: 256 << 20, test: "reformat fixture")
        let counts = try DocumentGenerator.write(.records, targetBytes: size, to: file.path)
        var written = 0
        let resetPeak = ProcessMemory.resetPeak()
        let before = ProcessMemory.field("VmRSS") ?? 0
        let writer = JSONWriter(to: .closure { written += $0.count }, options: .init(beautify: true))
        try JSONParser(handler: JSONWritingHandler(writer: writer)).parse(from: .file(file.path))
        try writer.finish()
        let peak = ProcessMemory.field("VmHWM") ?? 0
        #expect(written > counts.bytes)  // pretty output is larger
        if resetPeak {
            print(
                "reformat fixture: \(counts.bytes >> 20) MiB in, \(written >> 20) MiB out, peak RSS growth \((peak - before) >> 10) KiB"
            )
            #expect(peak - before < 4 << 20)
        } else {
            print("⚠️  reformat fixture: peak-memory check skipped (\(ProcessMemory.unavailable ?? "peak not reset"))")
        }
    }
}

/// The writer's minified output and the minified text of records (``JSONFragment``,
/// ``JSONValue/description``, written from the tape through ``MinifiedText``) must be the same
/// bytes for every token, escape and separator: both are `yajl_gen`'s, and the walks and the
/// separators printed across generators must not change them.
@Suite("Writer and fragment bytes")
struct WriterAndFragmentBytesTests {
    static let documents: [String] = [
        #"{"a":[1,-0,1.5e-7,true,false,null,"s"],"b":{},"c":[],"d":[[],[{}]]}"#,
        #"["q\"b\\s/l\n\r\t\b\f\u0001\u001F\u007F","é€𝄞",""]"#,
        #"{"k\n":"v","/":"/","":""}"#,
        "7", #""top""#, "[12345678901234567890123,0.1e400]",
    ]

    /// `document` (twice, when `twice`) and -42, through a parser into a writer.
    static func minified(_ document: String, validatesUTF8: Bool, escapesSolidus: Bool, twice: Bool) throws -> String {
        let sink = MemoryOutputSink()
        var options = JSONWriter.Options()
        options.validatesUTF8 = validatesUTF8
        options.escapesSolidus = escapesSolidus
        options.bufferSize = 16  // drains often
        let writer = JSONWriter(to: sink, options: options)
        writer.allowMultipleValues(separator: "\n--\n")
        var parserOptions = JSONParser.Options()
        parserOptions.allowMultipleValues = true
        let text = twice ? document + " " + document : document
        try JSONParser(options: parserOptions, handler: JSONWritingHandler(writer: writer)).parse(from: .text(text))
        try writer.integer(-42)
        try writer.finish()
        return sink.string
    }

    /// The same, from the records' text (``MinifiedText``): each value's ``JSONFragment`` bytes, which are its
    /// ``JSONValue/description`` (`/` escaped afterwards: JSON has `/` only inside strings).
    static func fromFragments(_ document: String, escapesSolidus: Bool, twice: Bool) throws -> String {
        var options = JSONRecordOptions()
        options.parser.allowMultipleValues = true
        let text = twice ? document + " " + document : document
        let reader = try JSONRecordReader(JSONFragment.self, at: "$", from: .text(text), options: options)
        var parts: [String] = []
        while let fragment = try reader.next() {
            let bytes = String(decoding: fragment.bytes, as: UTF8.self)
            #expect(bytes == (try JSONValue(parsing: fragment.bytes)).description)
            parts.append(bytes)
        }
        let joined = (parts + ["-42"]).joined(separator: "\n--\n")
        return escapesSolidus ? joined.replacingOccurrences(of: "/", with: "\\/") : joined
    }

    @Test(arguments: documents)
    func sameBytesAsTheRecordsText(document: String) throws {
        for escapesSolidus in [false, true] {
            for twice in [false, true] {
                let expected = try Self.fromFragments(document, escapesSolidus: escapesSolidus, twice: twice)
                for validatesUTF8 in [false, true] {
                    let written = try Self.minified(
                        document,
                        validatesUTF8: validatesUTF8,
                        escapesSolidus: escapesSolidus,
                        twice: twice
                    )
                    #expect(written == expected, "escapesSolidus \(escapesSolidus), twice \(twice)")
                }
            }
        }
    }

    /// Up to 48 bytes of `text` from its UTF-8 offset `offset`, escaped for a message.
    static func excerpt(_ text: String, _ offset: Int) -> String {
        let bytes = Array(text.utf8.dropFirst(max(0, offset - 8)).prefix(48))
        return String(reflecting: String(decoding: bytes, as: UTF8.self))
    }

    /// Strings and keys of 0 to 40 characters, up to 46 bytes (past the 16-byte and 8-byte steps
    /// of the search for the next byte to escape) with `special` at every position, among ASCII and two-byte UTF-8
    /// bytes: the writer writes what the records' text holds, with and without `\/`.
    @Test(arguments: [
        UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), 0x00, 0x01, 0x08, 0x09, 0x0A, 0x1F, 0x7F,
    ])
    func escapesAtEveryPositionOfLongRuns(special: UInt8) throws {
        var values: [String] = []
        for length in 1...40 {
            for position in 0..<length {
                var scalars = (0..<length).map { Unicode.Scalar($0 % 7 == 3 ? 0xE9 : 0x61 + $0 % 26)! }
                scalars[position] = Unicode.Scalar(special)
                values.append(String(String.UnicodeScalarView(scalars)))
            }
        }
        values.append("")
        // The document's source escapes what JSON requires; the parser hands the writer raw text.
        func literal(_ value: String) -> String {
            var source = "\""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"", "\\": source += "\\\(scalar)"
                case _ where scalar.value < 0x20: source += String(format: "\\u%04x", scalar.value)
                default: source.unicodeScalars.append(scalar)
                }
            }
            return source + "\""
        }
        let document = "[" + values.map { "{\(literal($0)):\(literal($0))}" }.joined(separator: ",") + "]"
        #expect(values.count == 821)
        for escapesSolidus in [false, true] {
            let direct = try Self.fromFragments(document, escapesSolidus: escapesSolidus, twice: false)
            let yajl = try Self.minified(document, validatesUTF8: true, escapesSolidus: escapesSolidus, twice: false)
            // On a difference, the first differing bytes (the whole output is 60 KB).
            let first = zip(direct.utf8, yajl.utf8).prefix { $0 == $1 }.count
            let same = direct == yajl
            #expect(
                same,
                "escapesSolidus \(escapesSolidus): from byte \(first), fragments are \(Self.excerpt(direct, first)), yajl_gen \(Self.excerpt(yajl, first))"
            )
            #expect(direct.utf8.count > document.utf8.count / 2)
        }
    }
}
