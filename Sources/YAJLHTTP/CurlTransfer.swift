private import CCurl

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ``CurlTransfer`` hands body bytes and header lines to (the byte source), from inside
/// curl's callbacks. It must not close the transfer from there: it records what it decides, and
/// the transfer is closed after curl has returned.
protocol CurlTransferReceiver: AnyObject {
    /// Body bytes; the answer says whether curl may drop them.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> CurlTransfer.BodyDisposition
    /// One header line (or a status line, or the blank line ending the headers); `false` aborts.
    func receiveHeader(_ line: UnsafeRawBufferPointer) -> Bool
}

/// The only file that calls libcurl: one multi handle for the source's life, one easy handle per
/// attempt, the capture-free C callbacks that forward borrowed bytes to the receiver, and curl's
/// results made typed (``Completion``). Everything above it is plain Swift.
final class CurlTransfer {
    /// How the receiver took a callback's body bytes.
    enum BodyDisposition {
        /// Taken (copied, or dropped on purpose).
        case taken
        /// Not taken: pause the transfer; curl keeps the bytes and offers them again once resumed.
        case pause
        /// Not taken: end the transfer (the receiver has recorded why).
        case abort
    }

    /// How an attempt ended, in curl's terms made typed.
    enum Completion: Equatable {
        /// curl saw the end of the response (which may still be short of its length).
        case complete
        /// The connection broke mid-transfer.
        case dropped(String)
        /// The connection was refused.
        case refused(String)
        /// Connecting, or the low-speed or whole-transfer limit, timed out.
        case timedOut(String)
        /// curl ran out of memory (a header line past its limit does this).
        case outOfMemory(String)
        /// Anything else: DNS, TLS and protocol errors, with curl's code.
        case failed(code: Int, message: String, isTLS: Bool)

        /// curl's code for it (`CURLcode`), for messages.
        var code: Int {
            switch self {
            case .complete: return Int(CURLE_OK.rawValue)
            case .dropped: return Int(CURLE_RECV_ERROR.rawValue)
            case .refused: return Int(CURLE_COULDNT_CONNECT.rawValue)
            case .timedOut: return Int(CURLE_OPERATION_TIMEDOUT.rawValue)
            case .outOfMemory: return Int(CURLE_OUT_OF_MEMORY.rawValue)
            case .failed(let code, _, _): return code
            }
        }
    }

    /// The settings of one attempt.
    struct Request {
        let url: URL
        let headers: [String]
        let connectTimeout: TimeInterval
        let lowSpeedLimit: Int
        let lowSpeedTime: TimeInterval
        /// The whole attempt's limit (the time left before the deadline), if any.
        let totalTimeout: TimeInterval?
        let caCertificates: String?
        /// Whether curl may ask for, and decode, compressed bodies.
        let decodesCompression: Bool
    }

    /// libcurl, opened on first use: its table of functions (written once, then only read, by
    /// every thread), or why it could not be opened (an error of the transfer, not the process).
    private nonisolated(unsafe) static let library: Result<UnsafeMutablePointer<ccurl_api>, CurlLoadFailure> = {
        let api = UnsafeMutablePointer<ccurl_api>.allocate(capacity: 1)  // for the process's life
        api.initialize(to: ccurl_api())
        if let failure = ccurl_load(api) { return .failure(CurlLoadFailure(reason: String(cString: failure))) }
        return .success(api)
    }()
    private struct CurlLoadFailure: Error { let reason: String }
    /// The table of libcurl's functions, once loaded (every call goes through it).
    private var api: UnsafeMutablePointer<ccurl_api>!

    private var multi: UnsafeMutableRawPointer?
    private var easy: UnsafeMutableRawPointer?
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?
    /// curl's detailed message of the last failure (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private unowned let receiver: any CurlTransferReceiver
    /// Whether curl paused the transfer because the receiver asked.
    private(set) var isPaused = false

    init(receiver: any CurlTransferReceiver) {
        self.receiver = receiver
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        release()
        errorBuffer.deallocate()
    }

    /// Whether an attempt is running.
    var isActive: Bool { easy != nil }

