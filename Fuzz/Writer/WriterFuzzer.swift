// libFuzzer target: the writer bridge. Parse the input into a JSONWriter, parse the output again:
// the events must be equal, in both minified and beautified output.

func events(_ bytes: [UInt8], multiple: Bool) throws -> [JSONEvent] {
    var options = JSONParser.Options()
    options.allowMultipleValues = multiple
    var events: [JSONEvent] = []
    try JSONParser(options: options) { event, _ in events.append(event) }.parse(from: .bytes(bytes))
    return events
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWriter(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let flags = input.byte()
    let document = input.rest()
    let multiple = flags & 1 != 0
    let original: [JSONEvent]
    do {
        original = try events(document, multiple: multiple)
    } catch {
        return 0  // not JSON: the parser fuzzer covers this
    }
    let sink = MemoryOutputSink()
    let writer = JSONWriter(to: sink, options: .init(beautify: flags & 2 != 0, validatesUTF8: flags & 4 != 0, escapesSolidus: flags & 8 != 0))
    if multiple { writer.allowMultipleValues() }
    var parserOptions = JSONParser.Options()
    parserOptions.allowMultipleValues = multiple
    do {
        try JSONParser(options: parserOptions, handler: JSONWritingHandler(writer: writer)).parse(from: .bytes(document))
        try writer.finish()
    } catch let error as JSONWriterError {
        // Only one input the parser takes is refused by the writer: nesting beyond its depth.
        guard original.count > JSONWriter.maxDepth else { fuzzFailure("the writer refused parsed input: \(error)") }
        return 0
    } catch {
        fuzzFailure("writing failed: \(error)")
    }
    let output = Array(sink.data)
    do {
        let again = try events(output, multiple: multiple)
        guard again == original else {
            fuzzFailure("the events changed through the writer: \(original.count) events became \(again.count): \(String(decoding: output.prefix(200), as: UTF8.self))")
        }
    } catch {
        fuzzFailure("the writer's output does not parse: \(error)\n\(String(decoding: output.prefix(200), as: UTF8.self))")
    }
    return 0
}
