import Foundation
import Testing
import YAJL

/// One recorded event with where it happened: what chunk-invariance and path tests compare.
struct RecordedEvent: Hashable, CustomStringConvertible {
    let event: JSONEvent
    let path: String
    let depth: Int

    var description: String { "\(event) @\(path) d\(depth)" }
}

/// Records every event, owned, with its path and depth.
final class EventRecorder: JSONEventHandler {
    var events: [RecordedEvent] = []
    var stopAfter: Int?
    var throwAfter: Int?

    private func record(_ event: JSONEvent, _ context: JSONEventContext) throws {
        events.append(RecordedEvent(event: event, path: context.path?.description ?? "-", depth: context.depth))
        if let throwAfter, events.count >= throwAfter { throw HandlerFailure(count: events.count) }
        if let stopAfter, events.count >= stopAfter { context.stop() }
    }

    func startObject(context: JSONEventContext) throws { try record(.startObject, context) }
    func endObject(context: JSONEventContext) throws { try record(.endObject, context) }
    func startArray(context: JSONEventContext) throws { try record(.startArray, context) }
    func endArray(context: JSONEventContext) throws { try record(.endArray, context) }
    func key(_ key: JSONStringView, context: JSONEventContext) throws { try record(.key(key.string), context) }
    func string(_ value: JSONStringView, context: JSONEventContext) throws {
        try record(.string(value.string), context)
    }
    func number(_ value: JSONNumberView, context: JSONEventContext) throws {
        try record(.number(value.number), context)
    }
    func bool(_ value: Bool, context: JSONEventContext) throws { try record(.bool(value), context) }
    func null(context: JSONEventContext) throws { try record(.null, context) }
}

/// An error a test handler throws, to check it comes back unchanged.
struct HandlerFailure: Error, Equatable {
    let count: Int
}

/// The outcome of feeding a document: the events, and the error if any.
///
/// Two outcomes are equal when their events are equal and their errors have the same kind,
/// message, offset, line, column and path. The excerpt is left out: the bytes after an error come
/// from the chunk at hand, so they legitimately depend on where the chunks split.
struct ParseOutcome: Equatable {
    var events: [RecordedEvent]
    var error: JSONParseError?

    static func == (a: ParseOutcome, b: ParseOutcome) -> Bool {
        a.events == b.events && a.error.map(ErrorLocation.init) == b.error.map(ErrorLocation.init)
    }
}

/// What must not depend on chunking in an error.
struct ErrorLocation: Equatable, CustomStringConvertible {
    let kind: JSONParseError.Kind
    let message: String
    let byteOffset: Int
    let line: Int
    let column: Int
    let path: JSONPath?

    init(_ error: JSONParseError) {
        kind = error.kind
        message = error.message
        byteOffset = error.byteOffset
        line = error.line
        column = error.column
        path = error.path
    }

    var description: String { "\(kind) \(message) @\(byteOffset) \(line):\(column) \(path?.description ?? "-")" }
}

/// Feeds `bytes` to a fresh parser in chunks of `chunkSize` (everything at once for `nil`).
func parse(_ bytes: [UInt8], chunkSize: Int? = nil, options: JSONParser.Options = .init()) -> ParseOutcome {
    let recorder = EventRecorder()
    let parser = JSONParser(options: options, handler: recorder)
    do {
        let step = max(1, chunkSize ?? bytes.count)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + step)
            try parser.parse(bytes[start..<end])
            start = end
        }
        try parser.finish()
        return ParseOutcome(events: recorder.events, error: nil)
    } catch let error as JSONParseError {
        return ParseOutcome(events: recorder.events, error: error)
    } catch {
        Issue.record("unexpected error type: \(error)")
        return ParseOutcome(events: recorder.events, error: nil)
    }
}

func parse(_ text: String, chunkSize: Int? = nil, options: JSONParser.Options = .init()) -> ParseOutcome {
    parse(Array(text.utf8), chunkSize: chunkSize, options: options)
}

/// Just the events, for compact expectations.
func events(_ text: String, options: JSONParser.Options = .init()) -> [JSONEvent] {
    parse(text, options: options).events.map(\.event)
}
