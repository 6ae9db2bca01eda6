#!/usr/bin/env python3
"""A loopback HTTP server for swift-yajl's network tests.

Serves one file at /doc.json (anything else is 404) with Content-Length, an ETag, Last-Modified,
Accept-Ranges and single byte ranges (`Range: bytes=N-` and `bytes=N-M`, honouring If-Range),
answers If-None-Match / If-Modified-Since that match with 304, and can misbehave:

  --drop-after N --drops K   cut the connection after N body bytes, on the first K body responses
  --no-ranges                ignore Range headers and never send Accept-Ranges
  --change-after K           after K body responses, serve a changed resource (new ETag and
                             Last-Modified, one byte changed)
  --no-etag                  send Last-Modified only
  --no-validators            send neither ETag nor Last-Modified
  --etag-then-none           send the ETag on the first response only
  --weak-etag                send a weak ETag (W/"...")
  --ignore-if-range          answer a Range with 206 even when If-Range does not match
  --drop-before-body K       send the headers, then cut the connection, on the first K body responses
  --throttle BYTES           send at most BYTES bytes per second on each connection (a server
                             limited per connection, as object stores are)
  --stall-after N            send N body bytes, then nothing for 600 s
  --status CODE              answer every request with CODE and an empty body
  --status-after-drop CODE --status-count K --retry-after S
                             after the first drop, answer K requests with CODE (Retry-After: S)
  --refuse-after-drop S      after the first drop, refuse connections for S seconds
  --redirect-loop            /doc.json redirects to /loop/1, /loop/N to /loop/N+1, forever
  --redirect-to URL          /doc.json redirects (302) to URL; /final.json serves the document
  --redirect-scheme URL      /doc.json redirects to URL whatever its scheme (file://, ftp://)
  --gzip                     compress the body (Content-Encoding: gzip) whatever was asked
  --huge-header N            add a header of N bytes
  --tls CERT KEY             serve HTTPS with this PEM certificate and key

Prints "PORT <n>" once listening on 127.0.0.1 (port 0 picks a free one), logs every request as
one line to --log (method, path, Range, If-Range, X-Api-Key, Accept-Encoding, If-None-Match,
If-Modified-Since), and after each response a line "SENT status start bytes" (the body bytes
sent, from offset start), and exits by itself
after --idle seconds without a request and without a transfer in progress (default 120).
"""
import argparse, gzip, http.server, os, signal, socket, socketserver, ssl, sys, threading, time

