/// JSON's grammar checked byte by byte in Swift, without YAJL, for the lean pass of
/// ``JSONParser/validate(_:options:)`` (``LeanValidation``): a quarter (text) to a half (numbers)
/// of YAJL's instructions per byte, since it lexes no token into a buffer and calls nothing per
/// event.
///
/// It accepts exactly the grammar YAJL accepts as ``YAJLParserBridge/configure(_:_:)`` sets it up
/// with the options ``supports(_:)`` allows (no comments, one value, no partial values, no
/// trailing garbage):
/// - white space is YAJL's: space, tab, line feed, carriage return, and also vertical tab and
///   form feed;
/// - strings: any byte but `"`, `\` and the controls below 0x20, which must be escaped as `\"`,
///   `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t` or `\u` and four hexadecimal digits (bytes from 0x80
///   are left to ``UTF8Validator``, which sees every byte first, as in the full pass);
/// - numbers: `-`? (`0` | `[1-9][0-9]*`) (`.` `[0-9]+`)? (`[eE]` `[+-]`? `[0-9]+`)?;
/// - `true`, `false`, `null`, objects with string keys, arrays, no trailing commas, and one value
///   in the document followed by nothing but white space.
///
/// A document it accepts is one YAJL accepts; the tests compare the two on the conformance suites,
/// on generated documents and by fuzzing. It has no error messages: anything it rejects goes to
/// the full pass, which finds the error and its place, and limits it cannot judge exactly (a token
/// near ``JSONParser/Options/maxTokenBytes``) make it give up (``Outcome/unsupported``).
/// Memory: the kind of each open container, one bit per level up to
/// ``JSONParser/Options/maxDepth``.
final class SyntaxScanner {
    enum Outcome: Equatable {
        /// Valid so far.
        case fine
        /// The input is not valid JSON, or passes ``JSONParser/Options/maxDepth``.
        case invalid
        /// A token too near ``JSONParser/Options/maxTokenBytes`` to judge here.
        case unsupported
    }

    /// What may come next, after white space.
    private enum Expect: UInt8 {
        /// The document's value.
        case topValue
        /// After `[`: a value or `]`.
        case firstElement
        /// After `,` in an array.
        case element
        /// After `:`.
        case memberValue
        /// After `{`: a key or `}`.
        case firstKey
        /// After `,` in an object.
        case key
        /// After a key.
        case colon
        /// After a value inside a container: `,` or the container's end.
        case afterValue
        /// After the document's value: only white space.
        case done
    }

    /// The token a read ended inside, if any.
    private enum Token: UInt8 {
        case none, string, key, number, literal
    }

    private var expect = Expect.topValue
    private var token = Token.none
    /// The token's state: ``StringState``, ``NumberState``, or the bytes a literal still needs.
    private var tokenState: UInt8 = 0
    /// The rest of a literal (`rue` of `true`), first byte lowest.
    private var literalRest: UInt32 = 0
    /// Absolute offset of the current token's first byte.
    private var tokenStart = 0
    private var depth = 0
    private let maxDepth: Int
    /// Longest token accepted: half of ``JSONParser/Options/maxTokenBytes``, so that the full
    /// pass's count of a token's bytes (which never exceeds its length) is always within the limit.
    private let maxTokenLength: Int
    /// One bit per open container, set for an object.
    private let kinds: UnsafeMutablePointer<UInt64>

    /// Whether the scanner decides as YAJL would with `options`.
    static func supports(_ options: JSONParser.Options) -> Bool {
        !options.allowComments && !options.allowMultipleValues && !options.allowPartialValues
            && !options.allowTrailingGarbage && options.validatesUTF8
    }

    /// A scanner for options that ``supports(_:)`` allows and that passed `Options.validate()`.
    init(options: JSONParser.Options) {
        maxDepth = options.maxDepth
        maxTokenLength = options.maxTokenBytes / 2
        let words = options.maxDepth / 64 + 1
        kinds = .allocate(capacity: words)
        kinds.initialize(repeating: 0, count: words)
    }

    deinit { kinds.deallocate() }

