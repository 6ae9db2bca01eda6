// libFuzzer target: the writer bridge. Parse the input into a JSONWriter, parse the output again:
// the events must be equal, in both minified and beautified output, with fuzzer-chosen indent
// strings (invalid ones must throw JSONOptionError, never crash). The writer's minified output
// must be byte for byte the records' text (JSONFragment, written by yajl_gen through
// MinifiedText). Then `number(text:)` on the input's first bytes must accept exactly what the
// parser reads as one number.

/// Indents to choose from: valid ones, and ones YAJL refuses (which used to crash the writer).
let indents = ["    ", "\t", "", " ", "\n", "\r\n", "->", "x", " \u{0}", String(repeating: " ", count: 70)]

/// `number(text:)` must accept `text` exactly when the parser reads `[text]` as one number with
/// that text, and then write it verbatim.
func checkNumberText(_ text: [UInt8]) {
    var parsed: [JSONEvent] = []
    let parserAccepts =
        (try? JSONParser { event, _ in parsed.append(event) }.parse(
            from: .bytes(Array("[".utf8) + text + Array("]".utf8))
        )) != nil
        && parsed.count == 3
        && { if case .number(let n) = parsed[1] { return Array(n.text.utf8) == text } else { return false } }()
    let sink = MemoryOutputSink()
    let writer = JSONWriter(to: sink)
    do {
        try writer.startArray()
        try text.withUnsafeBytes { try writer.number(text: $0) }
        try writer.endArray()
        try writer.finish()
        guard parserAccepts else {
            fuzzFailure("number(text:) wrote \(String(decoding: text, as: UTF8.self)), which is not a JSON number")
        }
        guard Array(sink.data) == Array("[".utf8) + text + Array("]".utf8) else {
            fuzzFailure("number(text:) changed the text")
        }
    } catch let error as JSONWriterError where error.kind == .invalidNumber {
        guard !parserAccepts else {
            fuzzFailure("number(text:) refused the JSON number \(String(decoding: text, as: UTF8.self))")
        }
    } catch {
        fuzzFailure("number(text:) failed: \(error)")
    }
}

func events(_ bytes: [UInt8], multiple: Bool) throws -> [JSONEvent] {
    var options = JSONParser.Options()
    options.allowMultipleValues = multiple
    var events: [JSONEvent] = []
    try JSONParser(options: options) { event, _ in events.append(event) }.parse(from: .bytes(bytes))
    return events
}

/// The target's check of one input (called by FuzzMain.swift's `LLVMFuzzerTestOneInput`).
func fuzzWriter(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let flags = input.byte()
    let indent = indents[Int(input.byte()) % indents.count]
    let document = input.rest()
    checkNumberText(Array(document.prefix(40)))
    let multiple = flags & 1 != 0
    let original: [JSONEvent]
    do {
        original = try events(document, multiple: multiple)
    } catch {
        return 0  // not JSON: the parser fuzzer covers this
    }
    let sink = MemoryOutputSink()
    let writerOptions = JSONWriter.Options(
        beautify: flags & 2 != 0,
        indent: indent,
        validatesUTF8: flags & 4 != 0,
        escapesSolidus: flags & 8 != 0
    )
    let indentIsValid = (try? writerOptions.validate()) != nil
    let writer = JSONWriter(to: sink, options: writerOptions)
    if multiple { writer.allowMultipleValues() }
    var parserOptions = JSONParser.Options()
    parserOptions.allowMultipleValues = multiple
    do {
        try JSONParser(options: parserOptions, handler: JSONWritingHandler(writer: writer)).parse(
            from: .bytes(document)
        )
        try writer.finish()
    } catch let error as JSONOptionError {
        guard !indentIsValid else { fuzzFailure("a valid indent was refused: \(error)") }
        return 0
    } catch let error as JSONWriterError {
        // Only one input the parser takes is refused by the writer: nesting beyond its depth.
        guard original.count > JSONWriter.maxDepth else { fuzzFailure("the writer refused parsed input: \(error)") }
        return 0
    } catch {
        fuzzFailure("writing failed: \(error)")
    }
    guard indentIsValid else { fuzzFailure("the indent \(indent.debugDescription) was accepted") }
    let output = Array(sink.data)
    if !writerOptions.beautify && !writerOptions.escapesSolidus && !multiple {
        // The records' text (JSONFragment, from the tape through MinifiedText) is the writer's.
        let recordOptions = JSONRecordOptions()
        let fragment: JSONFragment?
        do {
            fragment = try JSONRecordReader(JSONFragment.self, at: "$", from: .bytes(document), options: recordOptions)
                .next()
        } catch {
            fuzzFailure("the document parsed, but not as a record: \(error)")
        }
        guard let fragment, fragment.bytes == output else {
            fuzzFailure(
                "the records' text and the writer's differ: \(String(decoding: output.prefix(200), as: UTF8.self))"
            )
        }
    }
    do {
        let again = try events(output, multiple: multiple)
        guard again == original else {
            fuzzFailure(
                "the events changed through the writer: \(original.count) events became \(again.count): \(String(decoding: output.prefix(200), as: UTF8.self))"
            )
        }
    } catch {
        fuzzFailure(
            "the writer's output does not parse: \(error)\n\(String(decoding: output.prefix(200), as: UTF8.self))"
        )
    }
    return 0
}
