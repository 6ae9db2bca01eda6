/// A JSON number, lossless: its original text, and the value classified from it.
///
/// Classification rules:
/// - written without fraction or exponent and fits in `Int64` → ``Value/integer(_:)``;
/// - written without fraction or exponent but beyond `Int64` (`9223372036854775808`, 30-digit
///   ids) → ``Value/unrepresentable``: the exact text is the value, never a rounded double;
/// - otherwise, if it converts to a finite `Double` → ``Value/double(_:)``;
/// - otherwise (e.g. `1e400`) → ``Value/unrepresentable``: only ``text`` holds it.
///
/// ``text`` is always the number exactly as written, so a writer can pass it through untouched
/// (`-0`, `1E+2` and 30-digit integers survive a round trip).
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The classified value of a number.
    public enum Value: Sendable, Hashable {
        /// Written without fraction or exponent, and fits in `Int64`.
        case integer(Int64)
        /// Not an `Int64`, but converts to a finite `Double` (shortest round-trip on output).
        case double(Double)
        /// Neither: an integer literal beyond `Int64` (kept exactly, not rounded), or a number too
        /// large for a finite `Double` (e.g. `1e400`). Use ``JSONNumber/text``.
        case unrepresentable
    }

    /// Which case a ``Value`` is, without its payload (``JSONNumberView/kind`` finds it without
    /// converting the number).
    public enum Kind: Sendable, Hashable {
        /// ``Value/integer(_:)``.
        case integer
        /// ``Value/double(_:)``.
        case double
        /// ``Value/unrepresentable``.
        case unrepresentable
    }

    /// The number exactly as written in the document.
    public let text: String
    /// The classified value.
    public let value: Value

    /// Parses and classifies a number from its JSON text. Returns `nil` if `text` is not a JSON number.
    public init?(_ text: String) {
        var text = text
        guard
            let value = text.withUTF8({ utf8 -> Value? in
                guard JSONNumberGrammar.isValid(utf8) else { return nil }
                return JSONNumberParser.classify(UnsafeRawBufferPointer(utf8))
            })
        else { return nil }
        self.text = text
        self.value = value
    }

    init(text: String, value: Value) {
        self.text = text
        self.value = value
    }

    /// The value as `Int64`, if it is an integer.
    public var int64Value: Int64? {
        if case .integer(let value) = value { return value }
        return nil
    }

    /// The value as `Double`: exact for doubles, converted (correctly rounded) for integers of any
    /// size, `-0.0` for `-0`; `nil` when the number is beyond `Double`'s range (`1e400`).
    public var doubleValue: Double? {
        switch value {
        case .integer(let value): return value == 0 && text.hasPrefix("-") ? -0.0 : Double(value)
        case .double(let value): return value
        case .unrepresentable:
            guard let double = Double(text), double.isFinite else { return nil }
            return double
        }
    }

    /// The original text.
    public var description: String { text }
}

extension JSONNumber.Value {
    /// Which case this is, without its payload.
    public var kind: JSONNumber.Kind {
        switch self {
        case .integer: .integer
        case .double: .double
        case .unrepresentable: .unrepresentable
        }
    }
}

/// A number as YAJL delivered it: its text, borrowed for the duration of one callback.
///
/// Classification (``value``) runs only when you ask for it, so handlers that pass numbers
/// through (writers, filters) never pay for conversion.
public struct JSONNumberView: CustomStringConvertible {
    /// The number's text as written (ASCII digits, sign, `.`, `e`). Valid only during the callback.
    public let bytes: UnsafeRawBufferPointer

    /// Wraps borrowed number text that YAJL has already validated.
    @inlinable
    public init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Classifies the number (integer fast path, then a correctly rounded double).
    public var value: JSONNumber.Value { JSONNumberParser.classify(bytes) }

    /// The original text as an owned `String`.
    public var text: String { makeString(bytes) }

    /// Which case ``value`` is, found from the text's shape (integer or not, number of digits,
    /// decimal magnitude) without converting it: what a handler that only counts or routes numbers
    /// needs (`yajl stats`). Only integers of 19 digits and decimals of magnitude 10^308 (next to
    /// `Double`'s largest) are converted to decide.
    @inlinable
    public var kind: JSONNumber.Kind { JSONNumberParser.kind(bytes) }

    /// An owned, classified copy.
    public var number: JSONNumber { JSONNumber(text: text, value: value) }

    /// The original text.
    public var description: String { text }
}

@available(*, unavailable, message: "a JSONNumberView borrows YAJL's buffer for one callback; copy it with .number")
extension JSONNumberView: Sendable {}
