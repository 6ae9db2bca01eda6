/// A selected value waiting on the tape: where it starts, and where it came from.
struct SelectedValue {
    var start: Int
    /// Where the source positions of the record holding the value begin on the tape (for errors).
    var positionStart: Int
    /// Where that record starts on the tape: the value itself, or a value enclosing it (a match
    /// nested in another one is read from the same bytes).
    var positionRoot: Int
    /// The path of the value's parent (or the whole path, when ``lastComponent`` is nil): shared
    /// by the elements of one array, so that selecting `$.results[*]` makes no path per record.
    let pathPrefix: JSONPath
    /// The value's own step below ``pathPrefix``, if any.
    let lastComponent: JSONPath.Component?
    /// For a value selected inside a captured one: the paths shared by the capture's selections,
    /// and this value's entry (then ``pathPrefix`` is not used).
    var nested: (paths: NestedPaths, entry: Int32)?
    var queryIndex: Int
    let topLevelIndex: Int
    let line: Int
    let byteOffset: Int

    /// The value's path, made when asked (for ``JSONRecord`` and errors, not for every record).
    var path: JSONPath {
        if let nested { return nested.paths.path(of: nested.entry) }
        guard let lastComponent else { return pathPrefix }
        var components = pathPrefix.components
        components.append(lastComponent)
        return JSONPath(components)
    }

    init(
        start: Int,
        positionStart: Int,
        positionRoot: Int,
        path: JSONPath,
        lastComponent: JSONPath.Component? = nil,
        queryIndex: Int,
        topLevelIndex: Int,
        line: Int,
        byteOffset: Int
    ) {
        self.start = start
        self.positionStart = positionStart
        self.positionRoot = positionRoot
        self.pathPrefix = path
        self.lastComponent = lastComponent
        self.queryIndex = queryIndex
        self.topLevelIndex = topLevelIndex
        self.line = line
        self.byteOffset = byteOffset
    }

    /// The same value, selected by query `queryIndex`.
    func selected(by queryIndex: Int) -> SelectedValue {
        var value = SelectedValue(
            start: start,
            positionStart: positionStart,
            positionRoot: positionRoot,
            path: pathPrefix,
            lastComponent: lastComponent,
            queryIndex: queryIndex,
            topLevelIndex: topLevelIndex,
            line: line,
            byteOffset: byteOffset
        )
        value.nested = nested
        return value
    }
}
