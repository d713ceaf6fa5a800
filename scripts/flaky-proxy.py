#!/usr/bin/env python3
"""A TCP proxy for tests that loses traffic on purpose, on 127.0.0.1 only.

Usage: flaky-proxy.py TARGET_PORT PORT_FILE DROP_RATE SEED
Each connection is, at random: passed through; cut before the request reaches the server; or cut after the
server answered, so the client never sees a response the server applied. Stops after 10 minutes at most.
Every loss is counted in PORT_FILE.drops ("before" or "after", one line each), so a test can show traffic was lost.
While a file PORT_FILE.silent exists, the proxy is a server that never answers: each new connection is accepted, read
and held open with nothing sent back.
"""
import os, random, socket, sys, threading, time

target_port, port_file, drop_rate, seed = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
lock = threading.Lock()

def record(kind):
    with lock:
        with open(port_file + ".drops", "a") as handle:
            handle.write(kind + "\n")

def pipe(client):
    if os.path.exists(port_file + ".silent"):
        client.settimeout(1)
        end = time.time() + 120
        while time.time() < end:
            try:
                if not client.recv(65536):
                    break
            except socket.timeout:
                continue
            except OSError:
                break
        client.close()
        return
    with lock:
        roll = rng.random()
    try:
        if roll < drop_rate / 2:
            client.close()  # cut before the server sees anything
            record("before")
            return
        upstream = socket.create_connection(("127.0.0.1", target_port), timeout=10)
        lose_response = roll < drop_rate
        client.settimeout(10)
        upstream.settimeout(10)
        def forward(source, sink):
            try:
                while True:
                    data = source.recv(65536)
                    if not data:
                        break
                    sink.sendall(data)
            except OSError:
                pass
            finally:
                try: sink.shutdown(socket.SHUT_WR)
                except OSError: pass
        up = threading.Thread(target=forward, args=(client, upstream), daemon=True)
        up.start()
        if lose_response:
            # Read the server's answer, then hang up on the client without passing it on.
            try:
                upstream.recv(65536)
            except OSError:
                pass
            client.close()
            upstream.close()
            record("after")
            return
        forward(upstream, client)
        client.close()
        upstream.close()
    except OSError:
        client.close()

server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", 0))
server.listen(64)
with open(port_file, "w") as handle:
    handle.write(str(server.getsockname()[1]))
deadline = time.time() + 600
server.settimeout(1)
while time.time() < deadline:
    try:
        connection, _ = server.accept()
    except socket.timeout:
        continue
    threading.Thread(target=pipe, args=(connection,), daemon=True).start()
