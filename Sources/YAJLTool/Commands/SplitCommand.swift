import YAJLCore
import YAJLHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

let splitCommand = Command(
    name: "split",
    summary: "Write the values selected by JSONPath as NDJSON shards of about a given size, with a manifest.",
    usage: "JSONPATH [FILE|URL|-] --out DIR [--shard-size 256M] [--gzip] [--prefix NAME] [options]",
    details: """
        One streaming pass over a document of any size (a single huge array included): every value the
        query selects is written, minified (numbers exactly as in the input), as one line of
        DIR/NAME-00000.ndjson, DIR/NAME-00001.ndjson, … (.ndjson.gz with --gzip). A shard is closed before
        a record would take it past --shard-size, counted in bytes of NDJSON before compression (as
        engines size their tasks); a record is never split, so a shard holds at least one.
        DIR/manifest.json lists the shards with their records and bytes, the totals, the query, the
        source's size (the whole source is read and validated) and its validator (ETag / Last-Modified
        of a URL, size and modification time of a file; sizes are numbers).
        Spark, Dask, DuckDB and BigQuery read the shards as NDJSON. The shards are written in a staging
        folder inside DIR (.yajl-split-*) and moved into DIR, the manifest last, only once all are
        complete: an interrupted split never looks finished. DIR is created if needed; one that holds a
        manifest, a staging folder or files named as the shards would be is refused, unless --replace
        says to remove them. On invalid input the staging folder is removed (exit 1), nothing else.
        """,
    options: parserOptionSpecs + [
        .value("--out", "DIR", "the directory of the shards and manifest.json (required)"),
        .size(
            "--shard-size",
            "about how many bytes of NDJSON each shard holds, uncompressed (default 256M, at least 1K)"
        ) {
            $0.values["--shard-size"] = String($1)
        },
        .flag("--gzip", "compress each shard (gzip), named .ndjson.gz") { $0.values["--gzip"] = "1" },
        .value("--prefix", "NAME", "the shards' name before -00000 (default part)"),
        .flag("--replace", "remove an earlier split's manifest, shards and staging folders from DIR first") {
            $0.values["--replace"] = "1"
        },
        .size("--max-buffered-bytes", "the most a query may buffer beyond its values (default 256 MiB)") {
            $0.values["--max-buffered-bytes"] = String($1)
        },
    ],
    maxInputs: 2
) { settings in
    let paths = settings.inputs.filter { $0.hasPrefix("$") }
    let files = settings.inputs.filter { !$0.hasPrefix("$") }
    guard paths.count == 1 else {
        throw UsageError(description: "split takes one JSONPath, e.g. '$.results[*]' (got \(paths.count))")
    }
    guard let directory = settings.values["--out"], !directory.isEmpty else {
        throw UsageError(description: "split needs --out DIR, the directory to write the shards to")
    }
    let shardSize = settings.values["--shard-size"].flatMap { Int($0) } ?? 256 << 20
    guard shardSize >= 1024 else {
        throw UsageError(description: "--shard-size is \(shardSize); it must be at least 1K")
    }
    let prefix = settings.values["--prefix"] ?? "part"
    guard !prefix.isEmpty, !prefix.contains("/"), !prefix.hasPrefix(".") else {
        throw UsageError(description: "--prefix is a file name without '/' and not starting with '.', not '\(prefix)'")
    }
    var input = settings
    input.inputs = files
    var options = JSONRecordOptions(parser: settings.parser)
    options.requireMatch = false  // the command reports "no value matched" itself
    // The whole source is read (and validated), so that the manifest's source_bytes is its size.
    options.stopsEarly = false
    if let bytes = settings.values["--max-buffered-bytes"].flatMap({ Int($0) }) { options.maxBufferedBytes = bytes }
    let (name, source) = inputSource(input)
    let reader: JSONRecordReader<JSONFragment>
    do {
        reader = try JSONRecordReader(JSONFragment.self, at: paths, from: source, options: options)
    } catch let error as JSONPathSyntaxError {
        throw UsageError(description: error.description)
    }
    let output = try SplitDirectory(directory: directory, prefix: prefix, replace: settings.values["--replace"] != nil)
    let writer = ShardWriter(
        directory: output.staging,
        prefix: prefix,
        shardSize: shardSize,
        gzip: settings.values["--gzip"] != nil
    )
    do {
        let shards: [ShardWriter.Shard]
        while let value = try reader.next() { try writer.write(value.bytes) }
        shards = try writer.finish()
        let manifest = Manifest(
            source: name,
            validator: validator(of: source, name: name),
            query: paths[0],
            compression: settings.values["--gzip"] != nil ? "gzip" : "none",
            sourceBytes: reader.report.bytesRead,
            shards: shards
        )
        try manifest.write(to: output.staging)
        try output.publish(shards)
        standardError.write(
            "yajl: \(manifest.records) record\(manifest.records == 1 ? "" : "s") in \(shards.count) shard\(shards.count == 1 ? "" : "s") in \(directory)\n"
        )
        if manifest.records == 0 { standardError.write("yajl: warning: no value matched \(paths[0])\n") }
    } catch {
        writer.abandon()
        output.abandon()
        standardError.write("yajl: note: no shard kept in \(directory): the split did not complete\n")
        throw error
    }
    return ExitStatus.success
}

