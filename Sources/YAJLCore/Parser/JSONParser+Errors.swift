/// How the parser turns a bridge status, a limit or a UTF-8 failure into a located
/// ``JSONParseError``: offset, line, column, path and excerpt.
extension JSONParser {

    /// Turns a bridge status into a state change or a thrown, located error.
    func check(_ status: YAJLParserBridge.Status, chunk: UnsafeRawBufferPointer, base: Int) throws {
        switch status {
        case .ok:
            return
        case .stopped:
            if let pending = bridge.state.pointee.pendingError {
                bridge.state.pointee.pendingError = nil
                if case LimitViolation.depth(let offset) = pending {
                    throw fail(
                        limitError(
                            .depthLimitExceeded,
                            "nesting is deeper than \(options.maxDepth) levels",
                            option: "maxDepth",
                            offset: offset,
                            chunk: chunk,
                            base: base
                        )
                    )
                }
                if case LimitViolation.captureBytes = pending {
                    bridge.leaveCapture()
                    throw fail((handler as? CaptureLimitReporting)?.captureByteLimitError() ?? pending)
                }
                throw fail(pending)
            }
            // The handler asked to stop: count the input up to the event that stopped it.
            bytesConsumed = bridge.state.pointee.currentOffset
            state = .stopped
        case .error(let error):
            throw fail(
                parseError(
                    error.kind,
                    error.message,
                    offset: error.offset,
                    chunk: chunk,
                    base: base,
                    mayStartNextValue: error.mayStartNextValue,
                    isInsideString: error.isInsideString
                )
            )
        }
    }

    /// Whether the garbage that ends at `offset` (YAJL reports the end of the token it could
    /// not take) is a JSON value at the start of a later line: the input looks like NDJSON.
    static func startsValueOnNewLine(_ before: [UInt8]) -> Bool {
        guard let newline = before.lastIndex(of: UInt8(ascii: "\n")) else { return false }
        let rest = before[(newline + 1)...].drop {
            $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r")
        }
        guard let first = rest.first else { return false }
        return "{[\"-0123456789tfn".utf8.contains(first)
    }

    func fail(_ error: any Error) -> any Error {
        state = .failed
        failure = error
        return error
    }

    func limitError(
        _ kind: JSONParseError.Kind,
        _ what: String,
        option: String,
        offset: Int,
        chunk: UnsafeRawBufferPointer,
        base: Int
    ) -> JSONParseError {
        parseError(kind, "\(what) (raise Options.\(option))", option: option, offset: offset, chunk: chunk, base: base)
    }

    /// A located error. `mayStartNextValue` and `isInsideString` say where its path points (see
    /// ``YAJLError``); an error found on the Swift side is inside a string when it is about UTF-8
    /// or an escape.
    func parseError(
        _ kind: JSONParseError.Kind,
        _ message: String,
        option: String? = nil,
        offset: Int,
        chunk: UnsafeRawBufferPointer,
        base: Int,
        mayStartNextValue: Bool = false,
        isInsideString: Bool? = nil
    ) -> JSONParseError {
        // The parse ends here: a capture in C hands the path back first.
        bridge.leaveCapture()
        let position = bridge.state.pointee.position
        let (line, column) = position.lineAndColumn(of: offset, in: chunk, base: base)
        let (excerpt, marker) = position.excerpt(around: offset, in: chunk, base: base)
        var path: JSONPath?
        if options.tracksPath {
            // A token where a value or key was expected (after `[`, `{` or `,`) is located at that
            // next element or at the object, not at the value before it.
            // So is an error inside a string in an array: the string's event has not come yet.
            let insideString = isInsideString ?? (kind == .invalidUTF8 || kind == .invalidEscape)
            let atNextValue =
                (insideString && bridge.state.pointee.path.innermostIsArray)
                || (mayStartNextValue
                    && [UInt8(ascii: ","), UInt8(ascii: "["), UInt8(ascii: "{")].contains(
                        position.lastSignificantByte(before: offset, in: chunk, base: base)
                    ))
            path = bridge.state.pointee.path.materialize(atNextValue: atNextValue)
        }
        var message = message
        if kind == .trailingGarbage && Self.startsValueOnNewLine(position.bytes(before: offset, in: chunk, base: base))
        {
            message +=
                " (a second value on a new line: for NDJSON or several values, set JSONParser.Options.allowMultipleValues, or --allow-multiple-values in the tool)"
        }
        return JSONParseError(
            kind: kind,
            message: message,
            limitOption: option,
            byteOffset: offset,
            line: line,
            column: column,
            path: path,
            excerpt: excerpt,
            excerptMarker: marker
        )
    }
}
