import Synchronization

/// A writer whose output would be lost if the process ended before it finished.
protocol CompletesAtExit: AnyObject {
    /// Completes and flushes what was written, as a release without `finish()` does.
    func completeAtExit()
}

/// The writers over sinks outside the process (files, standard output, streams, closures) that
/// have not finished, completed when the process exits normally: a writer kept in a global of
/// a `main.swift`, which Swift never releases, still closes its document and flushes.
/// Writers to a ``MemoryOutputSink`` are not kept here: their output ends with the process anyway.
package enum UnfinishedWriters {
    /// A writer, unretained: it leaves the table in its `deinit`, before its memory goes.
    private struct Entry: @unchecked Sendable {
        unowned(unsafe) let writer: any CompletesAtExit
        /// Record writers complete first: they close their own writer's array.
        let rank: Int
    }

    private static let table = Mutex<[ObjectIdentifier: Entry]>([:])
    private static let installed: Bool = {
        Syscalls.atExit { UnfinishedWriters.completeAll() }
        return true
    }()

    /// Keeps `writer` until ``remove(_:)``; `rank` 0 completes before 1.
    static func add(_ writer: some CompletesAtExit, rank: Int) {
        _ = installed
        table.withLock { $0[ObjectIdentifier(writer)] = Entry(writer: writer, rank: rank) }
    }

    /// Forgets `writer` (it finished, or is being released).
    static func remove(_ writer: AnyObject) {
        _ = table.withLock { $0.removeValue(forKey: ObjectIdentifier(writer)) }
    }

    /// Whether `writer` is kept (for tests).
    package static func contains(_ writer: AnyObject) -> Bool {
        table.withLock { $0[ObjectIdentifier(writer)] != nil }
    }

    /// Completes the writers kept (those of `only`, when given: tests complete their own),
    /// record writers first, and forgets them.
    package static func completeAll(only: [AnyObject]? = nil) {
        let chosen = only.map { Set($0.map(ObjectIdentifier.init)) }
        let entries = table.withLock { table in
            let keys = table.keys.filter { chosen?.contains($0) ?? true }
            let entries = keys.compactMap { table.removeValue(forKey: $0) }
            return entries.sorted { $0.rank < $1.rank }
        }
        for entry in entries { entry.writer.completeAtExit() }
    }
}
