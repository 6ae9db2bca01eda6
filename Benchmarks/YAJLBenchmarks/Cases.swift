// About 590 lines: the table of benchmark cases, one entry per measured operation, and the record
// types they decode. A table reads best in one place.

import CYAJLBaseline
import Foundation
import Synchronization
import YAJL

/// One thing to measure. Each case runs in a fresh child process, once per round, and reports
/// its own parse time; the parent reads the child's peak RSS.
struct BenchmarkCase: Sendable {
    let name: String
    let group: String
    let summary: String
    /// Why the case does not apply to a document, or nil if it does.
    let skipReason: @Sendable (BenchmarkDocument) -> String?
    /// Runs once over the file; returns a checksum (events or values seen) so work cannot be elided.
    let run: @Sendable (BenchmarkDocument) throws -> Int
}

/// The C baseline's counts, for a checksum comparable with the Swift cases.
private func cBaseline(_ document: BenchmarkDocument, mode: cyajl_baseline_mode) throws -> Int {
    var counts = cyajl_baseline_counts()
    let status = cyajl_baseline_run(document.path, 64 << 10, mode, document.isNDJSON ? 1 : 0, &counts)
    guard status == 0 else { throw BenchmarkError("C baseline failed with status \(status) on \(document.name)") }
    return Int(
        counts.maps + counts.arrays + counts.keys + counts.strings + counts.integers + counts.doubles
            + counts.booleans + counts.nulls
    )
}

