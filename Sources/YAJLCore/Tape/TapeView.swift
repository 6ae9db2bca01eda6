/// Read access to a tape for decoding, valid while the tape is not changed. An index is the
/// position of a value's (or key's) tag byte; see ``Tape`` for the encoding.
struct TapeView {
    let bytes: UnsafeRawBufferPointer
    /// Where the values start in the source (see ``Tape``), read only for errors.
    let positions: UnsafeRawBufferPointer

    /// A tape of one `null` at index 0, never freed (for a decoder of a value that is absent).
    nonisolated(unsafe) static let null: TapeView = {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 1, alignment: 1)
        bytes[0] = Tape.Kind.null.rawValue
        return TapeView(bytes: UnsafeRawBufferPointer(bytes), positions: UnsafeRawBufferPointer(start: nil, count: 0))
    }()

    /// Where the value at `target` starts in the source, found by walking the record that
    /// starts at `start` (its positions at `positionStart`) in document order.
    func sourcePosition(of target: Int, inRecordAt start: Int, positionsAt positionStart: Int) -> SourcePosition {
        var reader = PositionReader(positions: positions, cursor: positionStart)
        var position = reader.first()
        var index = start
        while index < target && index < bytes.count {
            index = kind(index) == .object || kind(index) == .array ? firstChild(index) : next(index)
            guard index <= target else { break }
            if kind(index) == .key { continue }  // keys have no position
            position = reader.next(after: position)
        }
        return position
    }

    @inline(__always)
    private func small(_ index: Int) -> UInt8 { bytes[index] >> 3 }

    /// The kind of the value or key at `index`.
    @inline(__always)
    func kind(_ index: Int) -> Tape.Kind { Tape.Kind(rawValue: bytes[index] & 7).unsafelyUnwrapped }

    /// The size of the container header at `index`.
    @inline(__always)
    private func headerSize(_ index: Int) -> Int {
        switch small(index) {
        case 0: return Tape.narrowHeader
        case Tape.containerWide: return Tape.wideHeader
        default: return 1
        }
    }

    /// The number of values (members or elements) of the container at `index`.
    func count(_ index: Int) -> Int {
        switch small(index) {
        case 0: return Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index + 5, as: UInt32.self)))
        case Tape.containerWide:
            return Int(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index + 9, as: UInt64.self)))
        default: return 0
        }
    }

    /// The first member's key or element of the container at `index` (its end when it is empty).
    @inline(__always)
    func firstChild(_ index: Int) -> Int { index + headerSize(index) }

    /// The index just past the container at `index`.
    @inline(__always)
    func end(_ index: Int) -> Int {
        switch small(index) {
        case 0:
            return index + Tape.narrowHeader
                + Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index + 1, as: UInt32.self)))
        case Tape.containerWide:
            return index + Tape.wideHeader
                + Int(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index + 1, as: UInt64.self)))
        default: return index + 1
        }
    }

    /// Where the text of the key, string or number at `index` lies: (start, length).
    @inline(__always)
    private func textRange(_ index: Int) -> (start: Int, length: Int) {
        let small = small(index)
        if kind(index) == .number {
            if small < Tape.numberText { return (index, 0) }  // a digit: not stored
            if small == Tape.numberLongText {
                return (
                    index + 9,
                    Int(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index + 1, as: UInt64.self)))
                )
            }
            return (index + 2, Int(bytes[index + 1]))
        }
        if small == Tape.textLong {
            return (
                index + 9, Int(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index + 1, as: UInt64.self)))
            )
        }
        return (index + 1, Int(small))
    }

    /// The index just past the value or key at `index`.
    @inline(__always)
    func next(_ index: Int) -> Int {
        switch kind(index) {
        case .object, .array: return end(index)
        case .bool, .null: return index + 1
        case .key, .string:
            let (start, length) = textRange(index)
            return start + length
        case .number:
            let small = small(index)
            if small < Tape.numberText { return index + 1 }
            let (start, length) = textRange(index)
            return start + length
        }
    }

    /// The value of the boolean at `index`.
    @inline(__always)
    func bool(_ index: Int) -> Bool { small(index) != 0 }

    /// The text of the key, string or number at `index`.
    @inline(__always)
    func text(_ index: Int) -> UnsafeRawBufferPointer {
        if kind(index) == .number, small(index) < Tape.numberText {
            return UnsafeRawBufferPointer(start: UnsafeRawPointer(Self.digits.utf8Start) + Int(small(index)), count: 1)
        }
        let (start, length) = textRange(index)
        return UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)])
    }

    /// The text of the one-digit integers that the tape stores in their tags.
    private static let digits: StaticString = "0123456789"

    func string(_ index: Int) -> String { makeString(text(index)) }

    func number(_ index: Int) -> JSONNumber {
        JSONNumber(text: makeString(text(index)), value: numberValue(index))
    }

    /// The value of the number at `index`: a digit from its tag, else classified from its text.
    @inline(__always)
    func numberValue(_ index: Int) -> JSONNumber.Value {
        let small = small(index)
        if small < Tape.numberText { return .integer(Int64(small)) }
        return JSONNumberParser.classify(text(index))
    }

    /// The value after the key at `index` when `index` holds a key whose text is `key`'s UTF-8;
    /// nil otherwise. One read of the tag and one comparison: the key lookup's fast path.
    @inline(__always)
    func valueOfKey(at index: Int, named key: String) -> Int? {
        guard let base = bytes.baseAddress, index < bytes.count else { return nil }
        let tag = base.load(fromByteOffset: index, as: UInt8.self)
        guard tag & 7 == Tape.Kind.key.rawValue else { return nil }
        var start = index &+ 1
        var length = Int(tag >> 3)
        if length == Int(Tape.textLong) {
            length = Int(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: start, as: UInt64.self)))
            start = index &+ 9
        }
        func equal(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
            utf8.count == length && (length == 0 || memcmpEqual(utf8.baseAddress!, base + start, length))
        }
        let isEqual: Bool
        if let result = key.utf8.withContiguousStorageIfAvailable(equal) {
            isEqual = result
        } else {
            var key = key
            isEqual = key.withUTF8(equal)
        }
        return isEqual ? start &+ length : nil
    }

    /// Whether the key at `index` equals `key`'s UTF-8, without allocating: in place for a native
    /// string (no copy of `key`, so no retain and release of its storage per comparison).
    @inline(__always)
    func keyEquals(_ index: Int, _ key: String) -> Bool {
        let bytes = self.text(index)
        func equal(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
            utf8.count == bytes.count
                && (utf8.isEmpty || memcmpEqual(utf8.baseAddress!, bytes.baseAddress!, utf8.count))
        }
        if let result = key.utf8.withContiguousStorageIfAvailable(equal) { return result }
        var key = key
        return key.withUTF8(equal)
    }

    func kindName(_ index: Int) -> String {
        switch kind(index) {
        case .object: return "object"
        case .array: return "array"
        case .key, .string: return "string"
        case .number: return "number"
        case .bool: return "boolean"
        case .null: return "null"
        }
    }

    /// The value at `index` as an owned ``JSONValue``; object keys through `keys` when given (a
    /// session's cache of the strings it made for keys before). Built in one pass over the
    /// entries, the open containers on an explicit stack (no recursion, whatever the depth).
    func value(_ index: Int, keys: KeyStringCache? = nil) -> JSONValue {
        struct Open {
            let end: Int
            let isObject: Bool
            var elements: [JSONValue] = []
            var members: [JSONObject.Member] = []
            /// The key this container is the value of, in its parent.
            let keyInParent: String?
        }
        if kind(index) == .key { return .string(string(index)) }
        let end = next(index)
        var open: [Open] = []
        var pendingKey: String?
        var entry = index
        var finished: JSONValue?
        func add(_ value: JSONValue, to open: inout [Open], key: inout String?) -> JSONValue? {
            guard !open.isEmpty else { return value }
            let top = open.count - 1
            if open[top].isObject {
                open[top].members.append(JSONObject.Member(key: key ?? "", value: value))
                key = nil
            } else {
                open[top].elements.append(value)
            }
            return nil
        }
        while true {
            while let top = open.last, top.end <= entry {
                let closed = open.removeLast()
                let value: JSONValue = closed.isObject ? .object(JSONObject(closed.members)) : .array(closed.elements)
                pendingKey = closed.keyInParent
                if let done = add(value, to: &open, key: &pendingKey) { return done }
            }
            guard entry < end else { return finished ?? .null }
            let scalar: JSONValue
            switch kind(entry) {
            case .key:
                pendingKey = keys?.string(text(entry)) ?? string(entry)
                entry = next(entry)
                continue
            case .array, .object:
                var container = Open(end: self.end(entry), isObject: kind(entry) == .object, keyInParent: pendingKey)
                if container.isObject {
                    container.members.reserveCapacity(count(entry))
                } else {
                    container.elements.reserveCapacity(count(entry))
                }
                pendingKey = nil
                open.append(container)
                entry = firstChild(entry)
                continue
            case .null: scalar = .null
            case .bool: scalar = .bool(bool(entry))
            case .number: scalar = .number(number(entry))
            case .string: scalar = .string(string(entry))
            }
            if let done = add(scalar, to: &open, key: &pendingKey) { finished = done }
            entry = next(entry)
        }
    }
}

/// Reads a record's source positions (see ``Tape``) in the order of its values.
struct PositionReader {
    let positions: UnsafeRawBufferPointer
    var cursor: Int

    private mutating func varint() -> Int {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while cursor < positions.count {
            let byte = positions[cursor]
            cursor += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 || shift >= 63 { break }
            shift += 7
        }
        return Int(truncatingIfNeeded: value)
    }

    /// The position of the record's first value (stored whole).
    mutating func first() -> SourcePosition {
        SourcePosition(offset: varint(), line: varint(), column: varint())
    }

    /// The position of the next value, stored relative to `previous`.
    mutating func next(after previous: SourcePosition) -> SourcePosition {
        var position = previous
        let entry = varint()
        position.offset += entry >> 1
        if entry & 1 == 0 {
            position.column += entry >> 1
        } else {
            position.line += varint()
            position.column = varint()
        }
        return position
    }
}
