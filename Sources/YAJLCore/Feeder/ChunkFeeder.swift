// Feeder/: reads a source in bounded chunks for a parser, growing a read only while a token spans
// it; calls Source/.

/// Reads a byte source into a buffer and feeds the parser, in bounded chunks.
///
/// Normally each read asks for ``JSONParser/Options/chunkSize`` bytes (one `read`, whatever the
/// source has). When a chunk produced no event, a token is spanning reads, and YAJL re-scans a
/// buffered token from its start on every call (quadratic in the token's length), so the next read
/// is doubled and filled completely, up to ``JSONParser/Options/maxTokenBytes``. Once events flow
/// again, reads return to the base size and an enlarged buffer is released.
struct ChunkFeeder {
    /// The size of a normal read (``JSONParser/Options/chunkSize``).
    let baseSize: Int
    private let maxSize: Int
    private(set) var readSize: Int
    private var buffer: UnsafeMutableRawBufferPointer

    /// A feeder for `options`; `maxReadSize` caps how far reads grow (default: the options'
    /// ``JSONParser/Options/maxReadSize``).
    init(options: JSONParser.Options, maxReadSize: Int? = nil) {
        baseSize = options.effectiveChunkSize
        maxSize = max(baseSize, min(options.maxReadSize, maxReadSize ?? options.maxReadSize))
        readSize = baseSize
        buffer = .allocate(byteCount: baseSize, alignment: 16)
    }

    func deallocate() { buffer.deallocate() }

    /// Whether reads are being grown because a token spans them.
    var isGrowing: Bool { readSize > baseSize }

    /// The buffer for the next read, sized to ``readSize``.
    mutating func nextBuffer() -> UnsafeMutableRawBufferPointer {
        if buffer.count != readSize {
            buffer.deallocate()
            buffer = .allocate(byteCount: readSize, alignment: 16)
        }
        return buffer
    }

    /// Adjusts the next read after the parser consumed a chunk.
    mutating func adapt(producedEvents: Bool) {
        if producedEvents {
            readSize = baseSize
        } else {
            readSize = min(maxSize, readSize * 2)
        }
    }

    /// Reads the next chunk from `source`: one `read`, or a full buffer while a token spans reads.
    /// Empty at the end of the input.
    mutating func read(from source: inout some JSONByteSource) throws -> UnsafeRawBufferPointer {
        let buffer = nextBuffer()
        let count = try Self.read(into: buffer, filling: isGrowing, from: &source)
        return UnsafeRawBufferPointer(rebasing: buffer[..<count])
    }

    /// One read into `buffer`, or, when `filling` (a grown read), as many as fill it, so that YAJL
    /// sees the spanning token in one go; the count read. Also ``LeanReadAhead``'s reads.
    static func read(
        into buffer: UnsafeMutableRawBufferPointer,
        filling: Bool,
        from source: inout some JSONByteSource
    ) throws -> Int {
        filling ? try source.readFully(into: buffer) : try source.read(into: buffer)
    }

    /// Reads the next chunk from an asynchronous source (as ``read(from:)-sync``). Task
    /// cancellation is checked before the read and when the source reports its end, and throws
    /// `CancellationError`: many async sequences (`AsyncStream` among them) end early when their
    /// task is cancelled, and that is not the end of the document.
    nonisolated(nonsending) mutating func read(
        from source: inout some AsyncJSONByteSource
    ) async throws -> UnsafeRawBufferPointer {
        try Task.checkCancellation()
        let buffer = nextBuffer()
        let count = isGrowing ? try await source.readFully(into: buffer) : try await source.read(into: buffer)
        if count == 0 { try Task.checkCancellation() }
        return UnsafeRawBufferPointer(rebasing: buffer[..<count])
    }

    /// Parses a chunk from ``read(from:)-sync`` (finishing the document at the end of the input)
    /// and adapts the next read.
    mutating func feed(_ chunk: UnsafeRawBufferPointer, to parser: JSONParser) throws {
        if chunk.isEmpty {
            try parser.finish()
            return
        }
        try parser.parse(chunk)
        adapt(producedEvents: parser.lastChunkProducedEvents)
    }
}

extension JSONParser {
    /// Parses a whole document from `source`, reading it in chunks of ``Options/chunkSize`` bytes,
    /// then calls ``finish()``.
    ///
    /// Memory stays bounded by the chunk size plus the largest token, whatever the document's size.
    /// If the handler stops the parse, reading stops at once and ``State/stopped`` is returned.
    ///
    /// - Throws: ``JSONParseError``, the source's I/O error (e.g. ``JSONSourceError``), or the
    ///   handler's own error, unchanged.
    @discardableResult
    public func parse(from source: some JSONByteSource) throws -> State {
        if state == .parsing { try rejectInvalidOptions() }  // before the read buffer is allocated
        var source = source
        var feeder = ChunkFeeder(options: options)
        defer { feeder.deallocate() }
        while state == .parsing { try feeder.feed(try feeder.read(from: &source), to: self) }
        return state
    }

    /// Parses a whole document from a source that reads both ways (such as `HTTPByteSource` from `YAJLHTTP`), asynchronously,
    /// so that task cancellation reaches it.
    @discardableResult
    nonisolated(nonsending)
        public func parse<Source: JSONByteSource & AsyncJSONByteSource>(from source: Source) async throws -> State
    {
        try await parseAsync(from: source)
    }

    /// Parses a whole document from an asynchronous source, then calls ``finish()``.
    ///
    /// Parsing is synchronous between reads: the task suspends only to wait for bytes. Task
    /// cancellation is checked before every read, and when the source reports its end, and ends
    /// the parse with `CancellationError` (never with a truncated-input error).
    @discardableResult
    nonisolated(nonsending)
        public func parse(from source: some AsyncJSONByteSource) async throws -> State
    {
        if state == .parsing { try rejectInvalidOptions() }  // before the read buffer is allocated
        return try await parseAsync(from: source)
    }

    nonisolated(nonsending)
        private func parseAsync(from source: some AsyncJSONByteSource) async throws -> State
    {
        var source = source
        var feeder = ChunkFeeder(options: options)
        defer { feeder.deallocate() }
        while state == .parsing { try feeder.feed(try await feeder.read(from: &source), to: self) }
        return state
    }
}
