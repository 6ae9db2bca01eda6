#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes a whole (small) JSON document in one call, as `JSONDecoder` does, with the record
/// decoder's exact numbers, strategies and located errors.
///
/// ```swift
/// let user = try JSONRecordDecoder().decode(User.self, from: data)
/// ```
///
/// For documents of any size, select records with ``JSONRecordReader`` instead: this reads the
/// whole input and decodes its one value.
public struct JSONRecordDecoder: Sendable {
    /// Key and date strategies.
    public var options: JSONRecordDecodingOptions
    /// The parser's flags and limits.
    public var parser: JSONParser.Options

    /// A decoder with these strategies and parser options.
    public init(options: JSONRecordDecodingOptions = .init(), parser: JSONParser.Options = .init()) {
        self.options = options
        self.parser = parser
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
