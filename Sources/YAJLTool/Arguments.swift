import YAJLCore
import YAJLHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Settings gathered from the command line, shared by every command.
struct ToolSettings {
    var parser = JSONParser.Options()
    /// For an `http(s)://` input.
    var http = HTTPOptions()
    var inputs: [String] = []
    /// Command-specific values by option name (e.g. "kind", "size").
    var values: [String: String] = [:]
    /// `--threads N` (and `--block-size N`): NDJSON parsed on N threads.
    var parallel: JSONParallelOptions?
}

/// `--threads N` and `--block-size N`: NDJSON cut at newlines and parsed on N threads.
let parallelOptionSpecs: [OptionSpec] = [
    OptionSpec(
        name: "--threads",
        valueName: "N",
        help: "NDJSON: parse blocks of lines on N threads, in input order (implies --allow-multiple-values)"
    ) { settings, text in
        guard let threads = Int(text), JSONParallelOptions.threadsRange.contains(threads) else {
            throw UsageError(
                description:
                    "--threads expects a count from 1 to \(JSONParallelOptions.threadsRange.upperBound), not '\(text)'"
            )
        }
        var parallel = settings.parallel ?? JSONParallelOptions()
        parallel.threads = threads
        settings.parallel = parallel
        settings.parser.allowMultipleValues = true  // parallel input is NDJSON: one value per line
    },
    .size("--block-size", "with --threads: bytes per block, cut at its last newline (default 1M, from 1K)") {
        settings,
        size in
        var parallel = settings.parallel ?? JSONParallelOptions()
        parallel.blockSize = size
        settings.parallel = parallel
    },
]

/// The parallel options of the command line, checked against the parser's: `nil` without `--threads`.
func parallelOptions(_ settings: ToolSettings) throws -> JSONParallelOptions? {
    guard let parallel = settings.parallel else { return nil }
    guard !settings.parser.allowComments, !settings.parser.allowTrailingGarbage else {
        throw UsageError(description: "--threads cannot be combined with --allow-comments or --allow-trailing-garbage")
    }
    do {
        try parallel.validate()
    } catch {
        let flag = error.option.hasSuffix("blockSize") ? "--block-size" : "--threads"
        throw UsageError(description: "\(flag) is \(error.value); it must be \(error.allowed)")
    }
    return parallel
}

/// A command-line failure that is the user's to fix: exit status 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
}

/// One `--option`: its name, the value it takes (if any), its help line and what it sets.
struct OptionSpec: Sendable {
    let name: String
    let valueName: String?
    let help: String
    let apply: @Sendable (inout ToolSettings, String) throws -> Void

    static func flag(
        _ name: String,
        _ help: String,
        _ apply: @escaping @Sendable (inout ToolSettings) -> Void
    ) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help) { settings, _ in apply(&settings) }
    }

    static func size(
        _ name: String,
        _ help: String,
        _ apply: @escaping @Sendable (inout ToolSettings, Int) -> Void
    ) -> OptionSpec {
        OptionSpec(name: name, valueName: "N", help: help) { settings, text in
            apply(&settings, try parseSize(text, option: name))
        }
    }

    static func value(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help) { settings, text in settings.values[name] = text }
    }
}

/// `--bad-lines stop|skip`: NDJSON read line by line, malformed lines skipped and counted.
let badLinesOptionSpec = OptionSpec(
    name: "--bad-lines",
    valueName: "stop|skip",
    help: "NDJSON: stop at a malformed line (default), or skip it and count it on stderr"
) { settings, text in
    guard text == "stop" || text == "skip" else {
        throw UsageError(description: "--bad-lines is 'stop' or 'skip', not '\(text)'")
    }
    settings.values["--bad-lines"] = text
}

/// Says on stderr how many malformed lines were skipped, and the first few.
func reportBadLines(_ report: JSONRecordReport) {
    let count = report.badLineCount
    guard count > 0 else { return }
    standardError.write("yajl: warning: \(count) bad line\(count == 1 ? "" : "s") skipped\n")
    for bad in report.badLines.prefix(5) { standardError.write("yajl:   \(bad)\n") }
    if count > 5 { standardError.write("yajl:   …\n") }
}

/// The parser and HTTP options every reading command shares.
let parserOptionSpecs: [OptionSpec] = parserOnlyOptionSpecs + httpOptionSpecs

