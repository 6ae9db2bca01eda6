import YAJLCore

let validateCommand = Command(
    name: "validate",
    summary: "Check that the input is valid JSON. Prints nothing on success.",
    usage: "[FILE|-] [options]",
    details:
        "Exit status: 0 valid, 1 invalid (the error, with its line, column, byte and path, on stderr), 2 usage or I/O error.",
    options: parserOptionSpecs + parallelOptionSpecs,
    maxInputs: 1
) { settings in
    // No event is delivered: YAJL's parse plus our limits, UTF-8 check and error locations.
    let (_, source) = inputSource(settings)
    if let parallel = try parallelOptions(settings) {
        try JSONParser.validateInParallel(source, options: settings.parser, parallel: parallel)
    } else {
        try JSONParser.validate(source, options: settings.parser)
    }
    return ExitStatus.success
}
