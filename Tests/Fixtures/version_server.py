#!/usr/bin/env python3
"""A version server for ssvc's tests, on loopback only.

Each request reads the scenario file afresh, so a test changes the server's
behaviour by rewriting it. Every request is appended to the log file as one
JSON line (path, query, headers). Scenario keys:
  mode     normal | hang | reset | big | redirect-loop | https-to-http | redirect
           | redirect-chain (/rN answers 302 to /rN+1) | slow-headers (one
           header byte every `delay` s) | huge-headers (`size` bytes of headers)
           | drop (closes without an answer) | rst (resets without an answer)
  location where redirect mode sends the client (302)
  status   HTTP status (normal mode), default 200
  body     response body (normal mode)
  headers  extra response headers
  etag     answer 304 to a matching If-None-Match
  size     bytes to stream in big mode (no Content-Length)
  delay    seconds to wait before answering (normal mode)
  paths    per path, keys that replace the ones above for that path only:
           {"/v.json.minisig": {"status": 404}}
  file     serve this file's bytes (normal mode), streamed, with the body's
           headers; "last-modified" answers 304 to a matching If-Modified-Since
  pages    POST (the OSV API): the body for each request's "page_token"
           ("" for the first page); the request's body is logged as "body"
Log lines also carry "start" (time.time() when the request arrived) and,
with --client-ca (which makes a client certificate required), "peer": the
common name of the client's certificate.
"""
import argparse
import json
import os
import socket
import ssl
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

parser = argparse.ArgumentParser()
parser.add_argument("--scenario", required=True)
parser.add_argument("--log", required=True)
parser.add_argument("--port-file", required=True)
parser.add_argument("--cert")
parser.add_argument("--key")
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--client-ca")
args = parser.parse_args()
log_lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def redirect(self, location, close=False):
        """A 302 to `location`; with `close`, the connection closes after it."""
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()

    def do_POST(self):
        length = min(int(self.headers.get("Content-Length", "0")), 1 << 20)
        posted = self.rfile.read(length).decode("utf-8", "replace")
        self.do_GET(posted)

    def do_GET(self, posted=None):
        with open(args.scenario) as f:
            scenario = json.load(f)
        parts = urlsplit(self.path)
        scenario = {**scenario, **scenario.get("paths", {}).get(parts.path, {})}
        entry = {"path": parts.path, "query": parts.query, "headers": dict(self.headers), "start": time.time()}
        if posted is not None:
            entry["method"] = "POST"
            entry["body"] = posted
            try:
                token = json.loads(posted).get("page_token", "")
            except ValueError:
                token = ""
            if "pages" in scenario:
                scenario = {**scenario, "body": scenario["pages"].get(token, '{"vulns": []}')}
        if args.client_ca:
            subject = dict(pair[0] for pair in self.connection.getpeercert().get("subject", ()))
            entry["peer"] = subject.get("commonName")
        with log_lock, open(args.log, "a") as f:
            f.write(json.dumps(entry) + "\n")
        mode = scenario.get("mode", "normal")
        if mode == "hang":
            time.sleep(3600)
            return
        if mode in ("drop", "rst"):
            if mode == "rst":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
            return
        if mode == "redirect-loop":
            self.redirect("/b" if parts.path != "/b" else "/a", scenario.get("close"))
            return
        if mode == "redirect-chain":
            step = int(parts.path.lstrip("/r")) if parts.path.lstrip("/r").isdigit() else 0
            self.redirect("/r%d" % (step + 1), scenario.get("close"))
            return
        if mode == "slow-headers":
            try:
                for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 1000:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(scenario.get("delay", 2))
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
            return
        if mode == "huge-headers":
            try:
                self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                line = b"X-Filler: " + b"a" * 8000 + b"\r\n"
                for _ in range(scenario.get("size", 100 << 20) // len(line)):
                    self.wfile.write(line)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
            return
        if mode == "redirect":
            self.send_response(302)
            self.send_header("Location", scenario["location"])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if mode == "https-to-http":
            self.send_response(302)
            self.send_header("Location", "http://127.0.0.1:9/plain")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if mode == "reset":
            self.send_response(200)
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.wfile.write(b'{"SSVCLatestVersionKey": "9.')
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            return
        if mode == "big":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Connection", "close")
            self.end_headers()
            chunk = b" " * 65536
            try:
                for _ in range(scenario.get("size", 50 << 20) // len(chunk)):
                    self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
            return
        time.sleep(scenario.get("delay", 0))
        etag = scenario.get("etag")
        if etag and self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        modified = scenario.get("last-modified")
        if modified and self.headers.get("If-Modified-Since") == modified:
            self.send_response(304)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if "file" in scenario:
            self.send_response(scenario.get("status", 200))
            self.send_header("Content-Length", str(os.path.getsize(scenario["file"])))
            if etag:
                self.send_header("ETag", etag)
            if modified:
                self.send_header("Last-Modified", modified)
            self.end_headers()
            try:
                with open(scenario["file"], "rb") as served:
                    while chunk := served.read(1 << 16):
                        self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
            return
        body = scenario.get("body", "{}").encode()
        self.send_response(scenario.get("status", 200))
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if etag:
            self.send_header("ETag", etag)
        for name, value in scenario.get("headers", {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


class Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6 if ":" in args.host else socket.AF_INET


server = Server((args.host, 0), Handler)
server.daemon_threads = True
if args.cert:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    if args.client_ca:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(args.client_ca)
    # The handshake happens in each handler thread, not in accept(): one
    # client that never speaks must not block the others.
    server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
with open(args.port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os
os.rename(args.port_file + ".tmp", args.port_file)
server.serve_forever()
