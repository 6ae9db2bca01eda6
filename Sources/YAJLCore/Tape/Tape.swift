// Tape/: the captured values, recorded flat in one buffer (written by CYAJLSupport's tape writer)
// and read back by position; calls CYAJLSupport.

private import CYAJL
private import CYAJLSupport

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
/// The writer is in C (`tape.h`), so that the capture callbacks (`capture.h`) write the inside of
/// a selected value with no call into Swift per event; ``TapeView`` reads it.
///
/// Numbers keep only their text: a reader classifies a number when it reads it (once, where it is
/// decoded), not the parser while it records. With ``JSONRecordOptions/parsesConcurrently`` the
/// parsing thread is the slower of the two, and a number not decoded costs nothing more.
final class Tape {
    enum Kind: UInt8 { case object, array, key, string, number, bool, null }

    /// Sizes of a container's header: tag and two `UInt32`s, or tag and two `UInt64`s.
    static let narrowHeader = Int(CYAJL_TAPE_NARROW_HEADER)
    static let wideHeader = Int(CYAJL_TAPE_WIDE_HEADER)
    /// `small` values of the encoding.
    static let containerWide = UInt8(CYAJL_TAPE_CONTAINER_WIDE)
    static let containerEmpty = UInt8(CYAJL_TAPE_CONTAINER_EMPTY)
    static let textLong = UInt8(CYAJL_TAPE_TEXT_LONG)
    static let numberText = UInt8(CYAJL_TAPE_NUMBER_TEXT)
    static let numberLongText = UInt8(CYAJL_TAPE_NUMBER_LONG_TEXT)

    /// The values, their positions and the open containers, at a fixed address for the tape's
    /// lifetime (the capture callbacks write through it).
    ///
    /// Positions: where each recorded value (not key) starts in the source, in the order of their
    /// tags, for errors: a record's first value as three varints (offset, line, column), each
    /// later one as `varint(offset delta << 1 | new line)`, followed on a new line by the line
    /// delta and the column. About one byte per value.
    private let raw: UnsafeMutablePointer<cyajl_tape>

    /// ``raw``, untyped, for the capture callbacks (the C type is private to the files that use
    /// it).
    var storage: UnsafeMutableRawPointer { UnsafeMutableRawPointer(raw) }

    init() {
        raw = .allocate(capacity: 1)
        cyajl_tape_init(raw)
    }

    deinit {
        cyajl_tape_destroy(raw)
        raw.deallocate()
    }

    /// The bytes used: where the next value is recorded.
    var count: Int { raw.pointee.count }
    /// The bytes of positions used: where the next value's position is recorded.
    var positionCount: Int { raw.pointee.position_count }
    /// The largest length or count a narrow header holds (lowered by tests to reach the wide form).
    package var narrowLimit: Int {
        get { Int(raw.pointee.narrow_limit) }
        set { raw.pointee.narrow_limit = newValue }
    }

    /// The bytes the recorded values take.
    var footprint: Int { count + positionCount }

    /// Whether a container is open (a record is being captured).
    var isCapturing: Bool { raw.pointee.open_count > 0 }

    /// Forgets all records, keeping the storage.
    func removeAll() {
        raw.pointee.count = 0
        raw.pointee.position_count = 0
        raw.pointee.open_count = 0
    }

    /// Drops every byte before `start` and every position before `positionStart` (the record
    /// being recorded), keeping that record, so the tape holds only what is still needed.
    func discard(before start: Int, positionsBefore positionStart: Int) {
        cyajl_tape_discard(raw, start, positionStart)
    }

    /// Moves the record being recorded in `other` (its bytes from `start`, its positions from
    /// `positionStart`) into this tape, which must be empty. `other` keeps the complete records.
    func takeIncompleteRecord(from other: Tape, at start: Int, positionsAt positionStart: Int) {
        precondition(count == 0 && positionCount == 0, "the tape must be empty")
        precondition(start <= other.count && positionStart <= other.positionCount, "the record is not on the tape")
        cyajl_tape_take_incomplete_record(raw, other.raw, start, positionStart)
    }

    /// Forgets the record being recorded (it starts at `start`, its positions at `positionStart`).
    func abandon(to start: Int, positionsTo positionStart: Int) {
        raw.pointee.count = start
        raw.pointee.position_count = positionStart
        raw.pointee.open_count = 0
    }

    /// Exchanges the contents (and storage) of two tapes; each keeps its address.
    func swapContents(with other: Tape) { cyajl_tape_swap(raw, other.raw) }

    func startContainer(_ kind: Kind, at position: SourcePosition) {
        cyajl_tape_start_container(raw, Int32(kind.rawValue), position.offset, position.line, position.column)
    }

    func endContainer() {
        precondition(isCapturing, "no container is open")
        cyajl_tape_end_container(raw)
    }

    /// A key (whose position is never reported: a missing key is reported at its object), or a
    /// string at `position`.
    func text(_ kind: Kind, _ text: UnsafeRawBufferPointer, at position: SourcePosition? = nil) {
        let at = position ?? SourcePosition(offset: 0, line: 0, column: 0)
        cyajl_tape_text(
            raw,
            Int32(kind.rawValue),
            text.baseAddress,
            text.count,
            position == nil ? 0 : 1,
            at.offset,
            at.line,
            at.column
        )
    }

    /// A number: a one-digit integer in its tag alone; else its text (see the type's notes).
    func number(_ text: UnsafeRawBufferPointer, at position: SourcePosition) {
        cyajl_tape_number(raw, text.baseAddress, text.count, position.offset, position.line, position.column)
    }

    func scalar(_ kind: Kind, _ flag: Bool = false, at position: SourcePosition) {
        cyajl_tape_scalar(raw, Int32(kind.rawValue), flag ? 1 : 0, position.offset, position.line, position.column)
    }

    /// Read access for decoding, valid until the tape is next changed.
    var view: TapeView {
        TapeView(
            bytes: UnsafeRawBufferPointer(start: raw.pointee.bytes, count: count),
            positions: UnsafeRawBufferPointer(start: raw.pointee.positions, count: positionCount)
        )
    }
}
