// libFuzzer target: JSONPath expressions, and selection with them.
//
// The input is an expression, a NUL byte, then a document. Checks: no crash; an invalid
// expression is rejected with a position inside it; a valid one selects from the document
// without crashing, the same records with concurrent parsing and without, the same records and
// error kind whether the input arrives in reads of 1, 3 or 64 KiB bytes, the same records in the
// RFC's order as in the document's (as multisets),
// and any parse error is located inside the document.

func select(
    _ expression: String,
    from document: [UInt8],
    concurrently: Bool,
    order: JSONRecordOptions.Order = .document,
    chunkSize: Int? = nil
) -> [String] {
    var options = JSONRecordOptions()
    options.parsesConcurrently = concurrently
    if let chunkSize { options.parser.chunkSize = chunkSize }
    options.order = order
    options.parser.allowMultipleValues = true
    var selected: [String] = []
    do {
        let reader = try JSONRecordReader(JSONFragment.self, at: expression, from: .bytes(document), options: options)
        while let record = try reader.nextRecord(), selected.count < 10_000 {
            selected.append(
                "\(record.path) \(record.queryIndex) \(record.line) \(String(decoding: record.value.bytes, as: UTF8.self))"
            )
        }
    } catch let error as JSONParseError {
        guard error.byteOffset >= 0, error.byteOffset <= document.count else {
            fuzzFailure("offset \(error.byteOffset) outside \(document.count) bytes")
        }
        selected.append(
            "error \(error.kind) at \(error.byteOffset) (\(error.line):\(error.column)) in \(error.path?.description ?? "-")"
        )
    } catch {
        fuzzFailure("unexpected error for a valid path: \(error)")
    }
    return selected
}

/// The target's check of one input (called by FuzzMain.swift's `LLVMFuzzerTestOneInput`).
func fuzzPath(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let bytes = input.rest()
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    let expression = String(decoding: bytes[..<split], as: UTF8.self)
    let document = split < bytes.count ? Array(bytes[(split + 1)...]) : Array("[]".utf8)
    do {
        _ = try JSONPathQuery(expression)
    } catch let error as JSONPathSyntaxError {
        guard error.position >= 0, error.position <= expression.unicodeScalars.count else {
            fuzzFailure(
                "position \(error.position) outside the \(expression.unicodeScalars.count) scalars of \(expression.debugDescription)"
            )
        }
        guard !error.description.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" }) else {
            fuzzFailure("a raw control character in the message of \(expression.debugDescription)")
        }
        guard !error.message.isEmpty else { fuzzFailure("an error without a message") }
        return 0
    } catch {
        fuzzFailure("an error that is not a JSONPathSyntaxError: \(error)")
    }
    let serial = select(expression, from: document, concurrently: false)
    let concurrent = select(expression, from: document, concurrently: true)
    guard serial == concurrent else {
        fuzzFailure("concurrent parsing selected differently for \(expression.debugDescription)")
    }
    // Captures span reads of one and three bytes as they span none: the same records, and an
    // error of the same kind. (Its offset is not compared: YAJL locates a token that ends a
    // number with no separator, `0{`, at the number when the two arrive in separate reads.)
    func comparable(_ selected: [String]) -> [String] {
        selected.map { $0.hasPrefix("error ") ? $0.split(separator: " ").prefix(2).joined(separator: " ") : $0 }
    }
    for chunkSize in [1, 3] {
        let small = select(expression, from: document, concurrently: false, chunkSize: chunkSize)
        guard comparable(small) == comparable(serial) else {
            fuzzFailure(
                "reads of \(chunkSize) bytes selected differently for \(expression.debugDescription):\n  \(chunkSize): \(small.suffix(3))\n  whole: \(serial.suffix(3))"
            )
        }
    }
    // A parse error ends both orders at different places (RFC order holds values back): compare
    // only complete selections.
    if !serial.contains(where: { $0.hasPrefix("error ") }) {
        let rfc = select(expression, from: document, concurrently: false, order: .rfc)
        guard rfc.count == serial.count || serial.count >= 10_000,
            rfc.sorted() == serial.sorted() || serial.count >= 10_000
        else {
            fuzzFailure(
                "the RFC order selected other values than the document order for \(expression.debugDescription)"
            )
        }
    }
    return 0
}