/// The options of an `http(s)://` input.
let httpOptionSpecs: [OptionSpec] = [
    OptionSpec(
        name: "--header",
        valueName: "'NAME: VALUE'",
        help: "HTTP request header (repeatable; sent to its URL's host only)"
    ) { settings, text in
        guard let colon = text.firstIndex(of: ":") else {
            throw UsageError(description: "--header expects 'Name: value', not '\(text)'")
        }
        let name = text[..<colon].trimmingASCIIWhitespace()
        let value = text[text.index(after: colon)...].trimmingASCIIWhitespace()
        do {
            try HTTPOptions(headers: [name: value]).validate()
        } catch let error as HTTPError {
            throw UsageError(description: "--header: \(error.reason)")
        }
        settings.http.headers[name] = value
    },
    OptionSpec(
        name: "--timeout",
        valueName: "S",
        help: "seconds to connect, and to stay below 1 KiB/s, per attempt (default 30)"
    ) { settings, text in
        settings.http.timeout = try parseSeconds(text, option: "--timeout")
    },
    OptionSpec(
        name: "--deadline",
        valueName: "S",
        help: "seconds for the whole download, retries included (default none)"
    ) { settings, text in
        settings.http.deadline = try parseSeconds(text, option: "--deadline")
    },
    OptionSpec(
        name: "--retries",
        valueName: "N",
        help: "retries after a drop, a refused reconnect, a 503 or 429 (default 5)"
    ) { settings, text in
        guard let retries = Int(text), (0...1000).contains(retries) else {
            throw UsageError(description: "--retries expects a count from 0 to 1000, not '\(text)'")
        }
        settings.http.maxRetries = retries
    },
    OptionSpec(name: "--cacert", valueName: "FILE", help: "PEM file of CA certificates to trust (a private CA)") {
        settings,
        text in
        guard FileManager.default.isReadableFile(atPath: text) else {
            throw UsageError(description: "--cacert: cannot read \(text)")
        }
        settings.http.caCertificates = text
    },
    .flag("--resume-unvalidated", "resume a dropped download even without ETag or Last-Modified") {
        $0.http.resumesWithoutValidator = true
    },
    OptionSpec(
        name: "--cache",
        valueName: "DIR",
        help: "spool a URL's body in DIR; a later run parses it from disk and fetches only the rest"
    ) { settings, text in
        guard !text.isEmpty else { throw UsageError(description: "--cache needs a directory") }
        settings.http.cacheDirectory = text
        settings.http.onCacheEvent = { event in standardError.write("yajl: \(event)\n") }
    },
    .size("--cache-max-bytes", "with --cache: evict the oldest spools past N bytes in all (default no limit)") {
        settings,
        size in
        settings.http.cacheMaxBytes = size
    },
    OptionSpec(
        name: "--segments",
        valueName: "N",
        help: "fetch a URL as N concurrent byte ranges, handed to the parser in order (default 1)"
    ) { settings, text in
        guard let segments = Int(text), (1...64).contains(segments) else {
            throw UsageError(description: "--segments expects a count from 1 to 64, not '\(text)'")
        }
        settings.http.segments = segments
    },
    OptionSpec(
        name: "--segment-size",
        valueName: "N",
        help: "bytes of one range with --segments (default 8M, from 64K to 1G)"
    ) {
        settings,
        text in
        let size = try parseSize(text, option: "--segment-size")
        guard (64 << 10...1 << 30).contains(size) else {
            throw UsageError(description: "--segment-size is \(text); it must be from 64K to 1G")
        }
        settings.http.segmentSize = size
    },
]

/// Seconds: a positive number up to 1,000,000.
func parseSeconds(_ text: String, option: String) throws -> TimeInterval {
    guard let seconds = Double(text), seconds > 0, seconds <= 1_000_000 else {
        throw UsageError(
            description: "\(option) expects seconds, a number from 0 (exclusive) to 1000000, not '\(text)'"
        )
    }
    return seconds
}

