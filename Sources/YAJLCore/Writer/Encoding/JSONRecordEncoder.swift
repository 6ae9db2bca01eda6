import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes one value into a JSON document in memory, as `JSONEncoder` does: the same
/// properties, names and defaults, so that replacing `JSONEncoder()` with `JSONRecordEncoder()`
/// is a one-word change. The output is written by YAJL's generator.
///
/// ```swift
/// let encoder = JSONRecordEncoder()
/// encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
/// encoder.dateEncodingStrategy = .iso8601
/// let data = try encoder.encode(user)
/// ```
///
/// Minified output is byte for byte `JSONEncoder`'s; `.prettyPrinted` output is the generator's
/// layout (`"key": value`, not `"key" : value`), and containers nest at most
/// ``JSONWriter/maxDepth`` levels: see <doc:FoundationParity>. To write many records, stream them
/// with ``JSONRecordWriter``. Safe to use from several threads, as `JSONEncoder` is.
public final class JSONRecordEncoder: Sendable {
    /// How the output looks, as `JSONEncoder.OutputFormatting`.
    public struct OutputFormatting: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        /// Makes a set from its raw value.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Indented, one member or element per line (YAJL's layout, two spaces per level).
        public static let prettyPrinted = OutputFormatting(rawValue: 1 << 0)
        /// Object members in the byte order of their keys' UTF-8.
        public static let sortedKeys = OutputFormatting(rawValue: 1 << 1)
        /// `/` written as itself, not `\/` (which is the default, as in `JSONEncoder`).
        public static let withoutEscapingSlashes = OutputFormatting(rawValue: 1 << 3)
    }

    /// How property names become keys.
    public typealias KeyEncodingStrategy = JSONRecordEncodingOptions.KeyEncodingStrategy
    /// How dates are written.
    public typealias DateEncodingStrategy = JSONRecordEncodingOptions.DateEncodingStrategy
    /// How `Data` is written.
    public typealias DataEncodingStrategy = JSONRecordEncodingOptions.DataEncodingStrategy
    /// What infinities and NaN become.
    public typealias NonConformingFloatEncodingStrategy = JSONRecordEncodingOptions.NonConformingFloatEncodingStrategy

    private struct Settings: Sendable {
        var options: JSONRecordEncodingOptions
        var formatting: OutputFormatting
    }
    private let settings: Mutex<Settings>

    /// An encoder with `JSONEncoder`'s defaults (or these strategies).
    public init(options: JSONRecordEncodingOptions = JSONRecordEncodingOptions()) {
        settings = Mutex(Settings(options: options, formatting: []))
    }

    /// How the output looks. Default `[]`: minified, keys in the order written, `/` escaped.
    public var outputFormatting: OutputFormatting {
        get { settings.withLock { $0.formatting } }
        set { settings.withLock { $0.formatting = newValue } }
    }
    /// All the strategies at once (the ones below are its fields).
    public var options: JSONRecordEncodingOptions {
        get { settings.withLock { $0.options } }
        set { settings.withLock { $0.options = newValue } }
    }
    /// How property names become keys. Default `.useDefaultKeys`.
    public var keyEncodingStrategy: KeyEncodingStrategy {
        get { options.keyEncodingStrategy }
        set { settings.withLock { $0.options.keyEncodingStrategy = newValue } }
    }
    /// How dates are written. Default `.deferredToDate`.
    public var dateEncodingStrategy: DateEncodingStrategy {
        get { options.dateEncodingStrategy }
        set { settings.withLock { $0.options.dateEncodingStrategy = newValue } }
    }
    /// How `Data` is written. Default `.base64`.
    public var dataEncodingStrategy: DataEncodingStrategy {
        get { options.dataEncodingStrategy }
        set { settings.withLock { $0.options.dataEncodingStrategy = newValue } }
    }
    /// What infinities and NaN become. Default `.throw`.
    public var nonConformingFloatEncodingStrategy: NonConformingFloatEncodingStrategy {
        get { options.nonConformingFloatEncodingStrategy }
        set { settings.withLock { $0.options.nonConformingFloatEncodingStrategy = newValue } }
    }
    /// Values your `encode(to:)` implementations read from `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] {
        get { options.userInfo }
        set { settings.withLock { $0.options.userInfo = newValue } }
    }

    /// The JSON of `value`.
    /// - Throws: `EncodingError` as `JSONEncoder` throws it (a non-finite float, a value that
    ///   encodes nothing, containers nested deeper than ``JSONWriter/maxDepth``), or what
    ///   `encode(to:)` throws, unchanged.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        let (options, formatting) = settings.withLock { ($0.options, $0.formatting) }
        var writerOptions = JSONWriter.Options()
        writerOptions.beautify = formatting.contains(.prettyPrinted)
        writerOptions.indent = "  "
        writerOptions.escapesSolidus = !formatting.contains(.withoutEscapingSlashes)
        let sink = MemoryOutputSink()
        let writer = JSONWriter(to: sink, options: writerOptions)
        let tree = try EncodingContext.encode(value, options: options, maxDepth: JSONWriter.maxDepth)
        try tree.write(to: writer, sortedKeys: options.sortsKeys || formatting.contains(.sortedKeys))
        try writer.finish()
        return sink.data
    }
}
