/// The events of a document as an `AsyncSequence`, each with where it happened, for code that
/// wants `for try await event in …` rather than a handler.
///
/// ```swift
/// for try await event in JSONEvents(from: .chunks(byteStream)) {
///     if case .key(let key) = event.event { print(event.path, key) }
/// }
/// ```
///
/// It parses a chunk at a time and hands out that chunk's events: memory is one chunk's events,
/// never the document. Each event is owned (a `String` per key and string), so this is the
/// convenient form, not the fastest (``JSONEventHandler`` borrows). Task cancellation is checked
/// before every read and ends the sequence with `CancellationError`.
public struct JSONEvents<Source: AsyncJSONByteSource>: AsyncSequence {
    /// One event and its location.
    public typealias Element = JSONEventRecord

    private let source: Source
    private let options: JSONParser.Options

    /// The events of the document read from `source`.
    public init(from source: Source, options: JSONParser.Options = JSONParser.Options()) {
        self.source = source
        self.options = options
    }

    /// Starts reading.
    public func makeAsyncIterator() -> Iterator { Iterator(source: source, options: options) }

    /// Reads and parses the source one chunk at a time.
    public final class Iterator: AsyncIteratorProtocol {
        private var source: Source
        private let parser: JSONParser
        private let collector: EventCollector
        private var feeder: ChunkFeeder
        private var index = 0
        /// An error held back until the events before it have been handed out.
        private var failure: (any Error)?

        init(source: Source, options: JSONParser.Options) {
            self.source = source
            collector = EventCollector()
            parser = JSONParser(options: options, handler: collector)
            feeder = ChunkFeeder(options: options)
        }

        deinit { feeder.deallocate() }

        /// The next event, or `nil` after the last.
        /// - Throws: ``JSONParseError`` (after the events before the error), the source's error,
        ///   or `CancellationError`.
        nonisolated(nonsending) public func next() async throws -> JSONEventRecord? {
            while index == collector.events.count {
                collector.events.removeAll(keepingCapacity: true)
                index = 0
                if let failure {
                    self.failure = nil
                    throw failure
                }
                guard parser.state == .parsing else { return nil }
                try Task.checkCancellation()
                let chunk = try await feeder.read(from: &source)
                do {
                    try feeder.feed(chunk, to: parser)
                } catch {
                    failure = error  // after this chunk's events
                }
            }
            defer { index += 1 }
            return collector.events[index]
        }
    }
}

extension JSONEvents {
    /// The events of a document read from a blocking source (a file, a pipe) in async code.
    public init<Base: JSONByteSource>(from source: Base, options: JSONParser.Options = JSONParser.Options())
    where Source == BlockingAsyncByteSource<Base> {
        self.init(from: BlockingAsyncByteSource(source), options: options)
    }
}

@available(*, unavailable, message: "an iterator reads its source from one task at a time")
extension JSONEvents.Iterator: Sendable {}

/// An event with where it happened: its path, depth and position.
public struct JSONEventRecord: Sendable, Hashable {
    /// The event.
    public let event: JSONEvent
    /// The path of the event's value (for a key: of the member it names).
    public let path: JSONPath
    /// How many objects and arrays enclose the event (for a start or an end, not counting the
    /// container itself).
    public let depth: Int
    /// The 1-based line of the event.
    public let line: Int
    /// The absolute byte offset just past the event's token.
    public let byteOffset: Int
}

/// Gathers a chunk's events, owned, with their locations.
final class EventCollector: JSONEventHandler {
    var events: [JSONEventRecord] = []

    private func add(_ event: JSONEvent, _ context: JSONEventContext) {
        events.append(
            JSONEventRecord(
                event: event,
                path: context.path ?? .root,
                depth: context.depth,
                line: context.line,
                byteOffset: context.byteOffset
            )
        )
    }

    func startObject(context: JSONEventContext) throws { add(.startObject, context) }
    func endObject(context: JSONEventContext) throws { add(.endObject, context) }
    func startArray(context: JSONEventContext) throws { add(.startArray, context) }
    func endArray(context: JSONEventContext) throws { add(.endArray, context) }
    func key(_ key: JSONStringView, context: JSONEventContext) throws { add(.key(key.string), context) }
    func string(_ value: JSONStringView, context: JSONEventContext) throws { add(.string(value.string), context) }
    func number(_ value: JSONNumberView, context: JSONEventContext) throws { add(.number(value.number), context) }
    func bool(_ value: Bool, context: JSONEventContext) throws { add(.bool(value), context) }
    func null(context: JSONEventContext) throws { add(.null, context) }
}