/// Runs `body` in a task and waits for it: how the async cases run inside the synchronous runner.
private func waitForTask(_ body: @escaping @Sendable () async throws -> Int) throws -> Int {
    let outcome = Mutex<Result<Int, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            let count = try await body()
            outcome.withLock { $0 = .success(count) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    return try outcome.withLock { $0! }.get()
}

/// Borrowed events, nothing done with them: the cost of the bridge itself.
final class BorrowingCounter: JSONEventHandler {
    var events = 0
    func startObject(context: JSONEventContext) throws { events &+= 1 }
    func startArray(context: JSONEventContext) throws { events &+= 1 }
    func key(_ key: JSONStringView, context: JSONEventContext) throws { events &+= 1 }
    func string(_ value: JSONStringView, context: JSONEventContext) throws { events &+= 1 }
    func number(_ value: JSONNumberView, context: JSONEventContext) throws { events &+= 1 }
    func bool(_ value: Bool, context: JSONEventContext) throws { events &+= 1 }
    func null(context: JSONEventContext) throws { events &+= 1 }
}

/// Typed events with every number converted to its value, every event counted, paths tracked
/// (`yajl stats` without its shortcut: it asks only each number's kind, `JSONNumberView.kind`).
final class ClassifyingCounter: JSONEventHandler {
    var events = 0
    var integers = 0
    var doubles = 0
    func startObject(context: JSONEventContext) throws { events &+= 1 }
    func startArray(context: JSONEventContext) throws { events &+= 1 }
    func key(_ key: JSONStringView, context: JSONEventContext) throws { events &+= 1 }
    func string(_ value: JSONStringView, context: JSONEventContext) throws { events &+= 1 }
    func bool(_ value: Bool, context: JSONEventContext) throws { events &+= 1 }
    func null(context: JSONEventContext) throws { events &+= 1 }
    func number(_ value: JSONNumberView, context: JSONEventContext) throws {
        events &+= 1
        switch value.value {
        case .integer: integers &+= 1
        case .double: doubles &+= 1
        case .unrepresentable: break
        }
    }
}

private func options(_ document: BenchmarkDocument, tracksPath: Bool) -> JSONParser.Options {
    JSONParser.Options(allowMultipleValues: document.isNDJSON, tracksPath: tracksPath)
}

/// Foundation runs up to the 256 MiB document (generated documents end a few bytes past their size).
private let foundationLimit = 257 << 20

private func foundationSkip(_ document: BenchmarkDocument) -> String? {
    if document.isNDJSON { return "NDJSON is not one JSON document" }
    if document.bytes > foundationLimit { return "above 256 MiB Foundation would need more than 6 GiB" }
    return nil
}

private func recordsOnly(_ document: BenchmarkDocument) -> String? {
    document.kind == "records" ? nil : "only the generated records documents have $.results[*]"
}

private func geoJSONOnly(_ document: BenchmarkDocument) -> String? {
    document.name == "canada.json" || document.kind == "numbers"
        ? nil : "only canada.json and the generated numbers documents hold GeoJSON polygons"
}

/// The points of the polygons in a GeoJSON document: canada.json's features, or the generated
/// numbers document's `$.results[*]` (geometries), decoded by `JSONRecordReader` into `Feature`
/// (or its geometry) on two threads (its default) or one.
private func geoJSONPoints<Feature: GeoJSONFeature>(
    _ document: BenchmarkDocument,
    as feature: Feature.Type,
    concurrently: Bool
) throws -> Int {
    var options = JSONRecordOptions()
    options.parsesConcurrently = concurrently
    let source: FileByteSource = .file(document.path)
    var points = 0
    if document.kind == "numbers" {
        let reader = try JSONRecordReader(Feature.Geometry.self, at: "$.results[*]", from: source, options: options)
        while let geometry = try reader.next() { points += geometry.points }
        return points
    }
    let reader = try JSONRecordReader(Feature.self, at: "$.features[*]", from: source, options: options)
    while let feature = try reader.next() { points += feature.geometry.points }
    return points
}

/// The same with `JSONDecoder` on the whole file: into `Features` (canada.json), or into
/// `Geometries` (the numbers documents).
private func foundationGeoJSONPoints<Features: GeoJSONFeatures, Geometries: GeoJSONGeometries>(
    _ document: BenchmarkDocument,
    as features: Features.Type,
    or geometries: Geometries.Type
) throws -> Int {
    let data = try Data(contentsOf: URL(fileURLWithPath: document.path))
    if document.kind == "numbers" {
        return try JSONDecoder().decode(Geometries.self, from: data).results.reduce(0) { $0 + $1.points }
    }
    return try JSONDecoder().decode(Features.self, from: data).features.reduce(0) { $0 + $1.geometry.points }
}

private func datesOnly(_ document: BenchmarkDocument) -> String? {
    document.kind == "dates" ? nil : "only the generated dates document has dates and snake_case keys"
}

let allCases: [BenchmarkCase] = [
    BenchmarkCase(
        name: "c-verify",
        group: "C baseline",
        summary: "libyajl from C, no callbacks (like json_verify)",
        skipReason: { _ in nil },
        run: { try cBaseline($0, mode: cyajl_baseline_verify) }
    ),
    BenchmarkCase(
        name: "c-noop",
        group: "C baseline",
        summary: "libyajl from C, no-op callbacks incl. yajl_number",
        skipReason: { _ in nil },
        run: { try cBaseline($0, mode: cyajl_baseline_noop) }
    ),
    BenchmarkCase(
        name: "c-counting",
        group: "C baseline",
        summary: "libyajl from C, counting, YAJL's own integer/double (strtod)",
        skipReason: { _ in nil },
        run: { try cBaseline($0, mode: cyajl_baseline_counting) }
    ),
    BenchmarkCase(
        name: "validate",
        group: "validation",
        summary:
            "JSONParser.validate on the file: YAJL with the limits' callbacks, UTF-8 checked, reads ahead on a second thread past 4 MiB (target: ≤ 1.10× c-verify's time)",
        skipReason: { _ in nil },
        run: { document in
            try JSONParser.validate(.file(document.path), options: options(document, tracksPath: false))
            return 1
        }
    ),
    BenchmarkCase(
        name: "events-borrowed",
        group: "typed events",
        summary: "JSONEventHandler, borrowed views, no paths",
        skipReason: { _ in nil },
        run: { document in
            let counter = BorrowingCounter()
            try JSONParser(options: options(document, tracksPath: false), handler: counter).parse(
                from: .file(document.path)
            )
            return counter.events
        }
    ),
    BenchmarkCase(
        name: "events-paths",
        group: "typed events",
        summary: "JSONEventHandler, paths tracked, every number converted (yajl stats converts none)",
        skipReason: { _ in nil },
        run: { document in
            let counter = ClassifyingCounter()
            try JSONParser(options: options(document, tracksPath: true), handler: counter).parse(
                from: .file(document.path)
            )
            return counter.events
        }
    ),
    BenchmarkCase(
        name: "events-unvalidated",
        group: "typed events",
        summary: "events-borrowed with validatesUTF8 off: the strict UTF-8 check's cost is the ratio of the two",
        skipReason: { _ in nil },
        run: { document in
            let counter = BorrowingCounter()
            var parserOptions = options(document, tracksPath: false)
            parserOptions.validatesUTF8 = false
            try JSONParser(options: parserOptions, handler: counter).parse(from: .file(document.path))
            return counter.events
        }
    ),
    BenchmarkCase(
        name: "events-owned",
        group: "typed events",
        summary: "owned JSONEvent enum through a closure (a String per key/string)",
        skipReason: { _ in nil },
        run: { document in
            var events = 0
            try JSONParser(options: options(document, tracksPath: true)) { event, _ in
                switch event {
                case .endObject, .endArray: break
                default: events &+= 1
                }
            }.parse(from: .file(document.path))
            return events
        }
    ),
    BenchmarkCase(
        name: "records-select",
        group: "records",
        summary: "JSONRecordReader at $.results[*], selection only (a type that decodes nothing)",
        skipReason: recordsOnly,
        run: { document in
            struct Nothing: Decodable { init(from decoder: any Decoder) {} }
            let reader = try JSONRecordReader(Nothing.self, at: "$.results[*]", from: .file(document.path))
            var count = 0
            while try reader.next() != nil { count += 1 }
            return count
        }
    ),
    BenchmarkCase(
        name: "records-values",
        group: "records",
        summary: "JSONRecordReader at $.results[*] into owned JSONValues",
        skipReason: recordsOnly,
        run: { document in
            let reader = try JSONRecordReader(JSONValue.self, at: "$.results[*]", from: .file(document.path))
            var count = 0
            while try reader.next() != nil { count += 1 }
            return count
        }
    ),
    BenchmarkCase(
        name: "records-decodable",
        group: "records",
        summary: "JSONRecordReader at $.results[*] into a Decodable struct",
        skipReason: recordsOnly,
        run: { document in
            let reader = try JSONRecordReader(
                RecordsDocument.Record.self,
                at: "$.results[*]",
                from: .file(document.path)
            )
            var count = 0
            while try reader.next() != nil { count += 1 }
            return count
        }
    ),
    BenchmarkCase(
        name: "records-decodable-1t",
        group: "records",
        summary: "the same, with parsesConcurrently off (one thread)",
        skipReason: recordsOnly,
        run: { document in
            var options = JSONRecordOptions()
            options.parsesConcurrently = false
            let reader = try JSONRecordReader(
                RecordsDocument.Record.self,
                at: "$.results[*]",
                from: .file(document.path),
                options: options
            )
            var count = 0
            while try reader.next() != nil { count += 1 }
            return count
        }
    ),
    BenchmarkCase(
        name: "records-async",
        group: "records",
        summary: "JSONRecords (for try await) at $.results[*] into the same struct",
        skipReason: recordsOnly,
        run: { document in
            try waitForTask {
                var count = 0
                for try await _ in JSONRecords(
                    RecordsDocument.Record.self,
                    at: "$.results[*]",
                    from: .file(document.path)
                ) {
                    count += 1
                }
                return count
            }
        }
    ),
    BenchmarkCase(
        name: "writer-minify",
        group: "writer",
        summary: "parse, then write minified through JSONWriter (output discarded)",
        skipReason: { _ in nil },
        run: { document in
            var bytes = 0
            let writer = JSONWriter(to: .closure { bytes &+= $0.count })
            if document.isNDJSON { writer.allowMultipleValues() }
            try JSONParser(options: options(document, tracksPath: false), handler: JSONWritingHandler(writer: writer))
                .parse(from: .file(document.path))
            try writer.finish()
            return bytes
        }
    ),
    BenchmarkCase(
        name: "json_reformat-m",
        group: "writer",
        summary: "YAJL's own json_reformat -m, as a process (its peak RSS)",
        skipReason: { document in
            if document.isNDJSON { return "json_reformat reads one document" }
            if document.bytes < 16 << 20 { return "below 16 MiB, starting the process would dominate" }
            return FileManager.default.isExecutableFile(atPath: "/usr/bin/json_reformat")
                ? nil : "json_reformat (yajl-tools) not installed"
        },
        run: { document in
            // Under /usr/bin/time, which reports json_reformat's own peak RSS (read by the runner).
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
            process.arguments = ["-f", "%M", "-o", externalPeakFile, "/usr/bin/json_reformat", "-m"]
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: document.path))
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw BenchmarkError("json_reformat failed on \(document.name)")
            }
            return 0
        }
    ),
    BenchmarkCase(
        name: "records-dates",
        group: "records",
        summary: "JSONRecordReader at $.results[*] into a struct with .iso8601 dates and .convertFromSnakeCase keys",
        skipReason: datesOnly,
        run: { document in
            var options = JSONRecordOptions()
            options.decoding.dateDecodingStrategy = .iso8601
            options.decoding.keyDecodingStrategy = .convertFromSnakeCase
            let reader = try JSONRecordReader(
                DatesDocument.Event.self,
                at: "$.results[*]",
                from: .file(document.path),
                options: options
            )
            var count = 0
            while try reader.next() != nil { count += 1 }
            return count
        }
    ),
    BenchmarkCase(
        name: "foundation-dates",
        group: "Foundation",
        summary: "JSONDecoder on the whole file with the same .iso8601 and .convertFromSnakeCase strategies",
        skipReason: { datesOnly($0) ?? foundationSkip($0) },
        run: { document in
            let data = try Data(contentsOf: URL(fileURLWithPath: document.path))
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return try decoder.decode(DatesDocument.self, from: data).results.count
        }
    ),
    BenchmarkCase(
        name: "geojson-decodable",
        group: "records",
        summary:
            "JSONRecordReader at $.features[*] (numbers: $.results[*]) into typed GeoJSON (coordinates as [[[Double]]])",
        skipReason: geoJSONOnly,
        run: { try geoJSONPoints($0, as: GeoJSONDocument.Feature.self, concurrently: true) }
    ),
    BenchmarkCase(
        name: "geojson-decodable-1t",
        group: "records",
        summary: "the same, with parsesConcurrently off (one thread)",
        skipReason: geoJSONOnly,
        run: { try geoJSONPoints($0, as: GeoJSONDocument.Feature.self, concurrently: false) }
    ),
    BenchmarkCase(
        name: "foundation-geojson",
        group: "Foundation",
        summary: "JSONDecoder on the whole file into the same GeoJSON types",
        skipReason: geoJSONOnly,
        run: { try foundationGeoJSONPoints($0, as: GeoJSONDocument.self, or: PolygonsDocument.self) }
    ),
    BenchmarkCase(
        name: "geojson-positions-1t",
        group: "records",
        summary:
            "the same GeoJSON on one thread, each point a struct read through an unkeyed container, rings [[Position]]",
        skipReason: geoJSONOnly,
        run: { try geoJSONPoints($0, as: PositionsDocument.Feature.self, concurrently: false) }
    ),
    BenchmarkCase(
        name: "foundation-geojson-positions",
        group: "Foundation",
        summary: "JSONDecoder on the whole file into the same Position types",
        skipReason: geoJSONOnly,
        run: { try foundationGeoJSONPoints($0, as: PositionsDocument.self, or: PositionPolygonsDocument.self) }
    ),
    BenchmarkCase(
        name: "foundation-serialization",
        group: "Foundation",
        summary: "JSONSerialization.jsonObject on the whole file",
        skipReason: foundationSkip,
        run: { document in
            let data = try Data(contentsOf: URL(fileURLWithPath: document.path))
            let object = try JSONSerialization.jsonObject(with: data)
            return (object as? [String: Any])?.count ?? (object as? [Any])?.count ?? 1
        }
    ),
    BenchmarkCase(
        name: "foundation-decoder",
        group: "Foundation",
        summary: "JSONDecoder on the whole file (records: [Record]; else a JSON enum)",
        skipReason: foundationSkip,
        run: { document in
            let data = try Data(contentsOf: URL(fileURLWithPath: document.path))
            if document.kind == "records" {
                return try JSONDecoder().decode(RecordsDocument.self, from: data).results.count
            }
            return try JSONDecoder().decode(AnyJSON.self, from: data).count
        }
    ),
]

