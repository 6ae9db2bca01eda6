/// Decodes captured records into `Record` for a reader: the decoding session (strategies and
/// caches), the failure policy, and the report of records delivered and skipped.
///
/// Runs on the thread that asks for records, always: with concurrent parsing, this object is
/// the caller's side of the ``ConcurrentRecordStream``.
final class RecordDecoder<Record: Decodable> {
    private let session: DecodingSession
    private let policy: JSONRecordOptions.DecodingFailurePolicy
    let report: JSONRecordReport

    init(options: JSONRecordOptions, report: JSONRecordReport) {
        session = DecodingSession(options: options.decoding)
        policy = options.onDecodingFailure
        self.report = report
    }

    /// Record `position` of `records` with its metadata, decoded from `view`; `nil` when it fails
    /// to decode and failures are skipped.
    func decodeRecord(_ records: [SelectedValue], _ position: Int, from view: TapeView) throws -> JSONRecord<Record>? {
        try withUnsafeTemporaryAllocation(of: Record.self, capacity: 1) { buffer in
            let slot = buffer.baseAddress!
            guard try decodeValue(records, position, from: view, into: slot) else { return nil }
            let raw = records[position]
            return JSONRecord(
                value: slot.move(),
                path: raw.path,
                queryIndex: raw.queryIndex,
                topLevelIndex: raw.topLevelIndex,
                line: raw.line,
                byteOffset: raw.byteOffset
            )
        }
    }

    /// Decodes record `position` of `records` from `view` into `slot` (uninitialized); `false`
    /// when it fails to decode and failures are skipped. (The record's metadata is read only for
    /// an error.)
    ///
    /// An out-parameter, not a `Record?`: in this unspecialized generic code, every `Optional<Record>`
    /// passed around costs a lookup in the runtime's metadata cache, per record.
    func decodeValue(
        _ records: [SelectedValue],
        _ position: Int,
        from view: TapeView,
        into slot: UnsafeMutablePointer<Record>
    ) throws -> Bool {
        do {
            slot.initialize(to: try session.decode(Record.self, from: view, at: records[position].start))
            report.delivered()
            return true
        } catch {
            let failure = describe(error, record: records[position], view: view)
            guard policy == .skip else { throw failure }
            report.skipped(failure)
            return false
        }
    }

    /// `expected Int, found string` from the decoder's `Expected to decode Int but found string
    /// instead.`; another decoder's text is kept after the expected type.
    static func mismatchMessage(expected type: Any.Type, _ text: String) -> String {
        let name = Unbox.typeName(type)
        if let found = text.firstRange(of: " but found "), text.hasSuffix(" instead.") {
            return "expected \(name), found \(text[found.upperBound...].dropLast(" instead.".count))"
        }
        return "expected \(name): \(text)"
    }

    /// A decoding error with the record's path, the coding path, a plain message, and where
    /// the failing value starts (found by following the coding path on the tape).
    func describe(_ error: any Error, record: SelectedValue, view: TapeView) -> JSONRecordDecodingError {
        func located(
            _ path: JSONPath,
            _ codingPath: [any CodingKey],
            _ message: String,
            _ underlying: DecodingError?
        ) -> JSONRecordDecodingError {
            let failing = session.index(of: codingPath, in: view, from: record.start)
            let position = view.sourcePosition(
                of: failing,
                inRecordAt: record.positionRoot,
                positionsAt: record.positionStart
            )
            return JSONRecordDecodingError(
                recordPath: record.path,
                path: path,
                message: message,
                line: position.line,
                column: position.column,
                byteOffset: position.offset,
                recordLine: record.line,
                underlying: underlying
            )
        }
        guard let decodingError = error as? DecodingError else {
            return located(record.path, [], "\(error)", nil)
        }
        let codingPath: [any CodingKey]
        let message: String
        switch decodingError {
        case .typeMismatch(let type, let context):
            codingPath = context.codingPath
            message = Self.mismatchMessage(expected: type, context.debugDescription)
        case .valueNotFound(let type, let context):
            codingPath = context.codingPath
            message = context.debugDescription.isEmpty ? "expected \(type), found nothing" : context.debugDescription
        case .keyNotFound(let key, let context):
            codingPath = context.codingPath
            message = "missing key '\(key.stringValue)'"
        case .dataCorrupted(let context):
            codingPath = context.codingPath
            message = context.debugDescription
        @unknown default:
            codingPath = []
            message = "\(decodingError)"
        }
        let components = codingPath.map { key -> JSONPath.Component in
            if let index = key.intValue, key.stringValue == "Index \(index)" { return .index(index) }
            return .key(key.stringValue)
        }
        return located(JSONPath(record.path.components + components), codingPath, message, decodingError)
    }
}