    /// Checks the next read, which starts at absolute offset `base`.
    func scan(_ chunk: UnsafeRawBufferPointer, base: Int) -> Outcome {
        guard let bytes = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self), !chunk.isEmpty else { return .fine }
        var index = 0
        if token != .none {
            let outcome = resumeToken(bytes, chunk.count, &index, base: base)
            if outcome != .fine || token != .none { return outcome }
        }
        return scanValues(bytes, chunk.count, from: index, base: base)
    }

    /// The input has ended: a number at the end of the document ends with it.
    func finish(end: Int) -> Outcome {
        if token == .number && NumberState.canEnd(tokenState) {
            token = .none
            if end - tokenStart > maxTokenLength { return .unsupported }
            expect = Self.afterValue(at: depth)
        }
        return token == .none && expect == .done ? .fine : .invalid
    }

    // MARK: - Between tokens

    /// The structure: white space, punctuation, and the start of each token, from `start` to the
    /// end of the read. The state lives in locals here (the class's properties are written back
    /// on the way out), and the kind of the innermost container in `inObject`.
    private func scanValues(_ bytes: UnsafePointer<UInt8>, _ count: Int, from start: Int, base: Int) -> Outcome {
        var index = start
        var expect = self.expect
        var depth = self.depth
        var inObject = isObject(depth)
        let maxTokenLength = self.maxTokenLength
        defer {
            self.expect = expect
            self.depth = depth
        }
        while true {
            if index == count { return .fine }
            var byte = bytes[index]
            if byte <= 0x20 && Self.isWhiteSpace(byte) {
                index = Self.skipWhiteSpace(bytes, count, from: index &+ 1)
                if index == count { return .fine }
                byte = bytes[index]
            }
            let tokenIndex = index
            index &+= 1
            switch expect {
            case .topValue, .firstElement, .element, .memberValue:
                switch byte {
                case UInt8(ascii: "\""):
                    var state = StringState.plain
                    guard let end = Self.scanString(bytes, count, from: index, &state) else { return .invalid }
                    guard state == StringState.closed else { return suspend(.string, state, at: base + tokenIndex) }
                    guard end - tokenIndex <= maxTokenLength else { return .unsupported }
                    index = end
                    expect = Self.afterValue(at: depth)
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    var state = NumberState.afterMinus
                    guard let end = Self.scanNumber(bytes, count, at: tokenIndex, &state) else { return .invalid }
                    guard state == NumberState.ended else { return suspend(.number, state, at: base + tokenIndex) }
                    guard end - tokenIndex <= maxTokenLength else { return .unsupported }
                    index = end
                    expect = Self.afterValue(at: depth)
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard depth < maxDepth else { return .invalid }
                    inObject = byte == UInt8(ascii: "{")
                    setKind(at: depth, object: inObject)
                    depth &+= 1
                    expect = inObject ? .firstKey : .firstElement
                case UInt8(ascii: "]") where expect == .firstElement:
                    expect = close(&depth, &inObject)
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    var rest = Self.literalRest(after: byte)
                    var remaining: UInt8 = byte == UInt8(ascii: "f") ? 4 : 3
                    guard let end = Self.scanLiteral(bytes, count, from: index, &rest, &remaining) else {
                        return .invalid
                    }
                    if remaining > 0 {
                        literalRest = rest
                        return suspend(.literal, remaining, at: base + tokenIndex)
                    }
                    guard end - tokenIndex <= maxTokenLength else { return .unsupported }
                    index = end
                    expect = Self.afterValue(at: depth)
                default:
                    return .invalid
                }
            case .firstKey, .key:
                if byte == UInt8(ascii: "}") && expect == .firstKey {
                    expect = close(&depth, &inObject)
                    continue
                }
                guard byte == UInt8(ascii: "\"") else { return .invalid }
                var state = StringState.plain
                guard let end = Self.scanString(bytes, count, from: index, &state) else { return .invalid }
                expect = .colon
                guard state == StringState.closed else { return suspend(.key, state, at: base + tokenIndex) }
                guard end - tokenIndex <= maxTokenLength else { return .unsupported }
                index = end
            case .colon:
                guard byte == UInt8(ascii: ":") else { return .invalid }
                expect = .memberValue
            case .afterValue:
                switch byte {
                case UInt8(ascii: ","): expect = inObject ? .key : .element
                case UInt8(ascii: "]") where !inObject, UInt8(ascii: "}") where inObject:
                    expect = close(&depth, &inObject)
                default: return .invalid
                }
            case .done:
                return .invalid
            }
        }
    }

    /// Remembers a token the read ended inside; `expect` is what follows it.
    private func suspend(_ kind: Token, _ state: UInt8, at offset: Int) -> Outcome {
        token = kind
        tokenState = state
        tokenStart = offset
        return .fine
    }

    /// Continues the token an earlier read ended inside, from the start of this one.
    private func resumeToken(_ bytes: UnsafePointer<UInt8>, _ count: Int, _ index: inout Int, base: Int) -> Outcome {
        var state = tokenState
        let end: Int?
        let done: Bool
        switch token {
        case .none:
            return .fine
        case .string, .key:
            end = Self.scanString(bytes, count, from: 0, &state)
            done = state == StringState.closed
        case .number:
            end = Self.scanNumber(bytes, count, from: 0, &state)
            done = state == NumberState.ended
        case .literal:
            end = Self.scanLiteral(bytes, count, from: 0, &literalRest, &state)
            done = state == 0
        }
        guard let end else { return .invalid }
        tokenState = state
        index = end
        // Past the length it accepts, a token is left to YAJL's lean pass at once (a string of
        // gigabytes is not scanned to its end first).
        if base + end - tokenStart > maxTokenLength { return .unsupported }
        guard done else { return .fine }
        // A key is followed by its colon (already expected); a value by what follows values.
        if token != .key { expect = Self.afterValue(at: depth) }
        token = .none
        return .fine
    }

    // MARK: - Containers

    /// Whether the container at `level` (1 for the outermost) is an object; `false` at level 0.
    @inline(__always)
    private func isObject(_ level: Int) -> Bool {
        level > 0 && kinds[(level &- 1) >> 6] & (1 << UInt64((level &- 1) & 63)) != 0
    }

    /// What may follow a complete value at `depth`.
    @inline(__always)
    private static func afterValue(at depth: Int) -> Expect { depth == 0 ? .done : .afterValue }

    /// Closes the innermost container (its kind already checked): `depth` and `inObject` become
    /// those of the container around it; returns what may follow.
    @inline(__always)
    private func close(_ depth: inout Int, _ inObject: inout Bool) -> Expect {
        depth &-= 1
        inObject = isObject(depth)
        return Self.afterValue(at: depth)
    }

    /// Records the kind of the container opened at `depth` (0 for the outermost).
    @inline(__always)
    private func setKind(at depth: Int, object: Bool) {
        let word = depth >> 6
        let bit: UInt64 = 1 << UInt64(depth & 63)
        kinds[word] = object ? kinds[word] | bit : kinds[word] & ~bit
    }
}
