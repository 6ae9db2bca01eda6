import Foundation
import YAJL
import YAJLFixtures

/// The loopback HTTP server of scripts/test-http-server.py, started for one test.
package final class TestHTTPServer {
    package let port: Int
    package let log: TemporaryFile
    private let process: Process

    package static let script = SharedMaterial.packageRoot.appendingPathComponent("scripts/test-http-server.py").path
    package static let python: String? = {
        for path in ["/usr/bin/python3", "/usr/local/bin/python3"]
        where FileManager.default.isExecutableFile(atPath: path) { return path }
        print("⚠️  SKIPPING network tests: python3 is not installed (scripts/install-deps.sh installs it)")
        return nil
    }()

    package let scheme: String

    package init(serving file: String, _ arguments: [String] = []) throws {
        scheme = arguments.contains("--tls") ? "https" : "http"
        log = TemporaryFile("server.log")
        process = Process()
        guard let python = Self.python else { throw TestSupportError("python3 is not installed") }
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Self.script, file, "--log", log.path, "--idle", "60"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let port = Int(text.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
        else {
            throw TestSupportError("the test server did not say its port: \(text)")
        }
        self.port = port
    }

    package var url: URL { URL(string: "\(scheme)://127.0.0.1:\(port)/doc.json")! }

    /// The Range headers the server received, in order.
    package var ranges: [String] {
        ((try? String(contentsOfFile: log.path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("Range=") }.map { String($0.dropFirst(6)) }
        }
    }

    /// The server's log: one line per request.
    package var requests: [String] {
        ((try? String(contentsOfFile: log.path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix("GET ") }
    }

    /// Each response's status, the offset its body started at, and the body bytes it sent.
    package var sent: [(status: Int, start: Int, bytes: Int)] {
        ((try? String(contentsOfFile: log.path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 4, fields[0] == "SENT", let status = Int(fields[1]), let start = Int(fields[2]),
                let bytes = Int(fields[3])
            else { return nil }
            return (status, start, bytes)
        }
    }

    /// A generated 8 MiB records document served by the network tests, with its events' digest
    /// and count (parsed from the file), made once per test process.
    package static let document: (path: String, digest: UInt64, events: Int) = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "swift-yajl-http-\(ProcessInfo.processInfo.processIdentifier).json"
        ).path
        _ = try? DocumentGenerator.write(.records, targetBytes: 8 << 20, to: path)
        let local = EventDigest()
        _ = try? JSONParser(handler: local).parse(from: .file(path))
        return (path, local.digest, local.events)
    }()

    package func stop() {
        process.terminate()
        process.waitUntilExit()
        log.remove()
    }
}

/// A test helper's failure, in words.
package struct TestSupportError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