/// Where `/usr/bin/time` leaves an external program's peak RSS (KiB) for the runner.
let externalPeakFile = FileManager.default.temporaryDirectory.appendingPathComponent("yajl-bench-\(getpid())-peak").path

/// The generated records document's shape, for JSONDecoder.
struct RecordsDocument: Decodable {
    struct Record: Decodable {
        struct Address: Decodable {
            let city: String
            let zip: String
            let geo: [Double]
        }
        let id: Int
        let name: String
        let email: String
        let active: Bool
        let score: Double
        let tags: [String]
        let address: Address
        let note: String?
    }
    let results: [Record]
}

/// What the GeoJSON cases count, whichever types their points are decoded into: a geometry's
/// points, a feature's geometry, a document's features or geometries. `Sendable`, as the concrete
/// types are: `JSONRecordReader` then lets its parsing thread help decode in this generic code too.
protocol GeoJSONGeometry: Decodable, Sendable {
    var points: Int { get }
}
protocol GeoJSONFeature: Decodable, Sendable {
    associatedtype Geometry: GeoJSONGeometry
    var geometry: Geometry { get }
}
protocol GeoJSONFeatures: Decodable {
    associatedtype Feature: GeoJSONFeature
    var features: [Feature] { get }
}
protocol GeoJSONGeometries: Decodable {
    associatedtype Geometry: GeoJSONGeometry
    var results: [Geometry] { get }
}

