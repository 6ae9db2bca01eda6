/// What a parallel parse read: the totals a single parser would report.
public struct JSONParallelParseSummary: Sendable, Hashable {
    /// Bytes of input parsed.
    public let bytesConsumed: Int
    /// Top-level values (NDJSON lines with a value) parsed.
    public let topLevelValueCount: Int
    /// The deepest nesting seen in any value.
    public let maxDepthSeen: Int
}

/// A block's parser and handler, as a ``ParallelBlockTask``.
final class EventBlockTask<Handler: JSONEventHandler>: ParallelBlockTask {
    let handler: Handler
    let parser: JSONParser
    private(set) var failure: (any Error)?

    init(block: LineBlock, options: JSONParser.Options, handler: Handler, deliversEvents: Bool) {
        self.handler = handler
        parser = JSONParser(options: options, handler: handler, deliversEvents: deliversEvents)
        if block.index > 0 { parser.rebase(offset: block.offset, line: block.line, topLevelValues: 0) }
        parse(block.bytes)
    }

    func parse(_ bytes: UnsafeRawBufferPointer) {
        guard !hasEnded, !bytes.isEmpty else { return }
        do { try parser.parse(bytes) } catch { failure = error }
    }

    func finish() {
        guard !hasEnded else { return }
        do { try parser.finish() } catch { failure = error }
    }

    var isBetweenValues: Bool { parser.openDepth == 0 }
    var hasEnded: Bool { failure != nil || parser.state != .parsing }
    var hasFailed: Bool { failure != nil }
}

extension JSONParser {
    /// Parses NDJSON (or any input of several top-level values) from `source` on several
    /// threads, for work that can be split by line: counting, validating, aggregating.
    ///
    /// The input is cut into blocks at newlines (see ``JSONParallelOptions``); each block is
    /// parsed on a worker thread by a parser of its own that delivers its events to a handler made
    /// by `makeHandler` (on that worker). Positions are exact: `context.byteOffset` and
    /// `context.line` are those of the whole input; `context.topLevelIndex` counts from the
    /// block's first value, and `combine` is told how many values came before. Once a handler has
    /// seen all its events, `combine` is called with it on the calling thread, in input order.
    ///
    /// ```swift
    /// var total = 0
    /// try JSONParser.parseInParallel(
    ///     from: .file("events.ndjson"), options: .init(allowMultipleValues: true),
    ///     makeHandler: { CountingHandler() },
    ///     combine: { handler, _ in total += handler.count }
    /// )
    /// ```
    ///
    /// On invalid input, the handlers of the blocks before the error (and the failing one, with
    /// the events before the error) are combined, then the error is thrown: the first error of
    /// the input, located as one parser would locate it.
    ///
    /// - Throws: ``JSONOptionError`` when `options` lack ``Options/allowMultipleValues``, allow
    ///   comments or trailing garbage, or `parallel` is out of range; ``JSONParseError`` for
    ///   invalid input; the source's read error; a handler's or `combine`'s error.
    @discardableResult
    public static func parseInParallel<Handler: JSONEventHandler & SendableMetatype>(
        from source: some JSONByteSource,
        options: Options,
        parallel: JSONParallelOptions = JSONParallelOptions(),
        makeHandler: @escaping @Sendable () -> Handler,
        combine: (_ handler: Handler, _ valuesBefore: Int) throws -> Void
    ) throws -> JSONParallelParseSummary {
        try run(source, options, parallel, deliversEvents: true, makeHandler: makeHandler) { task, valuesBefore in
            try combine(task.handler, valuesBefore)
        }
    }

    /// Checks NDJSON (or any input of several top-level values) on several threads: the verdict,
    /// the error and its location are those of ``validate(_:options:)``.
    ///
    /// - Throws: ``JSONOptionError`` for options that cannot be split at lines (see
    ///   ``parseInParallel(from:options:parallel:makeHandler:combine:)``), ``JSONParseError``,
    ///   or the source's read error.
    @discardableResult
    public static func validateInParallel(
        _ source: some JSONByteSource,
        options: Options,
        parallel: JSONParallelOptions = JSONParallelOptions()
    ) throws -> JSONParallelParseSummary {
        try run(
            source,
            options,
            parallel,
            deliversEvents: false,
            makeHandler: { DiscardingHandler() },
            combine: { _, _ in }
        )
    }

    private static func run<Handler: JSONEventHandler & SendableMetatype>(
        _ source: some JSONByteSource,
        _ options: Options,
        _ parallel: JSONParallelOptions,
        deliversEvents: Bool,
        makeHandler: @escaping @Sendable () -> Handler,
        combine: (EventBlockTask<Handler>, Int) throws -> Void
    ) throws -> JSONParallelParseSummary {
        try options.validate()
        try options.checkSplittable()
        try parallel.validate()
        guard parallel.ordered else {
            throw JSONOptionError(
                option: "JSONParallelOptions.ordered",
                value: "false",
                allowed:
                    "true for parseInParallel and validateInParallel (only JSONRecordReader with parallel options reads unordered)"
            )
        }
        let engine = ParallelBlockEngine<EventBlockTask<Handler>>(source: source, options: parallel) { block in
            EventBlockTask(block: block, options: options, handler: makeHandler(), deliversEvents: deliversEvents)
        }
        var valuesBefore = 0
        var maxDepth = 0
        // The task whose handler is still receiving events (a value may go on into the next block).
        var open: EventBlockTask<Handler>?
        func close() throws {
            guard let task = open else { return }
            open = nil
            maxDepth = max(maxDepth, task.parser.maxDepthSeen)
            try combine(task, valuesBefore)
            valuesBefore += task.parser.topLevelValueCount
        }
        while let step = try engine.next() {
            switch step {
            case .parsed(let task, let continued):
                if !continued {
                    try close()
                    open = task
                }
                if let failure = task.failure {
                    try close()
                    throw failure
                }
            case .finished(let task):
                if open !== task {
                    try close()
                    open = task
                }
                let consumed = task.parser.bytesConsumed
                try close()
                if let failure = task.failure { throw failure }
                return JSONParallelParseSummary(
                    bytesConsumed: consumed,
                    topLevelValueCount: valuesBefore,
                    maxDepthSeen: maxDepth
                )
            }
        }
        // Only a stopped parse (a handler called `context.stop()`) ends without `.finished`.
        let consumed = open?.parser.bytesConsumed ?? 0
        try close()
        return JSONParallelParseSummary(
            bytesConsumed: consumed,
            topLevelValueCount: valuesBefore,
            maxDepthSeen: maxDepth
        )
    }
}

/// The handler of a validating block parser: never called.
private final class DiscardingHandler: JSONEventHandler {}
