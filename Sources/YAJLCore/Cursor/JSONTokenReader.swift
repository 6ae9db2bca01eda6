// Cursor/: the pull cursor over a parse (JSONTokenReader) and the token log it reads; calls
// Parser/, Capture/, Decoding/.

/// A pull cursor over a document, as Jackson's `JsonParser` or ijson's `parse`: ask for the next
/// token, skip a subtree without materializing it, or decode the value at the cursor into a
/// `Decodable` (or a ``JSONValue``) and go on after it. For hand-written readers of irregular
/// documents.
///
/// ```swift
/// let reader = JSONTokenReader(from: .file("export.json"))
/// while let token = try reader.next() {
///     guard case .key(let key) = token else { continue }
///     switch key {
///     case "meta": _ = try reader.next(); meta = try reader.decode(Meta.self)
///     case "debug": _ = try reader.next(); try reader.skipValue()
///     default: break
///     }
/// }
/// ```
///
/// It is built on the push parser: a chunk is parsed at a time and its tokens are kept until they
/// are read, so memory is one chunk's tokens (plus, for ``decode(_:options:)`` and ``value()``,
/// the value decoded), never the document.
public final class JSONTokenReader {
    private var source: any JSONByteSource
    private let parser: JSONParser
    private let log = TokenLog()
    private var feeder: ChunkFeeder
    private var cursor = 0
    /// An input error, held back until the tokens before it have been read.
    private var failure: (any Error)?
    /// The error ``next()`` threw: thrown again by every later call.
    private var thrown: (any Error)?
    /// The token last returned by ``next()``.
    private var current: TokenLog.Entry?
    /// The open containers: the component of the current child in each.
    private var frames: [(isArray: Bool, component: JSONPath.Component?)] = []

    /// A reader of the document in `source`.
    public init(from source: some JSONByteSource, options: JSONParser.Options = JSONParser.Options()) {
        self.source = source
        parser = JSONParser(options: options, handler: log)
        feeder = ChunkFeeder(options: options)
    }

    deinit { feeder.deallocate() }

    // MARK: Where the cursor is

    /// The path of the token last read (for a key: of its member; for an end: of the container).
    public var path: JSONPath { JSONPath(frames.compactMap(\.component)) }
    /// How many objects and arrays enclose the token last read (a start or an end not counting its
    /// own container).
    public var depth: Int {
        guard let current else { return 0 }
        return current.kind == .startObject || current.kind == .startArray ? frames.count - 1 : frames.count
    }
    /// The 1-based line of the token last read.
    public var line: Int { current?.position.line ?? 1 }
    /// The 1-based column where the token last read starts.
    public var column: Int { current?.position.column ?? 1 }
    /// The byte offset where the token last read starts.
    public var byteOffset: Int { current?.position.offset ?? 0 }

    // MARK: Reading

    /// The next token, or `nil` at the end of the document.
    /// - Throws: ``JSONParseError`` (after the tokens before the error), or the source's error.
    public func next() throws -> JSONEvent? {
        guard let entry = try advance() else { return nil }
        return log.event(entry)
    }

    /// Skips the value that the token last read starts: after `startObject` or `startArray`, up to
    /// its end (nothing is kept); after a scalar, or when the cursor is not at a value's start,
    /// nothing.
    public func skipValue() throws {
        guard let current, current.kind == .startObject || current.kind == .startArray else { return }
        var open = 1
        while open > 0, let entry = try advance() {
            switch entry.kind {
            case .startObject, .startArray: open += 1
            case .endObject, .endArray: open -= 1
            default: break
            }
        }
    }

