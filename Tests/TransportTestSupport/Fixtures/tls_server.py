"""A real TLS peer for CurlTransport tests: HTTPS on 127.0.0.1, kernel-chosen port printed on stdout.

The certificate (test-server.pem, SAN IP:127.0.0.1, valid to 2126) is signed by test-ca.pem; both are
fixtures, so the tests need no openssl at run time. Exits when stdin closes (the test process ended).
"""
import http.server
import os
import ssl
import sys
import threading

here = os.path.dirname(os.path.abspath(__file__))


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"secure"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(os.path.join(here, "test-server.pem"), os.path.join(here, "test-server.key"))
server.socket = context.wrap_socket(server.socket, server_side=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
print(server.server_address[1], flush=True)
sys.stdin.read()
