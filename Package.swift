// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "swift-yajl",
    products: [
        .library(name: "YAJL", targets: ["YAJL"]),
        .library(name: "YAJLHTTP", targets: ["YAJLHTTP"]),
        .executable(name: "yajl", targets: ["YAJLTool"]),
    ],
    targets: [
        // libyajl from the system (Debian: libyajl-dev), plus a small shim for what Swift cannot call.
        .systemLibrary(
            name: "CYAJL",
            path: "Sources/CYAJL",
            pkgConfig: "yajl",
            providers: [.apt(["libyajl-dev"])]
        ),
        // The package's own C over libyajl, compiled once: the record tape's writer, the callbacks
        // that capture a selected value, the lean validation pass's callbacks, the UTF-8 check's
        // fast path, newline scans, number conversion and the Eisel-Lemire table.
        .target(name: "CYAJLSupport", dependencies: ["CYAJL"], path: "Sources/CYAJLSupport"),
        // libcurl's headers from the system (Debian: libcurl4-openssl-dev), for the HTTP(S) byte
        // source. Not linked: shim.h opens libcurl with dlopen on first use, so processes that never
        // read a URL do not load it.
        .systemLibrary(
            name: "CCurl",
            path: "Sources/CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // zlib from the system (Debian: zlib1g-dev), for `yajl split --gzip`.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        // The Swift library: byte sources, feeders, the parser bridge, typed events and paths,
        // records, the writer. FoundationEssentials only, so that a process using it alone (the
        // `yajl` tool) does not link Foundation, CoreFoundation or ICU's data: 3 MiB of RSS.
        .target(name: "YAJLCore", dependencies: ["CYAJL", "CYAJLSupport"], path: "Sources/YAJLCore"),
        // What users import: YAJLCore re-exported, plus what needs Foundation itself (FileHandle
        // and InputStream sources and sinks, DateFormatter strategies, JSONSerialization trees).
        .target(name: "YAJL", dependencies: ["YAJLCore"], path: "Sources/YAJL"),
        // HTTP(S) as a byte source, over libcurl. Its own module; libcurl (and OpenSSL and a dozen
        // more libraries, about 6 MiB of RSS) is loaded only when a URL is read.
        .target(name: "YAJLHTTP", dependencies: ["YAJLCore", "CCurl"], path: "Sources/YAJLHTTP"),
        // Synthetic documents of any size, streamed to disk: for `make demo`, tests and benchmarks.
        .target(name: "YAJLFixtures", dependencies: ["YAJLCore"], path: "Sources/YAJLFixtures"),
        // The `yajl` command-line tool.
        .executableTarget(
            name: "YAJLTool",
            dependencies: ["YAJLCore", "YAJLHTTP", "YAJLFixtures", "CZlib"],
            path: "Sources/YAJLTool"
        ),
        // Benchmarks: a C baseline straight over libyajl, and the side-by-side runner.
        .target(name: "CYAJLBaseline", dependencies: ["CYAJL"], path: "Benchmarks/CBaseline"),
        .executableTarget(
            name: "YAJLBenchmarks",
            dependencies: ["YAJL", "YAJLFixtures", "CYAJLBaseline"],
            path: "Benchmarks/YAJLBenchmarks"
        ),
        // Tests, one target per module, sharing one helper target (package access, no copies).
        .target(
            name: "YAJLTestSupport",
            dependencies: ["YAJL", "YAJLCore", "YAJLFixtures"],
            path: "Tests/YAJLTestSupport"
        ),
        .testTarget(
            name: "YAJLTests",
            dependencies: ["YAJL", "YAJLCore", "YAJLFixtures", "YAJLTestSupport"],
            path: "Tests/YAJLTests"
        ),
        .testTarget(
            name: "YAJLHTTPTests",
            dependencies: ["YAJL", "YAJLCore", "YAJLHTTP", "YAJLFixtures", "YAJLTestSupport"],
            path: "Tests/YAJLHTTPTests"
        ),
        .testTarget(
            name: "YAJLToolTests",
            dependencies: ["YAJL", "YAJLCore", "YAJLFixtures", "YAJLTestSupport"],
            path: "Tests/YAJLToolTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
