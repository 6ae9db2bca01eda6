#!/usr/bin/env python3
"""A loopback HTTP server for swift-yajl's network tests.

Serves one file at /doc.json (anything else is 404) with Content-Length, an ETag, Last-Modified,
Accept-Ranges and single byte ranges (`Range: bytes=N-`, honouring If-Range), and can misbehave:

  --drop-after N --drops K   cut the connection after N body bytes, on the first K body responses
  --no-ranges                ignore Range headers and never send Accept-Ranges
  --change-after K           after K body responses, serve a changed resource (new ETag, one byte changed)
  --throttle BYTES           send at most BYTES bytes per second

Prints "PORT <n>" once listening on 127.0.0.1 (port 0 picks a free one), logs every request as
one line to --log, and exits by itself after --idle seconds without a request (default 120).
"""
import argparse, http.server, os, signal, socketserver, sys, threading, time

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
    parser.add_argument("--throttle", type=int, default=0)
    parser.add_argument("--log", default=None)
    parser.add_argument("--idle", type=float, default=120)
    args = parser.parse_args()

    size = os.path.getsize(args.file)
    state = {"bodies": 0, "last": time.time()}
    lock = threading.Lock()
    log = open(args.log, "a", buffering=1) if args.log else sys.stderr

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def do_GET(self):
            with lock:
                state["last"] = time.time()
                number = state["bodies"]
            log.write("GET %s Range=%s If-Range=%s\n" % (self.path, self.headers.get("Range", "-"), self.headers.get("If-Range", "-")))
            if self.path != "/doc.json":
                body = b'{"error": "not found"}'
                self.send_response(404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            changed = args.change_after >= 0 and number >= args.change_after
            etag = '"v2-%d"' % size if changed else '"v1-%d"' % size
            start = 0
            ranged = False
            spec = self.headers.get("Range")
            if spec and not args.no_ranges and spec.startswith("bytes=") and spec.endswith("-"):
                if_range = self.headers.get("If-Range")
                if if_range is None or if_range == etag:
                    start = int(spec[len("bytes="):-1])
                    ranged = True
            if ranged:
                self.send_response(206)
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, size - 1, size))
            else:
                self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(size - start))
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", "Sun, 29 Nov 2026 10:00:00 GMT")
            if not args.no_ranges:
                self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            with lock:
                state["bodies"] += 1
            drop = number < args.drops and args.drop_after > 0
            limit = args.drop_after if drop else None
            sent = 0
            with open(args.file, "rb") as f:
                f.seek(start)
                began = time.time()
                while True:
                    chunk = f.read(65536)
                    if not chunk:
                        break
                    if changed and start == 0 and sent == 0 and len(chunk) > 10:
                        chunk = chunk[:10] + b" " + chunk[11:] if chunk[10:11] == b" " else chunk
                    if limit is not None and sent + len(chunk) > limit:
                        chunk = chunk[: limit - sent]
                    try:
                        self.wfile.write(chunk)
                    except (BrokenPipeError, ConnectionResetError):
                        return
                    sent += len(chunk)
                    if limit is not None and sent >= limit:
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(2)
                        return
                    if args.throttle:
                        expected = sent / args.throttle
                        elapsed = time.time() - began
                        if expected > elapsed:
                            time.sleep(expected - elapsed)

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        allow_reuse_address = True

    server = Server(("127.0.0.1", args.port), Handler)
    print("PORT %d" % server.server_address[1], flush=True)

    def watchdog():
        while True:
            time.sleep(1)
            if time.time() - state["last"] > args.idle:
                os._exit(0)
    threading.Thread(target=watchdog, daemon=True).start()
    server.serve_forever()

if __name__ == "__main__":
    main()