    /// Decodes the value that the token last read starts (a scalar, or an object or array up to its
    /// end) and leaves the cursor on its last token. With the record decoder's strategies and
    /// errors located in the document.
    /// - Throws: ``JSONRecordDecodingError``, ``JSONParseError``, or ``JSONReaderUsageError`` when
    ///   the cursor is not at a value's start.
    public func decode<T: Decodable>(
        _ type: T.Type,
        options: JSONRecordDecodingOptions = JSONRecordDecodingOptions()
    )
        throws -> T
    {
        let (tape, path) = try captureValue()
        var recordOptions = JSONRecordOptions()
        recordOptions.decoding = options
        let decoder = RecordDecoder<T>(options: recordOptions, report: JSONRecordReport(maxKept: 0))
        let selected = SelectedValue(
            start: 0,
            positionStart: 0,
            positionRoot: 0,
            path: path,
            queryIndex: 0,
            topLevelIndex: 0,
            line: 0,
            byteOffset: 0
        )
        guard let record = try decoder.decodeRecord([selected], 0, from: tape.view) else {
            throw JSONReaderUsageError(message: "the value could not be decoded")
        }
        return record.value
    }

    /// The value that the token last read starts, owned; the cursor is left on its last token.
    /// - Throws: ``JSONParseError``, or ``JSONReaderUsageError`` when the cursor is not at a
    ///   value's start.
    public func value() throws -> JSONValue {
        let (tape, _) = try captureValue()
        return tape.view.value(0)
    }

    // MARK: Internals

    /// Records the value starting at the current token on a tape, reading on to its end.
    private func captureValue() throws -> (Tape, JSONPath) {
        guard let current, current.kind.startsValue else {
            throw JSONReaderUsageError(
                message: "decode() and value() read the value the last token starts; the last token was "
                    + (self.current.map { "\(log.event($0))" } ?? "none: call next() first")
            )
        }
        let path = self.path
        let tape = Tape()
        log.record(current, on: tape)
        if current.kind == .startObject || current.kind == .startArray {
            var open = 1
            while open > 0 {
                guard let entry = try advance() else {  // only with `allowPartialValues`
                    throw JSONReaderUsageError(message: "the input ended inside the value at \(path)")
                }
                log.record(entry, on: tape)
                switch entry.kind {
                case .startObject, .startArray: open += 1
                case .endObject, .endArray: open -= 1
                default: break
                }
            }
        }
        return (tape, path)
    }

    /// The next logged token, the path updated for it.
    private func advance() throws -> TokenLog.Entry? {
        // After an error, every call throws it again: the reader never goes on from a broken state.
        if let thrown { throw thrown }
        while cursor == log.entries.count {
            log.removeAll()
            cursor = 0
            if let failure {
                thrown = failure
                throw failure
            }
            guard parser.state == .parsing else {
                current = nil
                return nil
            }
            let chunk: UnsafeRawBufferPointer
            do {
                chunk = try feeder.read(from: &source)
            } catch {
                thrown = error
                throw error
            }
            do {
                try feeder.feed(chunk, to: parser)
            } catch {
                failure = error  // after this chunk's tokens
            }
        }
        let entry = log.entries[cursor]
        cursor += 1
        if entry.kind.startsValue, let top = frames.indices.last, frames[top].isArray {
            if case .index(let index) = frames[top].component {
                frames[top].component = .index(index + 1)
            } else {
                frames[top].component = .index(0)
            }
        }
        switch entry.kind {
        case .key: frames[frames.count - 1].component = .key(log.text(entry))
        case .startObject: frames.append((false, nil))
        case .startArray: frames.append((true, nil))
        case .endObject, .endArray: frames.removeLast()
        default: break
        }
        current = entry
        return entry
    }
}

@available(*, unavailable, message: "a JSONTokenReader reads its source from one thread at a time")
extension JSONTokenReader: Sendable {}

/// A ``JSONTokenReader`` used out of order: ``JSONTokenReader/decode(_:options:)`` or
/// ``JSONTokenReader/value()`` where no value starts.
public struct JSONReaderUsageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was done wrong.
    public let message: String
    /// The message.
    public var description: String { message }
}
