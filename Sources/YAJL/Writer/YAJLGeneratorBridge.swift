private import CYAJL

// The only file that calls libyajl's generator API. YAJL's print callback is a capture-free
// closure that reaches the output buffer through an unretained context pointer, like the parser's
// callbacks; it cannot throw, so the buffer records a sink error and the writer reports it.

/// The bytes YAJL prints, gathered into a bounded buffer that is handed to the sink as it fills.
final class GeneratorOutput {
    private(set) var buffer: [UInt8] = []
    let capacity: Int
    /// Where full buffers go.
    var sink: any JSONOutputSink
    /// A sink error raised inside the print callback, reported by the next writer call.
    var pendingError: (any Error)?

    init(sink: any JSONOutputSink, capacity: Int) {
        self.sink = sink
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    @inline(__always)
    func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { drain() }
    }

    /// Hands the buffered bytes to the sink.
    func drain() {
        guard !buffer.isEmpty, pendingError == nil else { return }
        do {
            try buffer.withUnsafeBytes { try sink.write($0) }
        } catch {
            pendingError = error
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// One `yajl_gen` handle printing into a `GeneratorOutput`.
final class YAJLGeneratorBridge {
    private let handle: OpaquePointer
    let output: GeneratorOutput
    /// YAJL keeps this pointer; it must live as long as the handle.
    private let indent: UnsafeMutablePointer<CChar>

    enum Status: Equatable {
        case ok
        case keysMustBeStrings
        case maxDepthExceeded
        case inErrorState
        case generationComplete
        case invalidNumber
        case invalidString
        case other
    }

    init(options: JSONWriter.Options, output: GeneratorOutput) {
        self.output = output
        indent = strdup(options.indent)
        guard let handle = yajl_gen_alloc(nil) else { fatalError("yajl_gen_alloc failed: out of memory") }
        self.handle = handle
        cyajl_gen_config_flag(handle, yajl_gen_beautify, options.beautify ? 1 : 0)
        cyajl_gen_config_indent(handle, indent)
        cyajl_gen_config_flag(handle, yajl_gen_validate_utf8, options.validatesUTF8 ? 1 : 0)
        cyajl_gen_config_flag(handle, yajl_gen_escape_solidus, options.escapesSolidus ? 1 : 0)
        cyajl_gen_config_print_callback(handle, { context, text, length in
            Unmanaged<GeneratorOutput>.fromOpaque(context.unsafelyUnwrapped)._withUnsafeGuaranteedRef {
                $0.append(UnsafeRawBufferPointer(start: text, count: length))
            }
        }, Unmanaged.passUnretained(output).toOpaque())
    }

    deinit {
        yajl_gen_free(handle)
        free(indent)
    }

    private func status(_ status: yajl_gen_status) -> Status {
        switch status {
        case yajl_gen_status_ok: return .ok
        case yajl_gen_keys_must_be_strings: return .keysMustBeStrings
        case yajl_max_depth_exceeded: return .maxDepthExceeded
        case yajl_gen_in_error_state: return .inErrorState
        case yajl_gen_generation_complete: return .generationComplete
        case yajl_gen_invalid_number: return .invalidNumber
        case yajl_gen_invalid_string: return .invalidString
        default: return .other
        }
    }

    func openObject() -> Status { status(yajl_gen_map_open(handle)) }
    func closeObject() -> Status { status(yajl_gen_map_close(handle)) }
    func openArray() -> Status { status(yajl_gen_array_open(handle)) }
    func closeArray() -> Status { status(yajl_gen_array_close(handle)) }
    func null() -> Status { status(yajl_gen_null(handle)) }
    func bool(_ value: Bool) -> Status { status(yajl_gen_bool(handle, value ? 1 : 0)) }
    func integer(_ value: Int64) -> Status { status(yajl_gen_integer(handle, value)) }

    /// A number written exactly as `text` (which must be valid JSON number text).
    func number(_ text: UnsafeRawBufferPointer) -> Status {
        status(yajl_gen_number(handle, text.baseAddress?.assumingMemoryBound(to: CChar.self), text.count))
    }

    /// A string or key: YAJL escapes it.
    func string(_ utf8: UnsafeRawBufferPointer) -> Status {
        status(yajl_gen_string(handle, utf8.baseAddress?.assumingMemoryBound(to: UInt8.self), utf8.count))
    }

    /// Starts a new top-level value after a complete one, printing `separator` between them.
    func reset(separator: String) {
        separator.withCString { yajl_gen_reset(handle, $0) }
    }
}
