/// A selected value waiting on the tape: where it starts, and where it came from.
struct SelectedValue {
    var start: Int
    /// Where the source positions of the record holding the value begin on the tape (for errors).
    var positionStart: Int
    /// Where that record starts on the tape: the value itself, or a value enclosing it (a match
    /// nested in another one is read from the same bytes).
    var positionRoot: Int
    let path: JSONPath
    let queryIndex: Int
    let topLevelIndex: Int
    let line: Int
    let byteOffset: Int
}
