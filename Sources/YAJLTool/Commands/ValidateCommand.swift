import YAJL

/// Accepts every event and does nothing: validation is YAJL's parse plus our limits.
final class DiscardingHandler: JSONEventHandler {}

let validateCommand = Command(
    name: "validate",
    summary: "Check that the input is valid JSON. Prints nothing on success.",
    usage: "[FILE|-] [options]",
    details:
        "Exit status: 0 valid, 1 invalid (the error, with its line, column, byte and path, on stderr), 2 usage or I/O error.",
    options: parserOptionSpecs,
    maxInputs: 1
) { settings in
    try parseInput(settings, handler: DiscardingHandler())
    return ExitStatus.success
}
