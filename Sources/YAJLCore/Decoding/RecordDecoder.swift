// Decoding/: a captured value into a Decodable type (as JSONDecoder decodes), a JSONValue or a
// JSONFragment; calls Tape/ and Values/.

/// Decodes captured records into `Record` for a reader: the decoding session (strategies and
/// caches), the failure policy, and the report of records delivered and skipped.
///
/// Runs on the thread that asks for records: with concurrent parsing, this object is the caller's
/// side of the ``ConcurrentRecordStream``. For a `Sendable` record type, the parsing thread has
/// a decoder of its own too, for the batches it decodes while the caller is behind
/// (``decodeUnreported(_:_:from:into:)``); what it decoded is counted, skipped or thrown here,
/// when the caller reaches it (``takeValue(_:_:into:)``).
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
            return Self.record(slot.move(), records[position])
        }
    }

    /// `value` with the metadata of `raw`, the selected value it was decoded from.
    private static func record(_ value: consuming Record, _ raw: SelectedValue) -> JSONRecord<Record> {
        JSONRecord(
            value: value,
            path: raw.path,
            queryIndex: raw.queryIndex,
            topLevelIndex: raw.topLevelIndex,
            line: raw.line,
            byteOffset: raw.byteOffset
        )
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
            guard policy == .skip else { throw failure.asThrown }
            report.skipped(failure)
            return false
        }
    }

    // MARK: Records the parsing thread decoded

    /// Decodes record `position` of `records` from `view` into `slot` (uninitialized) without
    /// counting it or applying the failure policy: `nil` when it decoded, else the located error
    /// (`slot` then stays uninitialized). The parsing thread's share of the decoding
    /// (``DecodedBatch``), with a decoder of its own; the caller reports the outcome when it
    /// reaches the record (``takeValue(_:_:into:)``).
    func decodeUnreported(
        _ records: [SelectedValue],
        _ position: Int,
        from view: TapeView,
        into slot: UnsafeMutablePointer<Record>
    ) -> JSONRecordDecodingError? {
        do {
            slot.initialize(to: try session.decode(Record.self, from: view, at: records[position].start))
            return nil
        } catch {
            return describe(error, record: records[position], view: view)
        }
    }

    /// ``decodeValue(_:_:from:into:)`` for a record the parsing thread decoded: moves it from
    /// `batch` into `slot` and counts it; `false` when it failed and failures are skipped (counted
    /// as skipped); throws its error otherwise.
    func takeValue(
        _ batch: DecodedBatch<Record>,
        _ position: Int,
        into slot: UnsafeMutablePointer<Record>
    ) throws -> Bool {
        guard let failure = batch.take(position, into: slot) else {
            report.delivered()
            return true
        }
        guard policy == .skip else { throw failure.asThrown }
        report.skipped(failure)
        return false
    }

    /// ``decodeRecord(_:_:from:)`` for a record the parsing thread decoded.
    func takeRecord(
        _ batch: DecodedBatch<Record>,
        _ records: [SelectedValue],
        _ position: Int
    ) throws -> JSONRecord<Record>? {
        try withUnsafeTemporaryAllocation(of: Record.self, capacity: 1) { buffer in
            let slot = buffer.baseAddress!
            guard try takeValue(batch, position, into: slot) else { return nil }
            return Self.record(slot.move(), records[position])
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
            if let located = error as? JSONRecordDecodingError { return located }  // already located
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
                underlying: underlying,
                underlyingError: error
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
