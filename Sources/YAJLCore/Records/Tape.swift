/// Selected subtrees recorded flat in one byte buffer, in document order, reused from record to
/// record (capturing a record allocates nothing once it has grown).
///
/// A value's position is the offset of its tag byte: the kind in the low 3 bits and a small
/// number (`small`) in the high 5. The encoding is variable-length so that a record costs about
/// its own size (an array of ten million `1`s takes 10 MB, not 340 MB):
///
/// | kind | `small` | then |
/// |---|---|---|
/// | object, array | 0 | `UInt32` length of the members' bytes, `UInt32` count, the members |
/// | | 1 | the same with `UInt64`s (a container past 4 GiB, widened when it closes) |
/// | | 2 | nothing: an empty container |
/// | key, string | 0…30 | that many bytes of text |
/// | | 31 | `UInt64` length, the text |
/// | number | 0…9 | nothing: the one-digit integer `small` (its text is that digit) |
/// | | 10 | `UInt8` length, the text |
/// | | 12 | `UInt64` length, the text |
/// | bool | 0, 1 | nothing |
/// | null | 0 | nothing |
///
/// Lengths are relative, so a record can be moved within a tape or to another one as bytes.
/// Numbers keep only their text: a reader classifies a number when it reads it (once, where it is
/// decoded), not the parser while it records. With ``JSONRecordOptions/parsesConcurrently`` the
/// parsing thread is the slower of the two, and a number not decoded costs nothing more.
final class Tape {
    enum Kind: UInt8 { case object, array, key, string, number, bool, null }

    /// Sizes of a container's header: tag and two `UInt32`s, or tag and two `UInt64`s.
    static let narrowHeader = 9
    static let wideHeader = 17
    /// `small` values of the encoding.
    static let containerWide: UInt8 = 1, containerEmpty: UInt8 = 2, textLong: UInt8 = 31
    static let numberText: UInt8 = 10, numberLongText: UInt8 = 12

    // Manually managed storage: appends are a bounds check and a store, with no uniqueness or
    // exclusivity checks (this sits on the per-event path while a record is captured).
    @exclusivity(unchecked) private var storage = GrowableBuffer<UInt8>(capacity: 4096)
    @inline(__always) private var bytes: UnsafeMutableRawPointer { UnsafeMutableRawPointer(storage.base) }
    /// The bytes used: where the next value is recorded.
    @exclusivity(unchecked) private(set) var count = 0
    /// A container being recorded: its position and its number of values so far.
    private struct OpenContainer: BitwiseCopyable {
        var start: Int
        var values: Int
    }
    /// The containers being recorded, innermost last (`openCount` of them): a stack in manually
    /// managed storage, changed on every value with no uniqueness or bounds checks.
    @exclusivity(unchecked) private var open = GrowableBuffer<OpenContainer>(capacity: 16)
    @exclusivity(unchecked) private var openCount = 0
    /// The largest length or count a narrow header holds (lowered by tests to reach the wide form).
    package var narrowLimit = Int(UInt32.max)
    /// Where each recorded value (not key) starts in the source, in the order of their tags, for
    /// errors: a record's first value as three varints (offset, line, column), each later one as
    /// `varint(offset delta << 1 | new line)`, followed on a new line by the line delta and the
    /// column. About one byte per value.
    @exclusivity(unchecked) private var positionStorage = GrowableBuffer<UInt8>(capacity: 1024)
    @inline(__always) private var positions: UnsafeMutablePointer<UInt8> { positionStorage.base }
    /// The bytes of positions used: where the next value's position is recorded.
    @exclusivity(unchecked) private(set) var positionCount = 0
    @exclusivity(unchecked) private var previous = SourcePosition(offset: 0, line: 1, column: 1)

    init() {}

    deinit {
        storage.deallocate()
        positionStorage.deallocate()
        open.deallocate()
    }

    /// The bytes the recorded values take.
    var footprint: Int { count + positionCount }

