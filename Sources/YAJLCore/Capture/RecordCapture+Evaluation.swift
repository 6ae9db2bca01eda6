/// What a ``RecordCapture`` does with a capture that the stream could not decide alone: its
/// size limit while it is recorded, and its evaluation once complete.
extension RecordCapture {
    /// The error of a buffered capture grown past its limit: the capture callbacks stopped the
    /// parse there (``JSONEventContext/recordInside(on:byteLimit:)``).
    func captureByteLimitError() -> any Error {
        let info = captureInfo!
        let query = matcher.queries[
            matcher.states[
                (info.states & matcher.bufferStates != 0
                    ? info.states & matcher.bufferStates : info.states & matcher.arrayBufferStates).trailingZeroBitCount
            ].query
        ]
        let reason: String
        if query.usesAbsoluteFilterQueries {
            reason = "a filter refers to the document root '$', so the document is buffered"
        } else if info.states & matcher.arrayBufferStates != 0 {
            reason = "an index or slice counts from the end of this array"
        } else {
            reason = "the RFC order is asked for, and a union or '..' applies to this value"
        }
        return JSONPathBufferError(
            query: query.expression,
            path: info.record.path,
            reason: reason,
            limit: maxBufferedBytes
        )
    }

    /// Decides the records of a complete capture: the filters its parent's states apply to it,
    /// then every query's remaining segments from it, nested matches included.
    func evaluate(_ info: PendingCapture) throws {
        // The index counts against the limit with the value's recording: it stops when it would
        // pass it, before it takes the memory.
        let recorded = (tape.count - info.record.start) + (tape.positionCount - info.record.positionStart)
        let nodeRoom = max(0, maxBufferedBytes - recorded) / MemoryLayout<CapturedTree.Node>.stride
        guard
            capturedTree.index(
                tape.view,
                root: info.record.start,
                positionStart: info.record.positionStart,
                maxNodes: nodeRoom
            )
        else {
            throw bufferError(
                info,
                "the query is evaluated on this value: its recording takes \(recorded) bytes, and its index "
                    + "of more than \(nodeRoom) values would pass the limit"
            )
        }
        let tree = capturedTree
        let isDocument = info.record.lastComponent == nil && info.record.pathPrefix.components.isEmpty
        var evaluator = PathEvaluator(tree: tree, documentRoot: isDocument ? 0 : nil)
        evaluator.maxNodes = Self.maxResultsPerCapture
        var (entries, pending) =
            matcher.mayRepeat
            ? matcher.counts(along: info.record.path)
            : matcher.singleCounts(states: info.states, parentStates: info.parentStates)
        for (state, filter, count) in pending {
            let holds = evaluator.test(filter.expression, current: 0)
            try refuseUnfinished(evaluator, query: matcher.states[state].query, at: info.record.path)
            if holds { entries.append((state + 1, count)) }
        }
        let room = limit.map { max(0, $0 - selectedCount) } ?? Int.max
        var results: [(node: Int, query: Int)] = []
        collect: for (state, count) in entries {
            let (query, segment) = (matcher.states[state].query, matcher.states[state].segment)
            let selected = evaluator.select(matcher.queries[query].segments[segment...], from: [0])
            guard !selected.isEmpty else { continue }
            for _ in 0..<count {
                results.append(contentsOf: selected.lazy.map { ($0, query) })
                // In the RFC's order the first values are final; in the document's they are known
                // once all are sorted.
                if order == .rfc && results.count >= room { break collect }
                if results.count > Self.maxResultsPerCapture {
                    throw JSONPathBufferError(
                        query: matcher.queries[query].expression,
                        path: info.record.path,
                        reason: "too many values",
                        limit: Self.maxResultsPerCapture,
                        countsValues: true
                    )
                }
            }
        }
        if let (state, _) = entries.first {
            try refuseUnfinished(evaluator, query: matcher.states[state].query, at: info.record.path)
        }
        if order == .document {
            // Where each value starts; a value selected several times keeps its copies together.
            results = results.enumerated().sorted { a, b in
                let (x, y) = (tree.nodes[a.element.node].tape, tree.nodes[b.element.node].tape)
                if x != y { return x < y }
                if a.element.query != b.element.query { return a.element.query < b.element.query }
                return a.offset < b.offset
            }.map(\.element)
        }
        let recordPath = info.record.path
        // The nested selections' paths share one table (a path each would be quadratic in a deep
        // value: `$..*` on 5,000 nested arrays).
        var nestedPaths: NestedPaths?
        for (node, query) in results.prefix(room) {
            let info2 = tree.nodes[node]
            var value = SelectedValue(
                start: info2.tape,
                positionStart: info.record.positionStart,
                positionRoot: info.record.start,
                path: node == 0 ? recordPath : .root,
                queryIndex: query,
                topLevelIndex: info.record.topLevelIndex,
                line: info2.position.line,
                byteOffset: info2.position.offset
            )
            if node != 0 {
                let paths = nestedPaths ?? NestedPaths(base: recordPath, nodeCount: tree.nodes.count)
                nestedPaths = paths
                value.nested = (paths, paths.entry(for: node, in: tree))
            }
            ready.append(value)
        }
        nestedPaths?.finish()
        // What evaluating the value held, shared or not: its recording, its index, its selections
        // and their paths.
        let held =
            recorded + tree.nodes.count * MemoryLayout<CapturedTree.Node>.stride
            + min(results.count, room) * MemoryLayout<SelectedValue>.stride + (nestedPaths?.footprint ?? 0)
        if held > maxBufferedBytes {
            ready.removeLast(min(results.count, room))
            throw bufferError(
                info,
                "the query is evaluated on this value: its recording, its index of \(tree.nodes.count) "
                    + "values and \(results.count) selections take \(held) bytes",
                query: results.first?.query
            )
        }
    }

