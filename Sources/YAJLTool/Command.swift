import YAJLCore
import YAJLHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One `yajl` command: its name, help and options, and what it runs.
struct Command: Sendable {
    let name: String
    let summary: String
    let usage: String
    let details: String
    let options: [OptionSpec]
    let maxInputs: Int
    /// Runs the command; returns the exit status.
    let run: @Sendable (ToolSettings) throws -> Int32

    /// The usage, then the command's own options, then the input, parser and HTTP options
    /// every reading command shares.
    var help: String {
        var text = "usage: yajl \(name) \(usage)\n\n\(summary)\n"
        if !details.isEmpty { text += "\n\(details)\n" }
        func line(_ option: OptionSpec) -> String {
            let left = option.valueName.map { "\(option.name) \($0)" } ?? option.name
            return "  " + left.padded(to: 28) + option.help + "\n"
        }
        let sharedNames = Set(parserOptionSpecs.map(\.name))
        let own = options.filter { !sharedNames.contains($0.name) }
        let shared = options.filter { sharedNames.contains($0.name) }
        text += "\n\(name) options:\n"
        for option in own { text += line(option) }
        text += "  " + "-h, --help".padded(to: 28) + "show this help\n"
        if !shared.isEmpty {
            text += "\ninput, parser and HTTP options (shared by the reading commands):\n"
            for option in shared { text += line(option) }
        }
        return text
    }
}

/// The standard exit statuses of `yajl`.
enum ExitStatus {
    static let success: Int32 = 0
    /// The input is not valid JSON (or hit a limit).
    static let invalidInput: Int32 = 1
    /// `extract --require-match` selected nothing.
    static let noMatch: Int32 = 1
    /// Usage or I/O error.
    static let usage: Int32 = 2
}

/// The input named on the command line: a file, an `http(s)://` URL, or standard input for `-` or nothing.
func inputSource(_ settings: ToolSettings, http: HTTPOptions? = nil) -> (name: String, source: any JSONByteSource) {
    guard let path = settings.inputs.first, path != "-" else {
        return ("stdin", FileDescriptorByteSource(fileDescriptor: 0, name: "stdin"))
    }
    if HTTPByteSource.isHTTPURL(path), let url = URL(string: path) {
        return (path, HTTPByteSource(url: url, options: http ?? settings.http))
    }
    return (path, FileByteSource(path: path))
}

/// Parses the command's input with `handler`, using the command line's parser options.
@discardableResult
func parseInput(_ settings: ToolSettings, handler: some JSONEventHandler) throws -> JSONParser {
    let parser = JSONParser(options: settings.parser, handler: handler)
    let (_, source) = inputSource(settings)
    try parser.parse(from: source)
    return parser
}

/// Prints a parse error the way every command does: the description (with the command-line flag
/// that raises a limit), then the excerpt with a caret.
func report(_ error: JSONParseError) {
    var text = error.detailedDescription
    if let option = error.limitOption, let flag = limitFlags[option] {
        text = text.replacing("raise Options.\(option)", with: "raise \(flag)")
    }
    // Options a message names that are switches here.
    text = text.replacing("Options.allowPartialValues", with: "--allow-partial-values")
    text = text.replacing(
        "set JSONParser.Options.allowMultipleValues, or --allow-multiple-values in the tool",
        with: "add --allow-multiple-values"
    )
    standardError.write("yajl: error: \(text)\n")
}

/// Writes to standard error, unbuffered.
struct StandardError {
    func write(_ text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { try? Syscalls.writeAll(2, $0, target: "standard error") }
    }
}
let standardError = StandardError()
