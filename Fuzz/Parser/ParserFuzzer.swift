// libFuzzer target: the parser on arbitrary bytes, with fuzzer-chosen options and chunking.
//
// Checks, for every input: no crash (AddressSanitizer watches memory); the same events and the
// same error, at the same absolute offset, line and column, whether the bytes come in one piece
// or in the fuzzer's chunks; every error located inside the input; and every number's value
// bit-exact with strtod (the Eisel-Lemire path and its fallbacks).

/// What one parse produced.
struct ParseOutcome: Equatable {
    var events: [JSONEvent] = []
    var error: String?
}

func parse(_ document: [UInt8], options: JSONParser.Options, chunks: [Int]) -> (ParseOutcome, JSONParseError?) {
    var outcome = ParseOutcome()
    let parser = JSONParser(options: options) { event, _ in
        if case .number(let number) = event { checkAgainstStrtod(number) }
        outcome.events.append(event)
    }
    do {
        var start = 0
        for size in chunks {
            guard try parser.parse(document[start..<(start + size)]) == .parsing else { break }
            start += size
        }
        if parser.state == .parsing { try parser.finish() }
        return (outcome, nil)
    } catch let error as JSONParseError {
        outcome.error =
            "\(error.kind) at \(error.byteOffset) (\(error.line):\(error.column)) in \(error.path?.description ?? "-"): \(error.message)"
        return (outcome, error)
    } catch {
        fuzzFailure("an error that is not a JSONParseError: \(error)")
    }
}

/// A number's value must be what `strtod` gives for its text (an integer that fits aside), and
/// its kind found from the text's shape (`JSONNumberView.kind`) the case of that value.
func checkAgainstStrtod(_ number: JSONNumber) {
    var text = number.text
    text.withUTF8 { utf8 in
        let raw = UnsafeRawBufferPointer(utf8)
        if JSONNumberParser.kind(raw) != number.value.kind {
            fuzzFailure("\(number.text): kind \(JSONNumberParser.kind(raw)), value \(number.value)")
        }
        let expected = JSONNumberParser.strtodValue(raw)
        switch number.value {
        case .double(let value):
            if value.bitPattern != expected.bitPattern { fuzzFailure("\(number.text): \(value), strtod \(expected)") }
        case .integer(let value):
            if Double(value) != expected { fuzzFailure("\(number.text): integer \(value), strtod \(expected)") }
        case .unrepresentable:
            if expected.isFinite && raw.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }) {
                fuzzFailure("\(number.text): unrepresentable, strtod \(expected)")
            }
        }
    }
}

/// The target's check of one input (called by FuzzMain.swift's `LLVMFuzzerTestOneInput`).
func fuzzParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let flags = input.byte()
    var options = JSONParser.Options()
    options.allowComments = flags & 1 != 0
    options.allowTrailingGarbage = flags & 2 != 0
    options.allowMultipleValues = flags & 4 != 0
    options.allowPartialValues = flags & 8 != 0
    options.validatesUTF8 = flags & 16 == 0
    if flags & 32 != 0 { options.maxDepth = Int(input.byte() % 16) + 1 }
    if flags & 64 != 0 { options.maxTokenBytes = Int(input.byte() % 32) + 1 }
    if flags & 128 != 0 { options.maxDocumentBytes = Int(input.byte()) * 2 }
    let seed = input.uint32()
    let document = input.rest()

    let (whole, wholeError) = parse(document, options: options, chunks: document.isEmpty ? [] : [document.count])
    let (split, splitError) = parse(document, options: options, chunks: chunkSizes(seed: seed, total: document.count))
    // `maxTokenBytes` bounds what YAJL buffers while a token spans chunks: by definition it
    // depends on the chunking (a token inside one chunk is never buffered). With it in play the
    // outcomes may differ; the errors must still be located right.
    let tokenLimitInPlay =
        flags & 64 != 0 && (wholeError?.kind == .tokenLimitExceeded || splitError?.kind == .tokenLimitExceeded)
    guard
        whole == split || tokenLimitInPlay
            || isDocumentedStringException(whole, wholeError, split, splitError, document)
    else {
        fuzzFailure(
            "chunking changed the outcome:\n  whole: \(whole.error ?? "ok") after \(whole.events.count) events\n  split: \(split.error ?? "ok") after \(split.events.count) events"
        )
    }
    for error in [wholeError, splitError].compactMap({ $0 }) { checkLocation(of: error, in: document) }
    // Validation's lean first pass accepts only what a parse accepts (it leaves the rest to the
    // full pass, which locates the error).
    if let rejected = whole.error, (try? LeanValidation.run(MemoryByteSource(document), options: options)) == .valid {
        fuzzFailure("the lean validation pass accepted what a parse rejects: \(rejected)")
    }
    // Nor at the fuzzer's read size (a token split anywhere); and `validate` (at the parse's
    // reads) gives the parse's verdict.
    var leanOptions = options
    leanOptions.chunkSize = Int(seed % 13) + 1
    if let rejected = whole.error,
        (try? LeanValidation.run(MemoryByteSource(document), options: leanOptions)) == .valid
    {
        fuzzFailure("the lean validation pass accepted what a parse rejects at small reads: \(rejected)")
    }
    let validated = Result { try JSONParser.validate(MemoryByteSource(document), options: options) }
    if case .success = validated, let rejected = whole.error {
        fuzzFailure("validate accepted what a parse rejects: \(rejected)")
    }
    if case .failure(let error) = validated, whole.error == nil {
        fuzzFailure("validate rejected what a parse accepts: \(error)")
    }
    return 0
}

/// The one documented chunking dependence (Docs/Conformance.md, "Error offsets"): for an "after
/// key and value" error YAJL moves the offset back over the offending token, and for a string
/// token that spans chunks it cannot. Kind, message, path and events must still be equal.
func isDocumentedStringException(
    _ whole: ParseOutcome,
    _ wholeError: JSONParseError?,
    _ split: ParseOutcome,
    _ splitError: JSONParseError?,
    _ document: [UInt8]
) -> Bool {
    guard let a = wholeError, let b = splitError, whole.events == split.events,
        a.kind == .unexpectedToken, b.kind == a.kind, a.message == b.message, a.message.contains("after key and value"),
        a.path == b.path
    else { return false }
    return true
}

/// An error's offset is inside the input, and its line and column are those of the offset.
func checkLocation(of error: JSONParseError, in document: [UInt8]) {
    guard error.byteOffset >= 0, error.byteOffset <= document.count else {
        fuzzFailure("offset \(error.byteOffset) outside \(document.count) bytes")
    }
    let before = document[..<error.byteOffset]
    let line = before.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    let column = error.byteOffset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
    guard error.line == line, error.column == column else {
        fuzzFailure(
            "\(error.kind) at \(error.byteOffset) reported at \(error.line):\(error.column), which is \(line):\(column)"
        )
    }
    guard !error.message.isEmpty else { fuzzFailure("an error without a message") }
}
