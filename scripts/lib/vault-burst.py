#!/usr/bin/env python3
"""The end of an exam with real vaults: N students' vaults (the real `vault` binary, each its own SQLCipher
database) answer and hand in offline, then all run `vault sync` in the same second against the given servers.

    vault-burst.py VAULT_BINARY WORK_DIR N URL[,URL...]

Prepares N vaults (init, login as load-I, download load-quiz, 10 answers, submit) a few at a time, then starts
every `vault sync --json` at once and reports JSON: receipts (submissions the syncs confirmed), syncs that failed,
how many said the server was busy, p50/p99 and the slowest sync (from the burst's start to the sync's end), and the
CPU time the vault processes used (on one machine they share its cores with the servers; in a classroom each device
brings its own)."""
import concurrent.futures
import datetime
import json
import os
import resource
import subprocess
import sys
import time

vault_bin, work, count, urls = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split(",")
PASSWORD = "pw-1\n"


def run(args, stdin=""):
    return subprocess.run([vault_bin] + args, input=stdin.encode(), capture_output=True, timeout=300)


def prepare(index):
    path = os.path.join(work, f"v{index}")
    steps = [
        (["init", "--vault", path, "--kdf-iterations", "1000", "--new-password-stdin"], PASSWORD),
        (["login", "--server", urls[index % len(urls)], "--user", f"load-{index}", "--vault", path,
          "--password-stdin", "--server-password-stdin"], PASSWORD + "load-password\n"),
        (["download", "load-quiz", "--vault", path, "--password-stdin"], PASSWORD),
    ]
    steps += [(["answer", "load-quiz", f"q{q}", "--vault", path, "--password-stdin"], PASSWORD + f"answer {q} of {index}\n")
              for q in range(1, 11)]
    steps.append((["submit", "load-quiz", "--vault", path, "--password-stdin"], PASSWORD))
    for args, stdin in steps:
        result = run(args, stdin)
        if result.returncode != 0:
            raise SystemExit(f"preparing vault {index}: {args[0]} failed: {result.stderr.decode()[:300]}")
    return path


with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
    paths = list(pool.map(prepare, range(count)))

before = resource.getrusage(resource.RUSAGE_CHILDREN)
start = time.monotonic()
start_wall = time.time()
processes = [(subprocess.Popen([vault_bin, "sync", "--json", "--vault", path, "--password-stdin"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE), path) for path in paths]
for process, _ in processes:
    process.stdin.write(PASSWORD.encode())
    process.stdin.close()
ends, receipts, failed, busy = [], 0, 0, 0
pending = list(processes)
while pending:
    for item in list(pending):
        process, _ = item
        if process.poll() is not None:
            ends.append(time.monotonic() - start)
            out, err = process.stdout.read(), process.stderr.read()
            if process.returncode != 0:
                failed += 1
            if b"busy" in out + err:
                busy += 1
            try:
                receipts += json.loads(out).get("submitted", 0)
            except ValueError:
                pass
            pending.remove(item)
    time.sleep(0.005)
ends.sort()
after = resource.getrusage(resource.RUSAGE_CHILDREN)
# When each receipt was issued: the server's own received_at in the signed statement (a sync goes on after its
# hand-in, with the catalog and results).
issued = []
for path in paths:
    listing = json.loads(run(["receipts", "--json", "--vault", path, "--password-stdin"], PASSWORD).stdout or b"{}")
    for receipt in listing.get("receipts", []):
        stamp = receipt["received_at"].replace("Z", "+00:00")
        issued.append(datetime.datetime.fromisoformat(stamp).timestamp() - start_wall)
issued.sort()
print(json.dumps({
    # What the N vault processes themselves cost this machine's cores (each device brings its own in a classroom).
    "vault_cpu_seconds": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
    "vaults": count, "receipts": receipts, "failed": failed, "said_busy": busy,
    "p50_ms": round(ends[len(ends) // 2] * 1000), "p99_ms": round(ends[min(len(ends) - 1, int(len(ends) * 0.99))] * 1000),
    "slowest_ms": round(ends[-1] * 1000),
    "receipt_p50_ms": round(issued[len(issued) // 2] * 1000) if issued else None,
    "last_receipt_ms": round(issued[-1] * 1000) if issued else None,
}))