    /// The most values one captured value may yield (`$..*..*..*…` selects a node once per way of
    /// reaching it: astronomically often in a deep document).
    static var maxResultsPerCapture: Int { 1 << 24 }

    /// Where a line of NDJSON begins, to drop what it selected if it fails.
    struct LineMark {
        let ready: Int
        let selected: Int
    }

    var lineMark: LineMark { LineMark(ready: ready.count, selected: selectedCount) }

    /// Forgets what the line since `mark` selected or began to capture (it failed to parse): its
    /// records, the value being captured and the open containers.
    func dropLine(since mark: LineMark) {
        if ready.count > mark.ready { ready.removeLast(ready.count - mark.ready) }
        selectedCount = mark.selected
        if let info = captureInfo, tape.isCapturing {
            tape.abandon(to: info.record.start, positionsTo: info.record.positionStart)
        }
        captureInfo = nil
        isBuffering = false
        resetFrames()
    }

    /// The buffer error of capture `info`, naming `query`, or else the first query the capture
    /// may select for.
    private func bufferError(_ info: PendingCapture, _ reason: String, query: Int? = nil) -> JSONPathBufferError {
        let states = info.states != 0 ? info.states : info.parentStates
        let query = query ?? (states == 0 ? 0 : matcher.states[states.trailingZeroBitCount].query)
        return JSONPathBufferError(
            query: matcher.queries[query].expression,
            path: info.record.path,
            reason: reason,
            limit: maxBufferedBytes
        )
    }

    /// Throws when `evaluator` stopped short (a node list cut at its cap, a pattern too large
    /// to match): its answer is then not the query's.
    private func refuseUnfinished(_ evaluator: PathEvaluator, query: Int, at path: JSONPath) throws {
        if let (pattern, reason) = evaluator.refusedPattern {
            throw JSONPathPatternError(
                query: matcher.queries[query].expression,
                path: path,
                pattern: pattern,
                reason: reason
            )
        }
        if evaluator.overflowed {
            throw JSONPathBufferError(
                query: matcher.queries[query].expression,
                path: path,
                reason: "too many values",
                limit: Self.maxResultsPerCapture,
                countsValues: true
            )
        }
    }
}
