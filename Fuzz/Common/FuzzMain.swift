// The entry points libFuzzer calls. The three targets are one binary, so that the library's
// sources are compiled once for all of them (scripts/fuzz.sh); `YAJL_FUZZ_TARGET` picks the one a
// process runs: `YAJL_FUZZ_TARGET=parser .build/fuzz/fuzz crash-file` replays a finding.

#if canImport(Glibc)
import Glibc
#endif

/// The target named by `YAJL_FUZZ_TARGET`, or nil when it names none.
let selectedTarget: (@Sendable (UnsafePointer<UInt8>?, Int) -> CInt)? = {
    switch getenv("YAJL_FUZZ_TARGET").map({ String(cString: $0) }) {
    case "parser": return fuzzParser
    case "path": return fuzzPath
    case "writer": return fuzzWriter
    default: return nil
    }
}()

/// Called once before any input: refuses to start without a known target.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(
    _ argc: UnsafeMutablePointer<CInt>?,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> CInt {
    if selectedTarget == nil {
        let message = "fuzz: set YAJL_FUZZ_TARGET to parser, path or writer\n"
        _ = message.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
        exit(2)
    }
    return 0
}

/// One input, to the selected target.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedTarget!(data, size)
}
