internal import CCurl

/// curl's callbacks: body bytes into the caller's buffer (back-pressure), header lines into the
/// response head, and the check, before the first body byte, that it is the body wanted.
extension HTTPByteSource {
    /// The most body bytes held beside the caller's buffer before the transfer is paused. Pausing
    /// costs a round of `curl_multi_poll` when resumed, so it is kept for real back-pressure.
    static let spillLimit = 1 << 20

    /// Body bytes from curl: into the caller's buffer, the rest into the spill (up to
    /// ``spillLimit``); beyond that, pause the transfer so curl keeps the bytes. A callback is taken
    /// whole or not at all.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        if failure != nil { return 0 }
        if !headersChecked { checkHeaders() }
        if failure != nil { return 0 }
        if discardingBody { return bytes.count }
        let room = target.map { $0.count - targetFilled } ?? 0
        if let target, bytes.count <= room {
            (target.baseAddress! + targetFilled).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            targetFilled += bytes.count
            return bytes.count
        }
        guard pendingBytes == 0 || pendingBytes + bytes.count - room <= Self.spillLimit else {
            paused = true
            return ccurl_writefunc_pause
        }
        if let target, room > 0 {
            (target.baseAddress! + targetFilled).copyMemory(from: bytes.baseAddress!, byteCount: room)
            targetFilled += room
        }
        spill.append(contentsOf: bytes[room...])
        return bytes.count
    }

    /// One header line (or a status line, or the blank line that ends the headers).
    func header(_ line: UnsafeRawBufferPointer) -> Int {
        everConnected = true
        head.take(line)
        if head.headerBytes > HTTPResponseHead.maxHeaderBytes {
            fail(.headersTooLarge, "the response headers are larger than \(HTTPResponseHead.maxHeaderBytes >> 10) KiB")
            return 0
        }
        return line.count
    }

    /// Before the first body byte of a response: is it the body we want?
    func checkHeaders() {
        headersChecked = true
        if head.isRedirect || head.isRetriableStatus {
            discardingBody = true  // followed or retried when the transfer ends
            return
        }
        if head.status >= 300 {
            fail(.status(head.status), HTTPError.statusText[head.status] ?? "status \(head.status)")
            return
        }
        if let encoding = head.contentEncoding, !options.acceptsCompression {
            fail(.contentEncoding(encoding), "the request asked for Accept-Encoding: identity (acceptsCompression to decode it)")
            return
        }
        if delivered == 0 {
            // Nothing handed out yet: this response defines the resource.
            compressed = head.contentEncoding != nil
            totalLength = compressed ? nil : head.contentLength
            validator = ResumeValidator(head)
            acceptsRanges = head.acceptsRanges
            return
        }
        if head.status == 200 {
            fail(.cannotResume, "the resource changed (200 instead of 206 to a ranged request with If-Range)")
        } else if head.status != 206 || head.contentRangeStart != delivered {
            fail(.cannotResume, "the server answered \(head.status) with a range starting at \(head.contentRangeStart.map(String.init) ?? "none"), not at \(delivered)")
        } else if head.contentEncoding != nil {
            fail(.cannotResume, "the resumed response is \(head.contentEncoding!)-compressed")
        } else if let validator, let mismatch = validator.mismatch(in: head) {
            fail(.cannotResume, mismatch)
        }
    }
}