/// canada.json's shape (GeoJSON): a FeatureCollection of polygons, each a list of rings of points.
struct GeoJSONDocument: GeoJSONFeatures {
    struct Geometry: GeoJSONGeometry {
        let type: String
        let coordinates: [[[Double]]]
        var points: Int { coordinates.reduce(0) { $0 + $1.count } }
    }
    struct Feature: GeoJSONFeature {
        let type: String
        let properties: [String: String]
        let geometry: Geometry
    }
    let type: String
    let features: [Feature]
}

/// The generated numbers document's shape: GeoJSON polygons under `results`.
struct PolygonsDocument: GeoJSONGeometries {
    let results: [GeoJSONDocument.Geometry]
}

/// The same GeoJSON with each point a struct, `[lon, lat]` read through an unkeyed container (as
/// user code often spells it): arrays of structs, not of numbers, and a container per point.
struct PositionsDocument: GeoJSONFeatures {
    struct Position: Decodable {
        let longitude: Double
        let latitude: Double
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            longitude = try container.decode(Double.self)
            latitude = try container.decode(Double.self)
        }
    }
    struct Geometry: GeoJSONGeometry {
        let type: String
        let coordinates: [[Position]]
        var points: Int { coordinates.reduce(0) { $0 + $1.count } }
    }
    struct Feature: GeoJSONFeature {
        let type: String
        let properties: [String: String]
        let geometry: Geometry
    }
    let type: String
    let features: [Feature]
}

/// ``PositionsDocument``'s geometries under `results` (the generated numbers document).
struct PositionPolygonsDocument: GeoJSONGeometries {
    let results: [PositionsDocument.Geometry]
}

/// The generated dates document's shape: snake_case keys, RFC 3339 dates.
struct DatesDocument: Decodable {
    struct Event: Decodable {
        let eventId: Int
        let userName: String
        let createdAt: Date
        let updatedAt: Date
        let isActive: Bool
    }
    let results: [Event]
}

/// Any JSON, decoded generically (for documents without a schema here).
enum AnyJSON: Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([AnyJSON])
    case object([String: AnyJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([AnyJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: AnyJSON].self))
        }
    }

    var count: Int {
        switch self {
        case .array(let values): return values.count
        case .object(let members): return members.count
        default: return 1
        }
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
