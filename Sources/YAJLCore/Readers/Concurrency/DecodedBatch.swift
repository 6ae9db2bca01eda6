/// The records of one batch, decoded by the parsing thread while the caller was behind (see
/// ``ConcurrentRecordStream``): each one a value, or the located error it failed with. The caller
/// takes them in order (``take(_:into:)``), and reports them then, as it would have had it decoded
/// them itself: nothing is counted, skipped or thrown before the caller reaches the record.
///
/// Owns its values: those not taken (the caller stopped early, or the stream was cancelled) are
/// destroyed with the batch, on whichever thread lets go of it last (only `Sendable` records are
/// decoded on the parsing thread).
final class DecodedBatch<Record: Decodable> {
    private let values: UnsafeMutablePointer<Record>
    private let count: Int
    /// The records that did not decode (their slot stays uninitialized), in order.
    private var failures: [(position: Int, error: JSONRecordDecodingError)] = []
    /// How many of `failures` the caller has passed.
    private var failuresPassed = 0
    /// Records before it have been taken (or passed, when they failed).
    private var taken = 0

    /// Decodes every record of `records` from `view` with `decoder` (the parsing thread's own).
    init(_ records: [SelectedValue], from view: TapeView, with decoder: RecordDecoder<Record>) {
        count = records.count
        values = .allocate(capacity: max(count, 1))
        for position in 0..<count {
            if let failure = decoder.decodeUnreported(records, position, from: view, into: values + position) {
                failures.append((position, failure))
            }
        }
    }

    deinit {
        var failure = failuresPassed
        for position in taken..<count {
            while failure < failures.count && failures[failure].position < position { failure += 1 }
            if failure < failures.count && failures[failure].position == position { continue }
            (values + position).deinitialize(count: 1)
        }
        values.deallocate()
    }

    /// Moves record `position` (the next one: they are taken in order) into `slot`
    /// (uninitialized) and returns `nil`; or returns the error it failed with, leaving `slot` as
    /// it is.
    func take(_ position: Int, into slot: UnsafeMutablePointer<Record>) -> JSONRecordDecodingError? {
        precondition(position == taken && position < count, "decoded records are taken in order, once")
        taken = position + 1
        if failuresPassed < failures.count && failures[failuresPassed].position == position {
            failuresPassed += 1
            return failures[failuresPassed - 1].error
        }
        slot.moveInitialize(from: values + position, count: 1)
        return nil
    }
}
