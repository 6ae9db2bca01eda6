/// A key or string value as YAJL delivered it: unescaped UTF-8 bytes, borrowed.
///
/// The bytes live in YAJL's buffers and are valid **only during the handler call** that received
/// the view. Nothing is copied or decoded unless you ask: compare with ``==(_:_:)-(JSONStringView,String)``
/// without allocating, read ``bytes`` directly, or call ``string`` to get an owned `String`.
/// Do not store a view or its ``bytes`` beyond the call.
public struct JSONStringView: CustomStringConvertible {
    /// The unescaped UTF-8 bytes (quotes removed, escapes decoded). Valid only during the callback.
    public let bytes: UnsafeRawBufferPointer

    /// Wraps borrowed bytes.
    @inlinable
    public init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The number of UTF-8 bytes.
    @inlinable
    public var count: Int { bytes.count }

    /// Whether the string is empty.
    @inlinable
    public var isEmpty: Bool { bytes.isEmpty }

    /// An owned copy as a `String`. Invalid UTF-8 (possible only with UTF-8 validation off) is
    /// repaired with U+FFFD.
    public var string: String { makeString(bytes) }

    /// An owned copy of the bytes.
    @inlinable
    public var byteArray: [UInt8] { [UInt8](bytes) }

    /// The same as ``string``.
    public var description: String { string }

    /// Compares the bytes with a `String`'s UTF-8, without allocating.
    @inlinable
    public static func == (view: JSONStringView, string: String) -> Bool {
        var string = string
        return string.withUTF8 { utf8 in
            utf8.count == view.bytes.count
                && (utf8.isEmpty || memcmpEqual(utf8.baseAddress!, view.bytes.baseAddress!, utf8.count))
        }
    }

    /// Compares the bytes with a `String`'s UTF-8, without allocating.
    @inlinable
    public static func == (string: String, view: JSONStringView) -> Bool { view == string }
}

@available(*, unavailable, message: "a JSONStringView borrows YAJL's buffer for one callback; copy it with .string")
extension JSONStringView: Sendable {}
