import YAJL
import YAJLFixtures

/// Counts events like `yajl stats` does, through the public typed-event layer with paths on.
package final class CountingHandler: JSONEventHandler {
    package var counts = DocumentGenerator.Counts()
    package var pathChecks = 0
    /// Sampled paths that were not the expected ones.
    package var pathMismatches: [String] = []

    package init() {}

    package func startObject(context: JSONEventContext) throws { counts.maps += 1 }
    package func startArray(context: JSONEventContext) throws { counts.arrays += 1 }
    package func key(_ key: JSONStringView, context: JSONEventContext) throws { counts.keys += 1 }
    package func string(_ value: JSONStringView, context: JSONEventContext) throws { counts.strings += 1 }
    package func bool(_ value: Bool, context: JSONEventContext) throws { counts.booleans += 1 }
    package func null(context: JSONEventContext) throws {
        counts.nulls += 1
        // Spot-check the path of one event per record, far into the document.
        if counts.nulls % 10_000 == 0 {
            let expected = "$.results[\(counts.nulls - 1)].note"
            if context.path?.description != expected {
                pathMismatches.append("\(context.path?.description ?? "no path"), expected \(expected)")
            }
            pathChecks += 1
        }
    }
    package func number(_ value: JSONNumberView, context: JSONEventContext) throws {
        switch value.value {
        case .integer: counts.integers += 1
        case .double: counts.doubles += 1
        case .unrepresentable: counts.numbers += 1
        }
    }
}