/// What identifies the version of the source that was split: each field's name and its value
/// (sizes are numbers, the rest strings).
private func validator(of source: any JSONByteSource, name: String) -> [(String, JSONValue)] {
    if let http = source as? HTTPByteSource {
        var fields: [(String, JSONValue)] = []
        if let etag = http.resourceETag { fields.append(("etag", .string(etag))) }
        if let date = http.resourceLastModified { fields.append(("last_modified", .string(date))) }
        if let length = http.resourceLength { fields.append(("length", JSONValue(integerLiteral: length))) }
        return fields
    }
    guard name != "stdin", let attributes = try? FileManager.default.attributesOfItem(atPath: name) else { return [] }
    var fields: [(String, JSONValue)] = []
    if let size = fileSize(name) { fields.append(("size", JSONValue(integerLiteral: size))) }
    if let date = attributes[.modificationDate] as? Date {
        fields.append(("modified", .string(RFC3339.string(from: date))))
    }
    return fields
}

/// `manifest.json`: the shards, their counts, and where they came from.
private struct Manifest {
    let source: String
    let validator: [(String, JSONValue)]
    let query: String
    let compression: String
    let sourceBytes: Int
    let shards: [ShardWriter.Shard]

    var records: Int { shards.reduce(0) { $0 + $1.records } }

    /// The manifest as a JSON value, members in the order they are written.
    var value: JSONValue {
        let number = { (value: Int) in JSONValue(integerLiteral: value) }
        let shardValues = shards.map { shard -> JSONValue in
            .object([
                "name": .string(shard.name), "records": number(shard.records), "bytes": number(shard.bytes),
                "file_bytes": number(shard.fileBytes),
            ])
        }
        return .object([
            "format": "ndjson",
            "compression": .string(compression),
            "source": .string(source),
            "source_bytes": number(sourceBytes),
            "validator": .object(JSONObject(validator.map { JSONObject.Member(key: $0.0, value: $0.1) })),
            "query": .string(query),
            "records": number(records),
            "bytes": number(shards.reduce(0) { $0 + $1.bytes }),
            "shards": .array(JSONArray(shardValues)),
        ])
    }

    func write(to directory: String) throws {
        // Into the staging folder, from which it is renamed into DIR last; indented two spaces,
        // with a final newline (yajl_gen's, when it beautifies).
        let target = directory + "/manifest.json"
        let fd = try Syscalls.createForWriting(target)
        defer { Syscalls.close(fd) }
        let writer = JSONWriter(
            to: FileDescriptorOutputSink(fileDescriptor: fd, name: target),
            options: JSONWriter.Options(beautify: true, indent: "  ")
        )
        try writer.write(value)
        try writer.finish()
    }
}
