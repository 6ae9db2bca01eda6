import YAJL

/// Prints each event as a one-line JSON array, in the format of YAJL's own event tests.
final class EventPrinter: JSONEventHandler {
    let out = OutputBuffer()

    func startObject(context: JSONEventContext) throws { out.write("[\"start_map\"]\n") }
    func endObject(context: JSONEventContext) throws { out.write("[\"end_map\"]\n") }
    func startArray(context: JSONEventContext) throws { out.write("[\"start_array\"]\n") }
    func endArray(context: JSONEventContext) throws { out.write("[\"end_array\"]\n") }
    func null(context: JSONEventContext) throws { out.write("[\"null\"]\n") }
    func bool(_ value: Bool, context: JSONEventContext) throws {
        out.write(value ? "[\"boolean\",true]\n" : "[\"boolean\",false]\n")
    }
    func key(_ key: JSONStringView, context: JSONEventContext) throws {
        out.write("[\"map_key\",")
        out.writeJSONString(key.bytes)
        out.write("]\n")
    }
    func string(_ value: JSONStringView, context: JSONEventContext) throws {
        out.write("[\"string\",")
        out.writeJSONString(value.bytes)
        out.write("]\n")
    }
    func number(_ value: JSONNumberView, context: JSONEventContext) throws {
        switch value.value {
        case .integer(let integer): out.write("[\"integer\",\(integer)]\n")
        case .double(let double): out.write("[\"double\",\(double)]\n")  // shortest round-trip form
        case .unrepresentable:
            out.write("[\"number\",")
            out.writeJSONString(value.bytes)
            out.write("]\n")
        }
    }
}

let eventsCommand = Command(
    name: "events", summary: "Print every parse event as one JSON array per line.",
    usage: "[FILE|-] [options]",
    details: """
    Events: ["start_map"] ["map_key","k"] ["end_map"] ["start_array"] ["end_array"] ["null"]
    ["boolean",true] ["integer",123] ["double",1.5] ["number","1e400"] ["string","s"].
    A number is an integer if it has no fraction or exponent and fits in 64 bits, else a double if
    finite, else a "number" with its exact text. If the input turns invalid part-way, the events
    before the error are printed, then the error goes to stderr with exit status 1.
    """,
    options: parserOptionSpecs, maxInputs: 1
) { settings in
    let printer = EventPrinter()
    defer { printer.out.flush() }
    try parseInput(settings, handler: printer)
    return ExitStatus.success
}
