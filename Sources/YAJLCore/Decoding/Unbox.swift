#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The types ``TapeDecoder`` decodes directly, recognized by identities computed once: writing
/// `[String].self` on the decoding path would ask the runtime for `Array<String>`'s metadata on
/// every call, and returning `T?` from a generic function would ask for `Optional<T>`'s.
struct KnownTypes: Sendable {
    /// One of the directly decoded types.
    /// `doubles2` to `doubles4` are GeoJSON's coordinates (a line or ring `[[Double]]`, a polygon
    /// `[[[Double]]]`, a multipolygon `[[[[Double]]]]`): decoded through the standard library's
    /// `Array.init(from:)`, every element cost a lookup of the array's metadata.
    enum Direct { case string, double, int, bool, strings, doubles, ints, doubles2, doubles3, doubles4 }

    private let string = ObjectIdentifier(String.self)
    private let double = ObjectIdentifier(Double.self)
    private let int = ObjectIdentifier(Int.self)
    private let bool = ObjectIdentifier(Bool.self)
    private let strings = ObjectIdentifier([String].self)
    private let doubles = ObjectIdentifier([Double].self)
    private let ints = ObjectIdentifier([Int].self)
    private let doubles2 = ObjectIdentifier([[Double]].self)
    private let doubles3 = ObjectIdentifier([[[Double]]].self)
    private let doubles4 = ObjectIdentifier([[[[Double]]]].self)

    /// Which directly decoded type `type` is, if any.
    @inline(__always)
    func direct<T>(_ type: T.Type) -> Direct? {
        let id = ObjectIdentifier(type)
        if id == string { return .string }
        if id == double { return .double }
        if id == int { return .int }
        if id == bool { return .bool }
        if id == strings { return .strings }
        if id == doubles { return .doubles }
        if id == ints { return .ints }
        if id == doubles2 { return .doubles2 }
        if id == doubles3 { return .doubles3 }
        if id == doubles4 { return .doubles4 }
        return nil
    }

    static let shared = KnownTypes()
}

/// The conversions from a tape value to Swift's primitive types, shared by all containers, with
/// `JSONDecoder`'s semantics: a wrong type is `typeMismatch` naming the expected type, `null` where a
/// value is required is `valueNotFound`, and a number that does not fit is `dataCorrupted`.
enum Unbox {
    /// `Expected to decode String but found number instead.` as a `DecodingError.typeMismatch`, or
    /// `valueNotFound` when the value is `null`.
    static func mismatch(
        _ expected: Any.Type,
        _ view: TapeView,
        _ index: Int,
        _ node: @autoclosure () -> CodingPathNode
    ) -> DecodingError {
        let codingPath = node().codingPath
        if view.kind(index) == .null {
            return .valueNotFound(
                expected,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "Cannot get value of type \(typeName(expected)) -- found null value instead"
                )
            )
        }
        return .typeMismatch(
            expected,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "Expected to decode \(typeName(expected)) but found \(view.kindName(index)) instead."
            )
        )
    }

    /// How a type is named in messages: `String`, `object` for keyed containers, `array` for unkeyed.
    static func typeName(_ type: Any.Type) -> String {
        if type == [String: Any].self { return "object" }
        if type == [Any].self { return "array" }
        return "\(type)"
    }

    /// A container or decoder used after its record was decoded.
    static func expired(_ node: CodingPathNode) -> DecodingError {
        corrupted("a decoder or container was used after its record was decoded (keep values, not containers)", node)
    }

    static func corrupted(_ message: String, _ node: @autoclosure () -> CodingPathNode) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: node().codingPath, debugDescription: message))
    }

    static func isNull(_ view: TapeView, _ index: Int) -> Bool { view.kind(index) == .null }

    static func bool(_ view: TapeView, _ index: Int, _ node: @autoclosure () -> CodingPathNode) throws -> Bool {
        let kind = view.kind(index)
        guard kind == .bool else {
            // JSONDecoder reports null into Bool as a type mismatch, not valueNotFound: so do we.
            if kind == .null {
                throw DecodingError.typeMismatch(
                    Bool.self,
                    DecodingError.Context(
                        codingPath: node().codingPath,
                        debugDescription: "Expected to decode Bool but found null instead."
                    )
                )
            }
            throw mismatch(Bool.self, view, index, node())
        }
        return view.bool(index)
    }

    /// Strings only, as `JSONDecoder`: a number is a type mismatch (decode big integers into
    /// `Decimal`, `Int128` or `UInt64`, or take the whole value as a ``JSONValue``).
    static func string(_ view: TapeView, _ index: Int, _ node: @autoclosure () -> CodingPathNode) throws -> String {
        guard view.kind(index) == .string else { throw mismatch(String.self, view, index, node()) }
        return view.string(index)
    }

    static func double(
        _ view: TapeView,
        _ index: Int,
        _ node: @autoclosure () -> CodingPathNode,
        _ floatStrings: @autoclosure () -> NonConformingFloatStrings? = nil
    ) throws -> Double {
        guard view.kind(index) == .number else {
            // Read only here: copying the strategy's strings for every number retained three strings.
            if view.kind(index) == .string, let strings = floatStrings(),
                let value = strings.value(of: view.text(index))
            {
                return value
            }
            throw mismatch(Double.self, view, index, node())
        }
        switch view.numberValue(index) {
        case .integer(let integer):
            // `-0` is an integer of value 0 with a sign that a Double keeps.
            if integer == 0 && view.text(index).first == UInt8(ascii: "-") { return -0.0 }
            return Double(integer)
        case .double(let double): return double
        case .unrepresentable:
            // An integer beyond Int64 converts (rounded, as JSONDecoder does); `1e400` does not.
            let text = view.string(index)
            if let double = Double(text), double.isFinite { return double }
            throw corrupted("Number \(text) is not representable in Double", node())
        }
    }

    /// A `Float` as if rounded once from the text, as with `JSONDecoder`; out of range, or a
    /// non-zero value that underflows to zero, is `dataCorrupted`.
    ///
    /// Rounding the double again gives the same `Float` unless the double lies exactly halfway
    /// between two floats (or overflows or underflows): only then is the text itself rounded,
    /// so the common case makes no `String`.
    static func float(
        _ view: TapeView,
        _ index: Int,
        _ node: @autoclosure () -> CodingPathNode,
        _ floatStrings: @autoclosure () -> NonConformingFloatStrings? = nil
    ) throws -> Float {
        guard view.kind(index) == .number else {
            if view.kind(index) == .string, let strings = floatStrings(),
                let value = strings.value(of: view.text(index))
            {
                return Float(value)
            }
            throw mismatch(Float.self, view, index, node())
        }
        let double = try Self.double(view, index, node())
        var float = Float(double)
        if !float.isFinite || (float == 0 && double != 0) || isHalfway(double, float) {
            float = Float(view.string(index)) ?? float
        }
        guard float.isFinite, float != 0 || double == 0 else {
            throw corrupted("Number \(view.string(index)) is not representable in Float", node())
        }
        return float
    }

    /// Whether `double` lies exactly halfway between `float` (its rounding) and the next float
    /// away from it, where a second rounding may differ from rounding the text once.
    private static func isHalfway(_ double: Double, _ float: Float) -> Bool {
        let rounded = Double(float)
        guard rounded != double else { return false }
        let neighbour = Double(double > rounded ? float.nextUp : float.nextDown)
        return double == (rounded + neighbour) / 2
    }

    /// Any integer type, exactly: from the classified `Int64` when it fits, else from the number's
    /// text (`12345678901234567890` into `UInt64`, 39 digits into `Int128`); a number written with a
    /// fraction or exponent decodes when its exact value is a whole number in range
    /// (`9007199254740993.0`, `1e2`), as with `JSONDecoder`. Never through `Double`.
    static func integer<T: FixedWidthInteger>(
        _ view: TapeView,
        _ index: Int,
        _ node: @autoclosure () -> CodingPathNode,
        as type: T.Type
    ) throws -> T {
        guard view.kind(index) == .number else { throw mismatch(T.self, view, index, node()) }
        if case .integer(let integer) = view.numberValue(index), let exact = T(exactly: integer) { return exact }
        if let exact: T = ExactInteger.parse(view.text(index)) { return exact }
        throw corrupted("Number \(view.string(index)) is not representable in \(T.self)", node())
    }
}

