import YAJLCore
import YAJLHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `yajl`: streaming JSON tools for data-import work, over libyajl.
@main
struct YAJLTool {
    /// The commands by name, each made when first asked for: a run makes only its own command's
    /// option table and closures, which counts for a short run.
    static let commandsByName: [(name: String, command: @Sendable () -> Command)] = [
        ("validate", { validateCommand }), ("events", { eventsCommand }), ("stats", { statsCommand }),
        ("extract", { extractCommand }), ("reformat", { reformatCommand }), ("to-ndjson", { toNDJSONCommand }),
        ("from-ndjson", { fromNDJSONCommand }), ("split", { splitCommand }), ("generate", { generateCommand }),
    ]

    /// All the commands, for the help text.
    static var commands: [Command] { commandsByName.map { $0.command() } }

    static let help = """
        usage: yajl COMMAND [FILE|-] [options]
               yajl --version | --help

        Streaming JSON tools over libyajl: any document size, in bounded memory.
        FILE is a path or an http(s):// URL, and defaults to standard input ('-').

        commands:
        \(commands.map { "  " + $0.name.padded(to: 12) + $0.summary }.joined(separator: "\n"))

        Run 'yajl COMMAND --help' for a command's options.
        Exit status: 0 success, 1 invalid JSON (or a download that could not be resumed),
        2 usage or I/O error (including HTTP errors and refused connections).
        """

    static func main() {
        Syscalls.exit(run(Array(CommandLine.arguments.dropFirst())))
    }

    static func run(_ arguments: [String]) -> Int32 {
        guard let name = arguments.first else {
            standardError.write(help + "\n")
            return ExitStatus.usage
        }
        if name == "--help" || name == "-h" || name == "help" {
            print(help)
            return ExitStatus.success
        }
        if name == "--version" || name == "-V" {
            print("yajl \(SwiftYAJLVersion.package) (swift-yajl), libyajl \(SwiftYAJLVersion.yajl)")
            return ExitStatus.success
        }
        guard let command = commandsByName.first(where: { $0.name == name })?.command() else {
            standardError.write("yajl: error: unknown command '\(name)'\n\n\(help)\n")
            return ExitStatus.usage
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            print(command.help, terminator: "")
            return ExitStatus.success
        }
        do {
            let settings = try parseArguments(rest, specs: command.options, command: command.name)
            do {
                try settings.parser.validate()
            } catch {
                throw UsageError(description: commandLineMessage(error))
            }
            if settings.inputs.count > command.maxInputs {
                throw UsageError(
                    description: "too many inputs for 'yajl \(command.name)': \(settings.inputs.joined(separator: " "))"
                )
            }
            return try command.run(settings)
        } catch {
            return exitStatus(reporting: error)
        }
    }

    /// Reports `error` on standard error and returns its exit status. A function of its own, called
    /// only on an error: the casts to each error type need the types' metadata, which `run` looked
    /// up (and paged in) on every start when the casts were its own `catch` clauses.
    @inline(never)
    static func exitStatus(reporting error: any Error) -> Int32 {
        switch error {
        case let error as JSONParseError:
            report(error)
            return ExitStatus.invalidInput
        case let error as UsageError:
            standardError.write("yajl: error: \(error.description)\n")
            return ExitStatus.usage
        case let error as HTTPError:
            // Every network failure is an I/O error, like a missing file: the URL, the byte
            // offset reached and the reason.
            standardError.write("yajl: error: \(error.description)\n")
            return ExitStatus.usage
        case let error as JSONWriterError:
            standardError.write("yajl: error: \(error.description)\n")
            return ExitStatus.invalidInput
        case let error as JSONRecordDecodingError:
            standardError.write("yajl: error: \(error.description)\n")
            return ExitStatus.invalidInput
        case let error as JSONPathBufferError:
            // A limit, like the parser's: exit 1.
            standardError.write("yajl: error: \(error.description)\n")
            return ExitStatus.invalidInput
        case let error as JSONPathPatternError:
            standardError.write("yajl: error: \(error.description)\n")
            return ExitStatus.invalidInput
        case let error as JSONIOError:
            standardError.write("yajl: error: \(error.description)\n")
            return ExitStatus.usage
        default:
            standardError.write("yajl: error: \(error)\n")
            return ExitStatus.usage
        }
    }
}
