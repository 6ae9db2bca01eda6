import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes a whole (small) JSON document in one call, as `JSONDecoder` does, with the record
/// decoder's exact numbers, strategies and located errors.
///
/// It has `JSONDecoder`'s properties, names and defaults, so that replacing `JSONDecoder()` with
/// `JSONRecordDecoder()` is a one-word change:
///
/// ```swift
/// let decoder = JSONRecordDecoder()
/// decoder.keyDecodingStrategy = .convertFromSnakeCase
/// decoder.dateDecodingStrategy = .iso8601
/// let user = try decoder.decode(User.self, from: data)
/// ```
///
/// For documents of any size, select records with ``JSONRecordReader`` instead: this reads the
/// whole input and decodes its one value. Safe to use from several threads, as `JSONDecoder` is.
/// What differs from `JSONDecoder` is listed in <doc:FoundationParity>.
public final class JSONRecordDecoder: Sendable {
    /// How JSON keys map to `CodingKey`s.
    public typealias KeyDecodingStrategy = JSONRecordDecodingOptions.KeyDecodingStrategy
    /// How `Date`s are read.
    public typealias DateDecodingStrategy = JSONRecordDecodingOptions.DateDecodingStrategy
    /// How `Data` is read.
    public typealias DataDecodingStrategy = JSONRecordDecodingOptions.DataDecodingStrategy
    /// Whether strings stand for infinities and NaN.
    public typealias NonConformingFloatDecodingStrategy = JSONRecordDecodingOptions.NonConformingFloatDecodingStrategy

    private struct Settings: Sendable {
        var options: JSONRecordDecodingOptions
        var parser: JSONParser.Options
    }
    private let settings: Mutex<Settings>

    /// A decoder with `JSONDecoder`'s defaults (or these strategies and parser options).
    public init(options: JSONRecordDecodingOptions = .init(), parser: JSONParser.Options = .init()) {
        settings = Mutex(Settings(options: options, parser: parser))
    }

    /// All the strategies at once (the properties below are its fields).
    public var options: JSONRecordDecodingOptions {
        get { settings.withLock { $0.options } }
        set { settings.withLock { $0.options = newValue } }
    }
    /// The parser's flags and limits.
    public var parser: JSONParser.Options {
        get { settings.withLock { $0.parser } }
        set { settings.withLock { $0.parser = newValue } }
    }
    /// How JSON keys map to property names. Default `.useDefaultKeys`.
    public var keyDecodingStrategy: KeyDecodingStrategy {
        get { options.keyDecodingStrategy }
        set { settings.withLock { $0.options.keyDecodingStrategy = newValue } }
    }
    /// How `Date` values are read. Default `.deferredToDate` (seconds since 2001).
    public var dateDecodingStrategy: DateDecodingStrategy {
        get { options.dateDecodingStrategy }
        set { settings.withLock { $0.options.dateDecodingStrategy = newValue } }
    }
    /// How `Data` is read. Default `.base64`.
    public var dataDecodingStrategy: DataDecodingStrategy {
        get { options.dataDecodingStrategy }
        set { settings.withLock { $0.options.dataDecodingStrategy = newValue } }
    }
    /// Whether strings stand for infinities and NaN. Default `.throw`.
    public var nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy {
        get { options.nonConformingFloatDecodingStrategy }
        set { settings.withLock { $0.options.nonConformingFloatDecodingStrategy = newValue } }
    }
    /// Passed to your `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] {
        get { options.userInfo }
        set { settings.withLock { $0.options.userInfo = newValue } }
    }

    /// Decodes the document in `bytes` (`Data`, `[UInt8]`, …).
    /// - Throws: ``JSONParseError`` for invalid JSON, ``JSONRecordDecodingError`` when it does not
    ///   decode as `T` (with the path and line of the failing value).
    public func decode<T: Decodable>(_ type: T.Type, from bytes: some Sequence<UInt8>) throws -> T {
        try decode(type, from: MemoryByteSource(bytes))
    }

    /// Decodes the document in `text`.
    public func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try decode(type, from: MemoryByteSource(text.utf8))
    }

    /// Decodes the document read from `source` (a file, a pipe, …).
    public func decode<T: Decodable>(_ type: T.Type, from source: some JSONByteSource) throws -> T {
        let (options, parser) = settings.withLock { ($0.options, $0.parser) }
        var recordOptions = JSONRecordOptions(parser: parser, decoding: options)
        recordOptions.parsesConcurrently = false
        recordOptions.parser.allowMultipleValues = false
        let reader = try JSONRecordReader(T.self, at: "$", from: source, options: recordOptions)
        guard let value = try reader.next() else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the input holds no JSON value"))
        }
        // The rest of the input is read too: anything after the value is an error, as in JSONDecoder.
        _ = try reader.next()
        return value
    }
}