/// Exact conversion of JSON number text to an integer type, without going through `Double`.
enum ExactInteger {
    /// The integer `text` denotes, when its exact value is a whole number that fits `T`: `1.0e3`
    /// is 1000, `1.5` and `1e-1` are not whole, `1e30` does not fit `Int64`.
    static func parse<T: FixedWidthInteger>(_ text: UnsafeRawBufferPointer) -> T? {
        let bytes = text.bindMemory(to: UInt8.self)
        var i = 0
        let n = bytes.count
        let negative = n > 0 && bytes[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        // The significant digits (integer part then fraction) and the power of ten they scale by.
        var digits: [UInt8] = []
        var scale = 0
        while i < n, bytes[i].isASCIIDigit {
            digits.append(bytes[i])
            i += 1
        }
        if i < n, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < n, bytes[i].isASCIIDigit {
                digits.append(bytes[i])
                scale -= 1
                i += 1
            }
        }
        if i < n, (bytes[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            var exponentNegative = false
            if i < n, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            var exponent = 0
            while i < n, bytes[i].isASCIIDigit {
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(bytes[i] &- UInt8(ascii: "0")) }
                i += 1
            }
            scale += exponentNegative ? -exponent : exponent
        }
        guard i == n, !digits.isEmpty else { return nil }
        // Leading zeros carry nothing; trailing zeros move into the scale.
        while let first = digits.first, first == UInt8(ascii: "0") { digits.removeFirst() }
        if digits.isEmpty { return 0 }
        while let last = digits.last, last == UInt8(ascii: "0") {
            digits.removeLast()
            scale += 1
        }
        guard scale >= 0 else { return nil }  // a fraction remains
        // 128-bit integers have at most 39 digits: anything longer cannot fit.
        guard digits.count + scale <= 40 else { return nil }
        var magnitude = T.Magnitude(0)
        for digit in digits + [UInt8](repeating: UInt8(ascii: "0"), count: scale) {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(T.Magnitude(digit &- UInt8(ascii: "0")))
            if o1 || o2 { return nil }
            magnitude = sum
        }
        if negative {
            guard T.isSigned else { return nil }
            if magnitude == T.Magnitude(T.max) + 1 { return T.min }
            guard let value = T(exactly: magnitude) else { return nil }
            return 0 - value
        }
        return T(exactly: magnitude)
    }
}

/// The strings that `convertFromString` reads as infinities and NaN.
struct NonConformingFloatStrings: Sendable {
    let positiveInfinity: String
    let negativeInfinity: String
    let nan: String

    func value(of text: UnsafeRawBufferPointer) -> Double? {
        if text.elementsEqual(positiveInfinity.utf8) { return .infinity }
        if text.elementsEqual(negativeInfinity.utf8) { return -.infinity }
        if text.elementsEqual(nan.utf8) { return .nan }
        return nil
    }
}
