extension JSONWriter {
    /// Writes a document to `sink` with `body`, then finishes it: every container still open is
    /// closed and the output flushed, also when `body` throws, whose error is then rethrown.
    ///
    /// ```swift
    /// try JSONWriter.write(to: .file("out.json")) { writer in
    ///     try writer.startArray()
    ///     for name in names { try writer.string(name) }
    /// }  // `]` is written and the file flushed here
    /// ```
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or the writer's error (options, sink) when finishing.
    public static func write<Result>(
        to sink: some JSONOutputSink,
        options: Options = Options(),
        _ body: (JSONWriter) throws -> Result
    ) throws -> Result {
        let writer = JSONWriter(to: sink, options: options)
        let result: Result
        do {
            result = try body(writer)
        } catch {
            writer.closeOpenContainers()
            try? writer.flush()
            throw error
        }
        writer.closeOpenContainers()
        try writer.finish()
        return result
    }
}
