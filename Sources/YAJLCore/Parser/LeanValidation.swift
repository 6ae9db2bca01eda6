private import CYAJL
private import CYAJLSupport

/// The first pass of ``JSONParser/validate(_:options:)`` over a source that can be read again
/// (``RestartableByteSource``): YAJL with almost no callbacks, the same strict UTF-8 check, and no
/// path, position or event bookkeeping, so that a valid document costs about what `json_verify`
/// costs. It never reports an error itself: whatever it cannot accept (invalid input, a limit,
/// anything it cannot decide) sends the caller to the full pass, which reads the source again and
/// finds the same error, with its line, column, offset and path, as a parse with a handler would.
///
/// It accepts only documents the full pass accepts:
/// - YAJL is configured by ``YAJLParserBridge/configure(_:_:)``, and ``UTF8Validator`` sees the
///   same bytes (after the same byte order mark), so the input's validity is decided alike;
/// - objects and arrays are counted exactly, so ``JSONParser/Options/maxDepth`` is the same;
/// - a token longer than ``JSONParser/Options/maxTokenBytes`` is that many bytes without any
///   event, and strings and keys are the only values this pass never sees: it gives up once the
///   bytes from the start of the last read in which it saw a value to the end of the current
///   read (which may hold the next value at its end) are more than the limit, so earlier than
///   the full pass would fail, never later (YAJL then never buffers more of a token than the
///   limit). Scalars are seen only in reads that follow a read without a container event: where
///   containers open and close in every read, a callback per number would cost a tenth of
///   YAJL's own time for nothing, and a read in which scalars were not watched counts as a read
///   without a value (earlier, never later);
/// - it gives up past ``JSONParser/Options/maxDocumentBytes``.
enum LeanValidation {
    enum Verdict {
        /// The document is valid: the full pass would accept it.
        case valid
        /// Not decided here: run the full pass.
        case undecided
    }

    /// Reads grow while no value is seen (as ``ChunkFeeder`` does for a token spanning reads), up
    /// to this, so that a long string is not re-scanned by YAJL from its start on every read.
    static let maxReadSize = 1 << 20

    /// Inputs longer than this are read ahead on a second thread (``LeanChunks``): about where
    /// the read and UTF-8 time saved outweighs starting a thread and handing reads across cores.
    static let readAheadAfter = 4 << 20

    static func run(
        _ source: some JSONByteSource,
        options: JSONParser.Options,
        readAheadAfter: Int = readAheadAfter
    ) throws -> Verdict {
        do { try options.validate() } catch { return .undecided }
        // What the callbacks (lean_validation.h) keep.
        let state = UnsafeMutablePointer<cyajl_lean_state>.allocate(capacity: 1)
        state.initialize(to: cyajl_lean_state(depth: 0, max_depth: options.maxDepth, saw_value: 0, saw_container: 0))
        defer { state.deallocate() }
        // This run's own table: YAJL reads it at every event, so scalars are switched on and off
        // between reads by changing it.
        let callbacks = UnsafeMutablePointer<yajl_callbacks>.allocate(capacity: 1)
        callbacks.initialize(to: cyajl_lean_callbacks(0))
        defer { callbacks.deallocate() }
        guard let handle = yajl_alloc(callbacks, nil, UnsafeMutableRawPointer(state)) else {
            fatalError("yajl_alloc failed: out of memory")
        }
        defer { yajl_free(handle) }
        YAJLParserBridge.configure(handle, options)

        var chunks = LeanChunks(
            source: source,
            options: options,
            maxReadSize: maxReadSize,
            readAheadAfter: readAheadAfter
        )
        defer { chunks.finish() }
        let tokenLimit = min(max(options.maxTokenBytes, 1), JSONParser.Options.maxTokenBytesRange.upperBound)
        var sinceValue = 0
        reading: while true {
            let chunk: UnsafeRawBufferPointer
            switch try chunks.next() {
            case .chunk(let read, _): chunk = read
            case .end: break reading
            case .undecided: return .undecided
            }
            state.pointee.saw_value = 0
            state.pointee.saw_container = 0
            if !chunk.isEmpty {
                let bytes = chunk.baseAddress!.assumingMemoryBound(to: UInt8.self)
                guard yajl_parse(handle, bytes, chunk.count) == yajl_status_ok else { return .undecided }
            }
            let sawValue = state.pointee.saw_value != 0
            // A token that ends in this read may have begun anywhere since the start of the last
            // read with a value: all of that counts before this read's value resets the count
            // (a read's value may be at its very end).
            let span = sinceValue + chunk.count
            if span > tokenLimit { return .undecided }
            sinceValue = sawValue ? chunk.count : span
            callbacks.pointee = cyajl_lean_callbacks(state.pointee.saw_container != 0 ? 0 : 1)
            chunks.adapt(producedEvents: sawValue)
        }
        guard chunks.hasInput, yajl_complete_parse(handle) == yajl_status_ok else { return .undecided }
        // Input that ends inside a string after a complete value: the full pass's error
        // (JSONParser.rejectOpenStringAtEnd, with the same probe).
        callbacks.pointee = cyajl_probe_callbacks()
        let probe = JSONParser.openStringProbe
        guard yajl_parse(handle, probe.utf8Start, probe.utf8CodeUnitCount) == yajl_status_ok else { return .undecided }
        return .valid
    }

    /// The pass's checks of each read: the document limit, a byte order mark at the start
    /// (skipped, but counted in offsets, as in the full pass) and the UTF-8 check. Run where the
    /// reads happen: the caller's thread, or ``LeanReadAhead``'s.
    struct Reads {
        enum Next {
            /// A read to check, without a byte order mark, and its absolute offset.
            case chunk(UnsafeRawBufferPointer, base: Int)
            /// The input has ended.
            case end
            /// Past the document limit, invalid UTF-8, or a mark split by the first read: the
            /// full pass decides.
            case undecided
        }

        let options: JSONParser.Options
        var utf8 = UTF8Validator()
        /// Bytes read so far, a byte order mark included.
        private(set) var total = 0

        init(options: JSONParser.Options) {
            self.options = options
        }

        /// What the pass does with `read`, the next bytes of the input (empty at its end).
        mutating func check(_ read: UnsafeRawBufferPointer) -> Next {
            var chunk = read
            if chunk.isEmpty { return .end }
            var base = total
            total += chunk.count
            if let limit = options.maxDocumentBytes, total > limit { return .undecided }
            if base == 0 {
                guard let rest = LeanValidation.withoutByteOrderMark(chunk) else { return .undecided }
                base = chunk.count - rest.count
                chunk = rest
            }
            if options.validatesUTF8, utf8.validate(chunk, base: base) != nil { return .undecided }
            return .chunk(chunk, base: base)
        }
    }

    /// The first read without a byte order mark at its start; `nil` when the read is shorter
    /// than a mark and could be the start of one (the full pass handles a mark split by reads).
    private static func withoutByteOrderMark(_ chunk: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let prefix = min(3, chunk.count)
        guard chunk.prefix(prefix).elementsEqual(mark.prefix(prefix)) else { return chunk }
        guard chunk.count >= 3 else { return nil }
        return UnsafeRawBufferPointer(rebasing: chunk[3...])
    }
}