    /// Starts an attempt; an error message when curl cannot start one.
    func begin(_ request: Request) -> String? {
        switch Self.library {
        case .success(let api): self.api = api
        case .failure(let failure): return "libcurl could not be loaded (\(failure.reason))"
        }
        guard let easy = ccurl_easy_init(api), let multi = multi ?? ccurl_multi_init(api) else {
            return "out of memory"
        }
        self.easy = easy
        self.multi = multi
        isPaused = false
        errorBuffer[0] = 0
        _ = ccurl_setopt_string(api, easy, CURLOPT_URL, request.url.absoluteString)
        _ = ccurl_setopt_long(api, easy, CURLOPT_FOLLOWLOCATION, 0)  // redirects are followed by the source
        _ = ccurl_setopt_string(api, easy, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = ccurl_setopt_long(api, easy, CURLOPT_NOSIGNAL, 1)
        _ = ccurl_setopt_pointer(api, easy, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
        _ = ccurl_setopt_long(api, easy, CURLOPT_CONNECTTIMEOUT_MS, Int(request.connectTimeout * 1000))
        _ = ccurl_setopt_long(api, easy, CURLOPT_LOW_SPEED_LIMIT, max(1, min(request.lowSpeedLimit, 1 << 40)))
        _ = ccurl_setopt_long(api, easy, CURLOPT_LOW_SPEED_TIME, Int(request.lowSpeedTime))
        if let total = request.totalTimeout {
            _ = ccurl_setopt_long(api, easy, CURLOPT_TIMEOUT_MS, max(1, Int(total * 1000)))
        }
        if let caCertificates = request.caCertificates {
            _ = ccurl_setopt_string(api, easy, CURLOPT_CAINFO, caCertificates)
        }
        _ = ccurl_setopt_string(api, easy, CURLOPT_USERAGENT, "swift-yajl")
        // An empty Accept-Encoding asks for what curl can decode.
        if request.decodesCompression { _ = ccurl_setopt_string(api, easy, CURLOPT_ACCEPT_ENCODING, "") }
        var list: UnsafeMutablePointer<curl_slist>?
        for header in request.headers { list = ccurl_slist_append(api, list, header) }
        requestHeaders = list
        if let list { _ = ccurl_setopt_pointer(api, easy, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list)) }

        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = ccurl_setopt_callback(api, easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            Unmanaged<CurlTransfer>.fromOpaque(context!)._withUnsafeGuaranteedRef {
                $0.body(UnsafeRawBufferPointer(start: data, count: size * count))
            }
        }
        _ = ccurl_setopt_pointer(api, easy, CURLOPT_WRITEDATA, context)
        _ = ccurl_setopt_callback(api, easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            Unmanaged<CurlTransfer>.fromOpaque(context!)._withUnsafeGuaranteedRef {
                let line = UnsafeRawBufferPointer(start: data, count: size * count)
                return $0.receiver.receiveHeader(line) ? line.count : 0
            }
        }
        _ = ccurl_setopt_pointer(api, easy, CURLOPT_HEADERDATA, context)
        ccurl_multi_add_handle(api, multi, easy)
        return nil
    }

    private func body(_ bytes: UnsafeRawBufferPointer) -> Int {
        switch receiver.receiveBody(bytes) {
        case .taken: return bytes.count
        case .pause:
            isPaused = true
            return ccurl_writefunc_pause
        case .abort: return 0
        }
    }

    /// Resumes a paused transfer (curl may deliver the bytes it kept at once).
    func unpause() {
        guard isPaused, let easy else { return }
        isPaused = false
        _ = ccurl_unpause(api, easy)
    }

    /// Lets curl work on the attempt without waiting.
    func perform() {
        var running: Int32 = 0
        ccurl_multi_perform(api, multi, &running)
    }

    /// Waits up to `milliseconds` for the network.
    func poll(milliseconds: Int32) {
        ccurl_multi_poll(api, multi, milliseconds)
    }

    /// How the attempt ended, once curl says it has.
    func completion() -> Completion? {
        var queued: Int32 = 0
        while let message = ccurl_multi_info_read(api, multi, &queued) {
            if message.pointee.msg == CURLMSG_DONE { return completion(of: ccurl_message_result(message)) }
        }
        return nil
    }

    private static let droppedCodes: Set<CURLcode> = [
        CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM,
    ]
    private static let tlsCodes: Set<CURLcode> = [
        CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
        CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
    ]

    private func completion(of result: CURLcode) -> Completion {
        if result == CURLE_OK { return .complete }
        let detail = String(cString: errorBuffer)
        let message = detail.isEmpty ? String(cString: ccurl_easy_strerror(api, result)) : detail
        if Self.droppedCodes.contains(result) { return .dropped(message) }
        if result == CURLE_COULDNT_CONNECT { return .refused(message) }
        if result == CURLE_OPERATION_TIMEDOUT { return .timedOut(message) }
        if result == CURLE_OUT_OF_MEMORY { return .outOfMemory(message) }
        return .failed(code: Int(result.rawValue), message: message, isTLS: Self.tlsCodes.contains(result))
    }

    /// Ends the attempt and frees the multi handle too: the transfer is over (finished, failed or
    /// cancelled). A later ``begin(_:)`` makes a new one.
    func release() {
        end()
        if let multi {
            ccurl_multi_cleanup(api, multi)
            self.multi = nil
        }
    }

    /// Ends the attempt (never from inside a callback: curl would free what it is using).
    func end() {
        if let easy {
            if let multi { ccurl_multi_remove_handle(api, multi, easy) }
            ccurl_easy_cleanup(api, easy)
            self.easy = nil
        }
        if let requestHeaders {
            ccurl_slist_free_all(api, requestHeaders)
            self.requestHeaders = nil
        }
        isPaused = false
    }
}