    /// Records where the next value starts: absolute for a record's first value, else relative
    /// to the previous one.
    @inline(__always)
    private func note(_ position: SourcePosition) {
        if positionCount + 30 > positionStorage.capacity { positionStorage.grow(toAtLeast: positionCount + 30) }
        if openCount == 0 {
            appendVarint(UInt64(max(0, position.offset)))
            appendVarint(UInt64(max(0, position.line)))
            appendVarint(UInt64(max(0, position.column)))
        } else {
            let delta = UInt64(max(0, position.offset - previous.offset))
            if position.line == previous.line {
                appendVarint(delta << 1)
            } else {
                appendVarint(delta << 1 | 1)
                appendVarint(UInt64(max(0, position.line - previous.line)))
                appendVarint(UInt64(max(0, position.column)))
            }
        }
        previous = position
    }

    @inline(__always)
    private func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            positions[positionCount] = UInt8(truncatingIfNeeded: value) | 0x80
            positionCount &+= 1
            value >>= 7
        }
        positions[positionCount] = UInt8(value)
        positionCount &+= 1
    }

    /// Whether a container is open (a record is being captured).
    var isCapturing: Bool { openCount > 0 }

    /// Forgets all records, keeping the storage.
    func removeAll() {
        count = 0
        positionCount = 0
        openCount = 0
    }

    /// Drops every byte before `start` and every position before `positionStart` (the record
    /// being recorded), keeping that record, so the tape holds only what is still needed.
    func discard(before start: Int, positionsBefore positionStart: Int) {
        if start > 0 {
            bytes.copyMemory(from: bytes + start, byteCount: count - start)
            count -= start
            for index in 0..<openCount { open[index].start -= start }
        }
        if positionStart > 0 {
            positions.update(from: positions + positionStart, count: positionCount - positionStart)
            positionCount -= positionStart
        }
    }

    /// Moves the record being recorded in `other` (its bytes from `start`, its positions from
    /// `positionStart`) into this tape, which must be empty. `other` keeps the complete records.
    func takeIncompleteRecord(from other: Tape, at start: Int, positionsAt positionStart: Int) {
        precondition(count == 0 && positionCount == 0, "the tape must be empty")
        let length = other.count - start
        reserve(length)
        bytes.copyMemory(from: other.bytes + start, byteCount: length)
        count = length
        let positionLength = other.positionCount - positionStart
        positionStorage.grow(toAtLeast: positionLength + 30)
        positions.update(from: other.positions + positionStart, count: positionLength)
        positionCount = positionLength
        previous = other.previous
        if other.openCount > open.capacity { open.grow(toAtLeast: other.openCount) }
        for index in 0..<other.openCount {
            open[index] = OpenContainer(start: other.open[index].start - start, values: other.open[index].values)
        }
        openCount = other.openCount
        other.count = start
        other.positionCount = positionStart
        other.openCount = 0
    }

    /// Forgets the record being recorded (it starts at `start`, its positions at `positionStart`).
    func abandon(to start: Int, positionsTo positionStart: Int) {
        count = start
        positionCount = positionStart
        openCount = 0
    }

    /// Exchanges the contents (and storage) of two tapes.
    func swapContents(with other: Tape) {
        swap(&storage, &other.storage)
        swap(&count, &other.count)
        swap(&open, &other.open)
        swap(&openCount, &other.openCount)
        swap(&positionStorage, &other.positionStorage)
        swap(&positionCount, &other.positionCount)
        swap(&previous, &other.previous)
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    private func reserve(_ extra: Int) {
        if count + extra > storage.capacity { storage.grow(toAtLeast: count + extra) }
    }

    @inline(__always)
    private func tag(_ kind: Kind, _ small: UInt8) -> UInt8 { kind.rawValue | small << 3 }

    @inline(__always)
    private func valueStarts() {
        if openCount > 0 { open[openCount &- 1].values &+= 1 }
    }

    func startContainer(_ kind: Kind, at position: SourcePosition) {
        note(position)
        valueStarts()
        if openCount == open.capacity { open.grow(toAtLeast: openCount + 1) }
        open[openCount] = OpenContainer(start: count, values: 0)
        openCount &+= 1
        reserve(Self.narrowHeader)
        (bytes + count).storeBytes(of: tag(kind, 0), as: UInt8.self)
        count += Self.narrowHeader
    }

    func endContainer() {
        precondition(openCount > 0, "no container is open")
        openCount &-= 1
        let (start, values) = (open[openCount].start, open[openCount].values)
        let kind = (bytes + start).load(as: UInt8.self) & 7
        let length = count - start - Self.narrowHeader
        if values == 0 {
            (bytes + start).storeBytes(of: kind | Self.containerEmpty << 3, as: UInt8.self)
            count = start + 1
        } else if length <= narrowLimit && values <= narrowLimit {
            (bytes + start + 1).storeBytes(of: UInt32(length).littleEndian, as: UInt32.self)
            (bytes + start + 5).storeBytes(of: UInt32(values).littleEndian, as: UInt32.self)
        } else {
            // Past 4 GiB: move the members up to make room for a wide header (once per such container).
            let extra = Self.wideHeader - Self.narrowHeader
            reserve(extra)
            (bytes + start + Self.wideHeader).copyMemory(from: bytes + start + Self.narrowHeader, byteCount: length)
            count += extra
            (bytes + start).storeBytes(of: kind | Self.containerWide << 3, as: UInt8.self)
            (bytes + start + 1).storeBytes(of: UInt64(length).littleEndian, as: UInt64.self)
            (bytes + start + 9).storeBytes(of: UInt64(values).littleEndian, as: UInt64.self)
        }
    }

    /// Appends text bytes (room already reserved).
    @inline(__always)
    private func appendText(_ text: UnsafeRawBufferPointer) {
        guard let source = text.baseAddress else { return }
        copyBytes(to: bytes + count, from: source, count: text.count)
        count += text.count
    }

    /// A key (whose position is never reported: a missing key is reported at its object), or a
    /// string at `position`.
    func text(_ kind: Kind, _ text: UnsafeRawBufferPointer, at position: SourcePosition? = nil) {
        if let position { note(position) }
        if kind != .key { valueStarts() }
        let length = text.count
        if length < Int(Self.textLong) {
            reserve(1 + length)
            (bytes + count).storeBytes(of: tag(kind, UInt8(length)), as: UInt8.self)
            count += 1
        } else {
            reserve(9 + length)
            (bytes + count).storeBytes(of: tag(kind, Self.textLong), as: UInt8.self)
            (bytes + count + 1).storeBytes(of: UInt64(length).littleEndian, as: UInt64.self)
            count += 9
        }
        appendText(text)
    }

    /// A number: a one-digit integer in its tag alone; else its text (see the type's notes).
    func number(_ text: UnsafeRawBufferPointer, at position: SourcePosition) {
        note(position)
        valueStarts()
        let length = text.count
        if length == 1, let digit = text.first, digit.isASCIIDigit {
            reserve(1)
            (bytes + count).storeBytes(of: tag(.number, digit &- UInt8(ascii: "0")), as: UInt8.self)
            count += 1
            return
        }
        reserve(9 + length)
        if length <= Int(UInt8.max) {
            (bytes + count).storeBytes(of: tag(.number, Self.numberText), as: UInt8.self)
            (bytes + count + 1).storeBytes(of: UInt8(length), as: UInt8.self)
            count += 2
        } else {
            (bytes + count).storeBytes(of: tag(.number, Self.numberLongText), as: UInt8.self)
            (bytes + count + 1).storeBytes(of: UInt64(length).littleEndian, as: UInt64.self)
            count += 9
        }
        appendText(text)
    }

    func scalar(_ kind: Kind, _ flag: Bool = false, at position: SourcePosition) {
        note(position)
        valueStarts()
        reserve(1)
        (bytes + count).storeBytes(of: tag(kind, flag ? 1 : 0), as: UInt8.self)
        count += 1
    }

    /// Read access for decoding, valid until the tape is next changed.
    var view: TapeView {
        TapeView(
            bytes: UnsafeRawBufferPointer(start: bytes, count: count),
            positions: UnsafeRawBufferPointer(start: positions, count: positionCount)
        )
    }
}
