// The `YAJL` library: everything in `YAJLCore` (the streaming parser, events, records, the
// writer; no Foundation beyond FoundationEssentials), plus what needs the full Foundation:
// `FileHandle` and `InputStream` sources and sinks, `DateFormatter` strategies, and conversion to
// and from `JSONSerialization`'s trees. Programs that need none of these (the `yajl` tool) import
// `YAJLCore` alone and do not link Foundation, CoreFoundation or ICU's data.
@_exported import YAJLCore
