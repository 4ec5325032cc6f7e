#!/usr/bin/env python3
"""Measures the Python package against the binary (results/python.md).

    python scripts/python_bench.py time [GAME] [N] [RUNS] [THREADS]   values / summary vs `compute`
    python scripts/python_bench.py memory TABLE             opening and reading a large table

Needs the package installed (pip install .) and target/release/nimseq (cargo build --release).
"""

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(__file__).resolve().parents[1] / "target" / "release" / "nimseq"


def timed(f):
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


def bench_time(game="0.6", n="2^22", runs=3, threads=None):
    import nimseq

    count = int(eval(n.replace("^", "**")))  # the same count as the command line's text
    cmd = [str(BIN), "compute", game, "-n", n, "--json", "--quiet"]
    if threads is not None:
        cmd += ["--threads", threads]
        threads = int(threads)
    rows = {"binary `compute --json`": [], "nimseq.values": [], "nimseq.summary": []}
    for _ in range(int(runs)):  # alternated, so that a noisy neighbour hits all three alike
        rows["binary `compute --json`"].append(timed(lambda: subprocess.run(cmd, check=True, capture_output=True)))
        rows["nimseq.values"].append(timed(lambda: nimseq.values(game, count, threads=threads)))
        rows["nimseq.summary"].append(timed(lambda: nimseq.summary(game, count, threads=threads)))
    print(f"{game}, N = {n}, threads {threads or 'all'}, {runs} runs each (s: min / median / max)")
    for name, ts in rows.items():
        print(f"  {name:26} {min(ts):7.3f} {statistics.median(ts):7.3f} {max(ts):7.3f}")


MEMORY = r"""
import json, sys, time
import numpy as np
import nimseq

def status():
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            k = line.split(":")[0]
            if k in ("RssAnon", "RssFile", "VmRSS"):
                out[k] = int(line.split()[1]) // 1024  # MiB
    return out

np.arange(10, dtype=np.uint8).sum()
steps = [("imported", status(), 0.0)]
t0 = time.perf_counter(); t = nimseq.Table(sys.argv[1]); dt = time.perf_counter() - t0
steps.append((f"Table() ({len(t)} heaps, {t.file_size >> 20} MiB)", status(), dt))
t0 = time.perf_counter(); v = t.values; dt = time.perf_counter() - t0
steps.append(("t.values", status(), dt))
k = min(len(v), 1 << 28)
t0 = time.perf_counter(); s = int(v[:k].sum()); dt = time.perf_counter() - t0
steps.append((f"v[:2^28].sum()", status(), dt))
t0 = time.perf_counter(); s = int(v.sum()); dt = time.perf_counter() - t0
steps.append(("v.sum() (whole table)", status(), dt))
t0 = time.perf_counter(); t.verify(); dt = time.perf_counter() - t0
steps.append(("t.verify()", status(), dt))
for name, st, dt in steps:
    print(f"  {name:40} {dt * 1000:10.2f} ms  RssAnon {st['RssAnon']:6} MiB  RssFile {st['RssFile']:6} MiB")
"""


def bench_memory(table):
    subprocess.run([sys.executable, "-c", MEMORY, table], check=True)


if __name__ == "__main__":
    what, *args = sys.argv[1:] or ["time"]
    {"time": bench_time, "memory": bench_memory}[what](*args)
