import YAJLCore

/// Counts events through the public typed-event layer, with path tracking on (it is also the
/// package's end-to-end speed probe).
final class StatsCounter: JSONEventHandler {
    var maps = 0, arrays = 0, keys = 0, strings = 0, integers = 0, doubles = 0, numbers = 0, booleans = 0, nulls = 0

    // Inlined into their protocol witnesses, which the parser calls: otherwise each witness is a
    // thunk calling the body, a call per event.
    @inline(__always) func startObject(context: JSONEventContext) throws { maps += 1 }
    @inline(__always) func startArray(context: JSONEventContext) throws { arrays += 1 }
    @inline(__always) func key(_ key: JSONStringView, context: JSONEventContext) throws { keys += 1 }
    @inline(__always) func string(_ value: JSONStringView, context: JSONEventContext) throws { strings += 1 }
    @inline(__always) func bool(_ value: Bool, context: JSONEventContext) throws { booleans += 1 }
    @inline(__always) func null(context: JSONEventContext) throws { nulls += 1 }
    @inline(__always) func number(_ value: JSONNumberView, context: JSONEventContext) throws {
        // The kind only: no conversion of the number (a count needs none).
        switch value.kind {
        case .integer: integers += 1
        case .double: doubles += 1
        case .unrepresentable: numbers += 1
        }
    }

    /// Adds another counter's counts (a block's, with `--threads`).
    func add(_ other: StatsCounter) {
        maps += other.maps
        arrays += other.arrays
        keys += other.keys
        strings += other.strings
        integers += other.integers
        doubles += other.doubles
        numbers += other.numbers
        booleans += other.booleans
        nulls += other.nulls
    }

    /// The counts as the JSON object `stats` prints (minified, by `yajl_gen`), and a newline.
    func json(bytes: Int, maxDepth: Int, badLines: Int? = nil) -> String {
        let counts =
            [
                ("bytes", bytes), ("maps", maps), ("arrays", arrays), ("keys", keys), ("strings", strings),
                ("integers", integers), ("doubles", doubles), ("numbers", numbers), ("booleans", booleans),
                ("nulls", nulls), ("max_depth", maxDepth),
            ] + (badLines.map { [("bad_lines", $0)] } ?? [])
        let members = counts.map { JSONObject.Member(key: $0.0, value: JSONValue(integerLiteral: $0.1)) }
        return JSONValue.object(JSONObject(members)).description + "\n"
    }
}

let statsCommand = Command(
    name: "stats",
    summary: "Count the document's events and print them as one JSON object.",
    usage: "[FILE|-] [options]",
    details: """
        Keys: bytes, maps, arrays, keys, strings, integers, doubles, numbers, booleans, nulls, max_depth.
        Numbers are counted as integers (no fraction or exponent, fits in 64 bits), doubles (finite)
        or numbers (neither, e.g. 1e400). max_depth is the most objects and arrays open at once.
        On invalid input nothing is printed on stdout; the error goes to stderr, exit status 1.
        """,
    options: parserOptionSpecs + [badLinesOptionSpec] + parallelOptionSpecs,
    maxInputs: 1
) { settings in
    if settings.values["--bad-lines"] == "skip" { return try statsSkippingBadLines(settings) }
    var options = settings
    options.parser.tracksPath = true
    let out = OutputBuffer()
    if let parallel = try parallelOptions(settings) {
        let total = StatsCounter()
        let summary = try JSONParser.parseInParallel(
            from: inputSource(options).source,
            options: options.parser,
            parallel: parallel,
            makeHandler: { StatsCounter() }
        ) { counter, _ in total.add(counter) }
        try out.write(total.json(bytes: summary.bytesConsumed, maxDepth: summary.maxDepthSeen))
    } else {
        let counter = StatsCounter()
        let parser = try parseInput(options, handler: counter)
        try out.write(counter.json(bytes: parser.bytesConsumed, maxDepth: parser.maxDepthSeen))
    }
    try out.flush()
    return ExitStatus.success
}

/// `stats --bad-lines skip`: NDJSON read line by line; each good line's value is counted as the
/// events would count it, the bad lines are skipped and reported on stderr.
func statsSkippingBadLines(_ settings: ToolSettings) throws -> Int32 {
    var options = JSONRecordOptions(parser: settings.parser)
    options.requireMatch = false  // zero values is a count like any other
    options.onBadLine = .skip
    options.parsesConcurrently = false
    let source = inputSource(settings).source
    let reader: JSONRecordReader<JSONValue>
    if let parallel = try parallelOptions(settings) {
        reader = try JSONRecordReader(JSONValue.self, at: "$", from: source, options: options, parallel: parallel)
    } else {
        reader = try JSONRecordReader(JSONValue.self, at: "$", from: source, options: options)
    }
    let (next, report) = (reader.next, reader.report)
    let c = StatsCounter()
    var maxDepth = 0
    // Each value's tokens in order, the open containers on the walk's explicit stack: no
    // recursion, whatever the depth.
    func count(_ value: JSONValue) {
        var depth = 0
        value.walk { (step: JSONValue.Step) in
            switch step {
            case .scalar(.null): c.nulls += 1
            case .scalar(.bool): c.booleans += 1
            case .scalar(.string): c.strings += 1
            case .scalar(.number(let number)):
                switch number.value {
                case .integer: c.integers += 1
                case .double: c.doubles += 1
                case .unrepresentable: c.numbers += 1
                }
            case .scalar: break  // containers come as start and end steps
            case .key: c.keys += 1
            case .startArray, .startObject:
                if case .startArray = step { c.arrays += 1 } else { c.maps += 1 }
                depth += 1
                maxDepth = max(maxDepth, depth)
            case .endArray, .endObject: depth -= 1
            }
        }
    }
    while let value = try next() { count(value) }
    reportBadLines(report)
    let out = OutputBuffer()
    try out.write(c.json(bytes: report.bytesRead, maxDepth: maxDepth, badLines: report.badLineCount))
    try out.flush()
    return ExitStatus.success
}
