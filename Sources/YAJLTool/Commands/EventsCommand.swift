import YAJLCore

/// Prints each event as a one-line JSON array, in the format of YAJL's own event tests.
final class EventPrinter: JSONEventHandler {
    let out = OutputBuffer()

    func startObject(context: JSONEventContext) throws { try out.write("[\"start_map\"]\n") }
    func endObject(context: JSONEventContext) throws { try out.write("[\"end_map\"]\n") }
    func startArray(context: JSONEventContext) throws { try out.write("[\"start_array\"]\n") }
    func endArray(context: JSONEventContext) throws { try out.write("[\"end_array\"]\n") }
    func null(context: JSONEventContext) throws { try out.write("[\"null\"]\n") }
    func bool(_ value: Bool, context: JSONEventContext) throws {
        try out.write(value ? "[\"boolean\",true]\n" : "[\"boolean\",false]\n")
    }
    func key(_ key: JSONStringView, context: JSONEventContext) throws {
        try out.write("[\"map_key\",")
        try out.writeJSONString(key.bytes)
        try out.write("]\n")
    }
    func string(_ value: JSONStringView, context: JSONEventContext) throws {
        try out.write("[\"string\",")
        try out.writeJSONString(value.bytes)
        try out.write("]\n")
    }
    func number(_ value: JSONNumberView, context: JSONEventContext) throws {
        switch value.value {
        case .integer(let integer): try out.write("[\"integer\",\(integer)]\n")
        case .double(let double): try out.write("[\"double\",\(double)]\n")  // shortest round-trip form
        case .unrepresentable:
            try out.write("[\"number\",")
            try out.writeJSONString(value.bytes)
            try out.write("]\n")
        }
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
    } catch {
        try printer.out.flush()  // the events before the error
        throw error
    }
    try printer.out.flush()
    return ExitStatus.success
}
