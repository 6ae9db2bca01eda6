import YAJLCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

let reformatCommand = Command(
    name: "reformat",
    summary: "Re-indent or minify a document, streaming.",
    usage: "[FILE|-] [--minify] [--indent N | --indent-string S] [--escape-solidus] [options]",
    details: """
        The default is pretty output indented 4 spaces. --minify writes the same bytes as YAJL's own
        `json_reformat -m`, plus a final newline. Numbers are written exactly as in the input. On invalid
        input the error goes to stderr (exit 1); the output already written is the reformatted document
        up to the error, so it is a well-formed prefix, but not a complete document.
        """,
    options: parserOptionSpecs + [
        .flag("--minify", "no white space") { $0.values["--minify"] = "1" },
        OptionSpec(name: "--indent", valueName: "N", help: "indent with N spaces (default 4, at most 64)") {
            settings,
            text in
            guard let count = Int(text), (0...JSONWriter.Options.maxIndentBytes).contains(count) else {
                throw UsageError(
                    description:
                        "--indent is \(text); it must be a whole number from 0 to \(JSONWriter.Options.maxIndentBytes)"
                )
            }
            settings.values["--indent-string"] = String(repeating: " ", count: count)
        },
        .value("--indent-string", "S", "indent with the string S (e.g. a tab)"),
        .flag("--escape-solidus", "write / as \\/") { $0.values["--escape-solidus"] = "1" },
    ],
    maxInputs: 1
) { settings in
    var options = JSONWriter.Options()
    options.beautify = settings.values["--minify"] == nil
    options.indent = settings.values["--indent-string"] ?? "    "
    options.escapesSolidus = settings.values["--escape-solidus"] != nil
    // The parser checked the UTF-8 (or --no-utf8-check said not to).
    options.validatesUTF8 = false
    do {
        try options.validate()
    } catch let error as JSONOptionError {
        throw UsageError(description: commandLineMessage(error))
    }
    let writer = JSONWriter(to: .standardOutput, options: options)
    if settings.parser.allowMultipleValues { writer.allowMultipleValues(separator: options.beautify ? "" : "\n") }
    try writeStreaming(writer, finalNewline: !options.beautify) {
        try parseInput(settings, handler: JSONWritingHandler(writer: writer))
    }
    return ExitStatus.success
}

/// Runs `body` (which writes through `writer`), then finishes the output. On an error, what was
/// written so far is flushed (a well-formed prefix) before the error is passed on.
func writeStreaming(_ writer: JSONWriter, finalNewline: Bool, _ body: () throws -> Void) throws {
    do {
        try body()
        try writer.finish()
    } catch let error as JSONIOError where error.operation == .write {
        throw error  // the output itself failed: nothing more can be written
    } catch {
        writer.abandon()  // the output shows where the input broke: nothing is closed for it
        try writer.flush()  // a well-formed prefix; a failing output reports its own error
        throw error
    }
    if finalNewline {
        let newline = OutputBuffer()
        try newline.write("\n")
        try newline.flush()
    }
}

let toNDJSONCommand = Command(
    name: "to-ndjson",
    summary: "Alias of 'extract' with one JSONPATH and no progress line: the values as NDJSON.",
    usage: "JSONPATH [FILE|-] [options]",
    details: """
        The same output as 'yajl extract JSONPATH --quiet', byte for byte: one minified value per \
        line, numbers exactly as in the input. Kept as the name of the inverse of from-ndjson.
        """,
    options: parserOptionSpecs + [badLinesOptionSpec],
    maxInputs: 2
) { settings in
    guard settings.inputs.filter({ $0.hasPrefix("$") }).count == 1 else {
        throw UsageError(description: "to-ndjson needs exactly one JSONPath, e.g. '$.results[*]'")
    }
    var quiet = settings
    quiet.values["--quiet"] = "1"
    return try extractCommand.run(quiet)
}

let fromNDJSONCommand = Command(
    name: "from-ndjson",
    summary: "Collect NDJSON (or concatenated JSON) values into one JSON array.",
    usage: "[FILE|-] [options]",
    details: "Streaming: the array is written minified, numbers exactly as in the input, as the lines arrive.",
    options: parserOptionSpecs,
    maxInputs: 1
) { settings in
    var input = settings
    input.parser.allowMultipleValues = true
    let writer = JSONWriter(to: .standardOutput, options: JSONWriter.Options(validatesUTF8: false))
    try writeStreaming(writer, finalNewline: true) {
        try writer.startArray()
        let parser = JSONParser(options: input.parser, handler: JSONWritingHandler(writer: writer))
        do {
            try parser.parse(from: inputSource(input).source)
        } catch let error as JSONParseError where error.kind == .prematureEndOfInput && parser.topLevelValueCount == 0 {
            // Empty input, or only white space: no values, an empty array.
        }
        try writer.endArray()
    }
    return ExitStatus.success
}
