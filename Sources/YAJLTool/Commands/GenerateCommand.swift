import YAJLFixtures

let generateCommand = Command(
    name: "generate",
    summary: "Write a synthetic JSON document of a given size (for demos and benchmarks).",
    usage: "FILE [--kind records|ndjson|numbers|strings|dates] [--size N]",
    details: "The document is streamed to FILE; its expected counts are printed as JSON on stdout.",
    options: [
        .value("--kind", "KIND", "records (default), ndjson, numbers, strings or dates"),
        .value("--size", "N", "target size in bytes (default 256M; suffixes K, M, G)"),
    ],
    maxInputs: 1
) { settings in
    guard let path = settings.inputs.first, path != "-" else {
        throw UsageError(description: "generate needs an output FILE")
    }
    let kindName = settings.values["--kind"] ?? "records"
    guard let kind = DocumentGenerator.Kind(rawValue: kindName) else {
        throw UsageError(description: "unknown --kind '\(kindName)' (records, ndjson, numbers, strings, dates)")
    }
    let size = try parseSize(settings.values["--size"] ?? "256M", option: "--size")
    let counts = try DocumentGenerator.write(kind, targetBytes: size, to: path)
    print(#"{"file":"\#(path)","bytes":\#(counts.bytes),"records":\#(counts.records)}"#)
    return 0
}
