#!/usr/bin/env python3
"""A man-in-the-middle HTTP proxy for tests, on 127.0.0.1 only: it "eats" answers.

Usage: eating-proxy.py TARGET_PORT PORT_FILE QUESTION_IDS TIMES
For the first TIMES batches that carry an answer to one of QUESTION_IDS (comma-separated), it removes those
answers before forwarding and tells the vault they were `accepted`; for the first TIMES submissions it removes
their ids from `response_ids` and `answers`. Everything else passes through unchanged. Each answer eaten is written
to PORT_FILE.eaten (its question id, one a line), so a test can show the attack happened. TIMES -1: always.
Stops after 10 minutes at most.
"""
import gzip, http.client, io, json, os, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

target_port, port_file = int(sys.argv[1]), sys.argv[2]
questions, budget = set(sys.argv[3].split(",")), {"batch": int(sys.argv[4]), "submission": int(sys.argv[4])}
lock = threading.Lock()
eaten_ids = set()


def spend(kind):
    with lock:
        if budget[kind] == 0:
            return False
        budget[kind] -= 1
        return True


class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def forward(self):
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.headers.get("content-encoding") == "gzip" and body:
            body = gzip.decompress(body)
        eaten = []
        if self.command == "POST" and self.path.endswith("/responses/batch"):
            request = json.loads(body)
            mine = [item for item in request["responses"] if item["question_id"] in questions]
            if mine and spend("batch"):
                eaten = mine
                request["responses"] = [item for item in request["responses"] if item not in mine]
                with lock:
                    eaten_ids.update(item["id"] for item in mine)
                    with open(port_file + ".eaten", "a") as handle:
                        handle.writelines(item["question_id"] + "\n" for item in mine)
                body = json.dumps(request).encode()
        elif self.command == "POST" and self.path.endswith("/submissions"):
            request = json.loads(body)
            with lock:
                ids = set(eaten_ids)
            if ids and spend("submission"):
                request["response_ids"] = [i for i in request["response_ids"] if i not in ids]
                request["answers"] = [a for a in request.get("answers") or [] if a["response_id"] not in ids]
                body = json.dumps(request).encode()
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("content-length", "content-encoding", "accept-encoding", "host")}
        headers["content-length"] = str(len(body))
        if eaten and not json.loads(body)["responses"]:
            status, reply = 200, {"results": []}
        else:
            upstream = http.client.HTTPConnection("127.0.0.1", target_port, timeout=30)
            upstream.request(self.command, self.path, body=body if body else None, headers=headers)
            answer = upstream.getresponse()
            status, raw = answer.status, answer.read()
            reply_headers = [(k, v) for k, v in answer.getheaders() if k.lower() not in ("content-length", "transfer-encoding", "connection")]
            upstream.close()
            if not eaten:
                self.send_response(status)
                for k, v in reply_headers:
                    self.send_header(k, v)
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)
                return
            reply = json.loads(raw)
        # The lie: every eaten answer "accepted", in the order the vault sent them.
        results = {r["id"]: r for r in reply["results"]}
        for item in eaten:
            results[item["id"]] = {"id": item["id"], "status": "accepted", "current_version": item["assessment_version"]}
        original = json.loads(gzip.decompress(self.raw_body) if self.headers.get("content-encoding") == "gzip" else self.raw_body)
        reply = {"results": [results[item["id"]] for item in original["responses"]]}
        data = json.dumps(reply).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.raw_body = b""
        self.forward()

    def do_DELETE(self):
        self.raw_body = b""
        self.forward()

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        self.raw_body = self.rfile.read(length) if length else b""
        # forward() reads the body from rfile: give it the bytes again (the raw copy orders the lie's results).
        self.rfile = io.BufferedReader(io.BytesIO(self.raw_body))
        self.forward()

    do_PUT = do_POST


server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
with open(port_file + ".tmp", "w") as handle:
    handle.write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
threading.Timer(600, server.shutdown).start()
server.serve_forever()
