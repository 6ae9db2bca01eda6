import YAJLCore

/// Prints each event as a one-line JSON array, in the format of YAJL's own event tests, written by
/// a ``JSONWriter`` (one array per line, and a final newline from ``finish()``).
final class EventPrinter: JSONEventHandler {
    /// Raw strings are checked here once (``text(_:)``), not again by the writer.
    private let writer = JSONWriter(to: .standardOutput, options: JSONWriter.Options(validatesUTF8: false))
    private var printedAny = false

    init() { writer.allowMultipleValues(separator: "\n") }

    /// One event: its name, then its value when `value` writes one.
    private func event(_ name: String, _ value: (() throws -> Void)? = nil) throws {
        try writer.startArray()
        try writer.string(name)
        try value?()
        try writer.endArray()
        printedAny = true
    }

    /// A string or key as it came. Invalid UTF-8 (possible with --no-utf8-check) becomes U+FFFD,
    /// so the output is always valid JSON.
    private func text(_ bytes: UnsafeRawBufferPointer) throws {
        if String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self) != nil {
            try writer.string(utf8: bytes)
        } else {
            try writer.string(String(decoding: bytes, as: UTF8.self))
        }
    }

    func startObject(context: JSONEventContext) throws { try event("start_map") }
    func endObject(context: JSONEventContext) throws { try event("end_map") }
    func startArray(context: JSONEventContext) throws { try event("start_array") }
    func endArray(context: JSONEventContext) throws { try event("end_array") }
    func null(context: JSONEventContext) throws { try event("null") }
    func bool(_ value: Bool, context: JSONEventContext) throws { try event("boolean") { try self.writer.bool(value) } }
    func key(_ key: JSONStringView, context: JSONEventContext) throws {
        try event("map_key") { try self.text(key.bytes) }
    }
    func string(_ value: JSONStringView, context: JSONEventContext) throws {
        try event("string") { try self.text(value.bytes) }
    }
    func number(_ value: JSONNumberView, context: JSONEventContext) throws {
        switch value.value {
        case .integer(let integer): try event("integer") { try self.writer.integer(integer) }
        case .double(let double): try event("double") { try self.writer.double(double) }  // shortest round-trip form
        case .unrepresentable: try event("number") { try self.text(value.bytes) }
        }
    }

    /// Hands over what is buffered, ending the last line.
    func finish() throws {
        try writer.finish()
        guard printedAny else { return }
        let newline = OutputBuffer()
        try newline.write("\n")
        try newline.flush()
    }
}

let eventsCommand = Command(
    name: "events",
    summary: "Print every parse event as one JSON array per line.",
    usage: "[FILE|-] [options]",
    details: """
        Events: ["start_map"] ["map_key","k"] ["end_map"] ["start_array"] ["end_array"] ["null"]
        ["boolean",true] ["integer",123] ["double",1.5] ["number","1e400"] ["string","s"].
        A number is an integer if it has no fraction or exponent and fits in 64 bits, else a double if
        finite, else a "number" with its exact text. If the input turns invalid part-way, the events
        before the error are printed, then the error goes to stderr with exit status 1.
        """,
    options: parserOptionSpecs,
    maxInputs: 1
) { settings in
    let printer = EventPrinter()
    do {
        try parseInput(settings, handler: printer)
    } catch let error as JSONIOError where error.operation == .write {
        throw error  // the output itself failed: nothing more can be written
    } catch {
        try printer.finish()  // the events before the error
        throw error
    }
    try printer.finish()
    return ExitStatus.success
}