/// The parser options every reading command shares.
let parserOnlyOptionSpecs: [OptionSpec] = [
    .size("--chunk-size", "bytes per read (default 64K; suffixes K, M, G)") { $0.parser.chunkSize = $1 },
    .flag("--allow-comments", "accept /* */ and // comments") { $0.parser.allowComments = true },
    .flag("--allow-trailing-garbage", "ignore anything after the first value") {
        $0.parser.allowTrailingGarbage = true
    },
    .flag("--allow-multiple-values", "accept several top-level values (NDJSON, concatenated JSON)") {
        $0.parser.allowMultipleValues = true
    },
    .flag("--allow-partial-values", "accept input that ends inside a value") { $0.parser.allowPartialValues = true },
    .flag("--no-utf8-check", "do not reject invalid UTF-8 in strings") { $0.parser.validatesUTF8 = false },
    .size("--max-depth", "deepest nesting accepted (default 1000)") { $0.parser.maxDepth = $1 },
    .size("--max-token-bytes", "longest string, key or number buffered across reads (default 16M)") {
        $0.parser.maxTokenBytes = $1
    },
    .size("--max-document-bytes", "largest input accepted (default: no limit)") { $0.parser.maxDocumentBytes = $1 },
]

/// The command-line flag that raises each parser limit, for error messages.
let limitFlags: [String: String] = [
    "maxDepth": "--max-depth", "maxTokenBytes": "--max-token-bytes", "maxDocumentBytes": "--max-document-bytes",
]

/// A library option error in the words of the command line: `--chunk-size is 107374182400000;
/// it must be from 1 to 1073741824 (1 GiB)`.
func commandLineMessage(_ error: JSONOptionError) -> String {
    let flags = [
        "JSONParser.Options.chunkSize": "--chunk-size", "JSONParser.Options.maxDepth": "--max-depth",
        "JSONParser.Options.maxTokenBytes": "--max-token-bytes",
        "JSONParser.Options.maxDocumentBytes": "--max-document-bytes",
        "JSONWriter.Options.indent": "--indent-string",
    ]
    return JSONOptionError(option: flags[error.option] ?? error.option, value: error.value, allowed: error.allowed)
        .description
}

/// `123`, `64K`, `16M`, `1G` (binary multiples).
func parseSize(_ text: String, option: String) throws -> Int {
    let multipliers: [Character: Int] = [
        "K": 1 << 10, "k": 1 << 10, "M": 1 << 20, "m": 1 << 20, "G": 1 << 30, "g": 1 << 30,
    ]
    var digits = Substring(text)
    var multiplier = 1
    if let last = digits.last, let m = multipliers[last] {
        multiplier = m
        digits = digits.dropLast()
    }
    guard let value = Int(digits), value >= 0, value <= Int.max / multiplier else {
        throw UsageError(description: "\(option) expects a size such as 4096, 64K or 16M, not '\(text)'")
    }
    return value * multiplier
}

/// Parses `arguments` against `specs`: `--name value`, `--name=value`, positionals, `-` for stdin
/// and `--` to end the options.
func parseArguments(_ arguments: [String], specs: [OptionSpec], command: String) throws -> ToolSettings {
    var settings = ToolSettings()
    // A linear search of a few dozen specs, not a Dictionary: the first Dictionary keyed by String
    // in the process makes the runtime scan every protocol conformance of the binary (String:
    // Hashable), a large share of a short run's start-up.
    var index = 0
    var optionsEnded = false
    while index < arguments.count {
        let argument = arguments[index]
        index += 1
        if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
            settings.inputs.append(argument)
            continue
        }
        if argument == "--" {
            optionsEnded = true
            continue
        }
        var name = argument
        var inlineValue: String?
        if let equals = argument.firstIndex(of: "=") {
            name = String(argument[..<equals])
            inlineValue = String(argument[argument.index(after: equals)...])
        }
        guard let spec = specs.first(where: { $0.name == name }) else {
            throw UsageError(
                description: "unknown option '\(name)' for 'yajl \(command)' (see 'yajl \(command) --help')"
            )
        }
        if spec.valueName == nil {
            guard inlineValue == nil else { throw UsageError(description: "\(name) takes no value") }
            try spec.apply(&settings, "")
        } else if let value = inlineValue {
            try spec.apply(&settings, value)
        } else {
            guard index < arguments.count else { throw UsageError(description: "\(name) needs a value") }
            try spec.apply(&settings, arguments[index])
            index += 1
        }
    }
    return settings
}
