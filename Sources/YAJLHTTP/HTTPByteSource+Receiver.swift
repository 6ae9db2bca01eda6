/// curl's bytes, as ``CurlTransfer`` forwards them from its callbacks: header lines into the
/// response head, and body bytes into the caller's buffer (back-pressure), once the policy has
/// said, before the first body byte, that it is the body wanted.
extension HTTPByteSource: CurlTransferReceiver {
    /// The most body bytes held beside the caller's buffer before the transfer is paused. Pausing
    /// costs a round of `curl_multi_poll` when resumed, so it is kept for real back-pressure.
    static let spillLimit = 1 << 20

    /// One header line (or a status line, or the blank line that ends the headers).
    func receiveHeader(_ line: UnsafeRawBufferPointer) -> Bool {
        everConnected = true
        head.take(line)
        guard head.headerBytes <= HTTPResponseHead.maxHeaderBytes else {
            fail(.headersTooLarge, "the response headers are larger than \(HTTPResponseHead.maxHeaderBytes >> 10) KiB")
            return false
        }
        return true
    }

    /// Body bytes: into the caller's buffer, the rest into the spill (up to ``spillLimit``);
    /// beyond that, pause the transfer so curl keeps the bytes. A callback is taken whole or not
    /// at all.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> CurlTransfer.BodyDisposition {
        switch state {
        case .transferring(.headers):
            switch policy.verdict(on: head, delivered: delivered, identity: identity, segment: segment) {
            case .useBody(let defines):
                if let defines { identity = defines }
                state = .transferring(.body)
            case .discardBody:
                state = .transferring(.discarding)
                return .taken
            case .fail(let kind, let reason):
                fail(kind, reason)
                return .abort
            }
        case .transferring(.body): break
        case .transferring(.discarding): return .taken
        case .idle, .betweenAttempts, .finished, .failed: return .abort
        }
        let room = target.map { $0.count - targetFilled } ?? 0
        if let target, bytes.count <= room {
            (target.baseAddress! + targetFilled).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            targetFilled += bytes.count
            return .taken
        }
        guard pendingBytes == 0 || pendingBytes + bytes.count - room <= Self.spillLimit else { return .pause }
        if let target, room > 0 {
            (target.baseAddress! + targetFilled).copyMemory(from: bytes.baseAddress!, byteCount: room)
            targetFilled += room
        }
        spill.append(contentsOf: bytes[room...])
        return .taken
    }
}