def main():
    # A parent may start us with SIGTERM ignored or blocked (both survive exec; Dispatch worker
    # threads block every signal): be stoppable.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--drop-after", type=int, default=0)
    parser.add_argument("--drops", type=int, default=0)
    parser.add_argument("--no-ranges", action="store_true")
    parser.add_argument("--change-after", type=int, default=-1)
    parser.add_argument("--no-etag", action="store_true")
    parser.add_argument("--no-validators", action="store_true")
    parser.add_argument("--etag-then-none", action="store_true")
    parser.add_argument("--weak-etag", action="store_true")
    parser.add_argument("--ignore-if-range", action="store_true")
    parser.add_argument("--drop-before-body", type=int, default=0)
    parser.add_argument("--throttle", type=int, default=0)
    parser.add_argument("--stall-after", type=int, default=-1)
    parser.add_argument("--status", type=int, default=0)
    parser.add_argument("--status-after-drop", type=int, default=0)
    parser.add_argument("--status-count", type=int, default=1)
    parser.add_argument("--retry-after", default=None)
    parser.add_argument("--refuse-after-drop", type=float, default=0)
    parser.add_argument("--redirect-loop", action="store_true")
    parser.add_argument("--redirect-to", default=None)
    parser.add_argument("--redirect-scheme", default=None)
    parser.add_argument("--gzip", action="store_true")
    parser.add_argument("--huge-header", type=int, default=0)
    parser.add_argument("--tls", nargs=2, default=None)
    parser.add_argument("--log", default=None)
    parser.add_argument("--idle", type=float, default=120)
    args = parser.parse_args()

    with open(args.file, "rb") as f:
        original = f.read()
    state = {"bodies": 0, "last": time.time(), "active": 0, "dropped": False, "statuses": 0}
    lock = threading.Lock()
    log = open(args.log, "a", buffering=1) if args.log else sys.stderr
    servers = []

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def simple(self, code, body=b"", headers=()):
            self.send_response(code)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            with lock:
                state["last"] = time.time()
                state["active"] += 1
            try:
                self.serve()
            finally:
                with lock:
                    state["active"] -= 1
                    state["last"] = time.time()

        def serve(self):
            with lock:
                number = state["bodies"]
            h = self.headers
            log.write("GET %s Range=%s If-Range=%s X-Api-Key=%s Accept-Encoding=%s If-None-Match=%s If-Modified-Since=%s\n" % (
                self.path, h.get("Range", "-"), (h.get("If-Range") or "-").replace(" ", "_"),
                h.get("X-Api-Key", "-"), h.get("Accept-Encoding", "-"), h.get("If-None-Match", "-"),
                (h.get("If-Modified-Since") or "-").replace(" ", "_")))
            if args.status:
                return self.simple(args.status)
            if args.redirect_loop and (self.path == "/doc.json" or self.path.startswith("/loop/")):
                n = int(self.path.split("/")[-1]) + 1 if self.path.startswith("/loop/") else 1
                return self.simple(302, headers=[("Location", "/loop/%d" % n)])
            if args.redirect_to and self.path == "/doc.json":
                return self.simple(302, headers=[("Location", args.redirect_to)])
            if args.redirect_scheme and self.path == "/doc.json":
                return self.simple(302, headers=[("Location", args.redirect_scheme)])
            if self.path not in ("/doc.json", "/final.json"):
                return self.simple(404, b'{"error": "not found"}', [("Content-Type", "application/json")])
            with lock:
                if state["dropped"] and args.status_after_drop and state["statuses"] < args.status_count:
                    state["statuses"] += 1
                    extra = [("Retry-After", args.retry_after)] if args.retry_after else []
                    return self.simple(args.status_after_drop, headers=extra)
            changed = args.change_after >= 0 and number >= args.change_after
            data = original
            if changed and len(data) > 11 and data[10:11] == b" ":
                data = data[:10] + b"\n" + data[11:]
            etag = '"v2-%d"' % len(data) if changed else '"v1-%d"' % len(data)
            if args.weak_etag:
                etag = "W/" + etag
            last_modified = "Mon, 30 Nov 2026 10:00:00 GMT" if changed else "Sun, 29 Nov 2026 10:00:00 GMT"
            send_etag = not (args.no_etag or args.no_validators or (args.etag_then_none and number > 0))
            send_lm = not args.no_validators
            validators = [v for v, sent in ((etag, send_etag), (last_modified, send_lm)) if sent]
            none_match, modified_since = h.get("If-None-Match"), h.get("If-Modified-Since")
            if (none_match is not None and none_match in validators) or (
                none_match is None and modified_since is not None and send_lm and modified_since == last_modified):
                log.write("SENT 304 0 0\n")
                return self.simple(304, headers=[(n, v) for n, v, sent in (
                    ("ETag", etag, send_etag), ("Last-Modified", last_modified, send_lm)) if sent])
            start = 0
            end = len(data)
            ranged = False
            spec = h.get("Range")
            if spec and not args.no_ranges and spec.startswith("bytes=") and "-" in spec:
                if_range = h.get("If-Range")
                if args.ignore_if_range or if_range is None or if_range == etag or if_range == last_modified:
                    first, _, last = spec[len("bytes="):].partition("-")
                    start = int(first)
                    end = min(len(data), int(last) + 1) if last else len(data)
                    ranged = True
            body = data[start:end]
            if args.gzip:
                body = gzip.compress(body, compresslevel=1)
            if ranged:
                self.send_response(206)
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end - 1, len(data)))
            else:
                self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            if args.gzip:
                self.send_header("Content-Encoding", "gzip")
            if send_etag:
                self.send_header("ETag", etag)
            if send_lm:
                self.send_header("Last-Modified", last_modified)
            if args.huge_header:
                self.send_header("X-Huge", "x" * args.huge_header)
            if not args.no_ranges:
                self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            with lock:
                # The body responses are counted here, one at a time (concurrent requests, as a
                # segmented download makes, each get their own number for the drops).
                number = state["body_count"] = state.get("body_count", 0) + 1
                number -= 1
                state["bodies"] += 1
            if number < args.drop_before_body:
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            drop = number < args.drops and args.drop_after > 0
            limit = args.drop_after if drop else None
            sent = 0
            try:
                self.send_body(body, limit, drop, start)
            finally:
                log.write("SENT %d %d %d\n" % (206 if ranged else 200, start, self.sent))

        def send_body(self, body, limit, drop, start):
            sent = 0
            self.sent = 0
            began = time.time()
            step = min(65536, args.throttle) if args.throttle else 65536
            while sent < len(body):
                chunk = body[sent:sent + step]
                if limit is not None and sent + len(chunk) > limit:
                    chunk = chunk[: limit - sent]
                if args.stall_after >= 0 and sent + len(chunk) > args.stall_after:
                    chunk = chunk[: max(0, args.stall_after - sent)]
                try:
                    self.wfile.write(chunk)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    return
                sent += len(chunk)
                self.sent = sent
                if args.stall_after >= 0 and sent >= args.stall_after:
                    time.sleep(600)
                    return
                if limit is not None and sent >= limit:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    with lock:
                        state["dropped"] = True
                    if args.refuse_after_drop:
                        threading.Thread(target=refuse, args=(args.refuse_after_drop,), daemon=True).start()
                    return
                if args.throttle:
                    expected = sent / args.throttle
                    elapsed = time.time() - began
                    if expected > elapsed:
                        time.sleep(expected - elapsed)

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        allow_reuse_address = True

    def serve(port):
        server = Server(("127.0.0.1", port), Handler)
        if args.tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(args.tls[0], args.tls[1])
            server.socket = context.wrap_socket(server.socket, server_side=True)
        servers.append(server)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server

    def refuse(seconds):
        # Close the listening socket (connections are refused), then listen again on the same port.
        server = servers[-1]
        port = server.server_address[1]
        server.shutdown()
        server.server_close()
        time.sleep(seconds)
        with lock:
            state["last"] = time.time()
        serve(port)

    first = serve(args.port)
    print("PORT %d" % first.server_address[1], flush=True)
    while True:
        time.sleep(1)
        with lock:
            idle = state["active"] == 0 and time.time() - state["last"] > args.idle
        if idle:
            os._exit(0)

if __name__ == "__main__":
    main()
