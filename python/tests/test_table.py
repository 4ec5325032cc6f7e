"""nimseq.Table: tables written by the binary and by compute(), opened without copying."""

import gc
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import nimseq
from conftest import FIXTURES

DTYPES = {1: np.uint8, 2: np.uint16, 4: np.uint32}


def mapped_file(addr):
    """The file /proc/self/maps says holds the address, or None for anonymous memory."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split(maxsplit=5)
            lo, hi = (int(x, 16) for x in fields[0].split("-"))
            if lo <= addr < hi:
                return fields[5].strip() if len(fields) == 6 else None
    return None


def test_a_table_written_by_the_binary(tmp_path, run_json):
    path = tmp_path / "officers.nimseq"
    n = 300_000
    expected = run_json("compute", "0.6", "-n", n, "--table", path, "--json", "--quiet")
    t = nimseq.Table(path)
    assert t.game == "0.6" and len(t) == n and t.path == path
    v = t.values
    assert v.dtype == DTYPES[t.width] and v.shape == (n,)
    assert np.array_equal(v, nimseq.values("0.6", n))
    # A view of the file: not owned, read-only, based on the Table, in the file's mapping.
    assert v.flags.owndata is False and v.flags.writeable is False
    assert v.base is t
    assert mapped_file(v.__array_interface__["data"][0]) == str(path)
    with pytest.raises(ValueError):
        v[0] = 1
    with pytest.raises(ValueError):
        v.setflags(write=True)
    assert t.summary() == expected == run_json("info", path, "--json")
    assert t.period == expected["period"]
    t.verify()
    t.verify(0, 1000)
    assert "0.6" in repr(t)
    # The array keeps the mapping alive after the Table's name is gone.
    total = int(v.sum())
    del t
    gc.collect()
    assert int(v.sum()) == total and mapped_file(v.__array_interface__["data"][0]) == str(path)


def test_the_checked_in_fixture():
    t = nimseq.Table(FIXTURES / "kayles-1000.nimseq")
    assert t.game == "0.77" and len(t) == 1000
    assert np.array_equal(t.values, nimseq.values("kayles", 1000))
    assert t.period["proved"] and (t.period["preperiod"], t.period["period"]) == (71, 12)
    # A range, only its checksums verified: the same values, still mapped from the file.
    part = nimseq.Table(FIXTURES / "kayles-1000.nimseq").read(100, 250)
    assert np.array_equal(part, nimseq.values("kayles", 250)[100:])
    assert part.flags.writeable is False


def test_compute_writes_what_the_binary_writes(tmp_path, run_json):
    mine, theirs = tmp_path / "py.nimseq", tmp_path / "cli.nimseq"
    n = 200_000
    got = nimseq.compute("0.6", n, table=mine)
    expected = run_json("compute", "0.6", "-n", n, "--table", theirs, "--json", "--quiet")
    assert got == expected and list(got) == list(expected)
    assert mine.read_bytes() == theirs.read_bytes()


def test_compute_extends_and_resumes(tmp_path, run_json):
    path = tmp_path / "t.nimseq"
    small = nimseq.compute("grundy", 1000, table=path)
    assert small == run_json("compute", "grundy", "-n", 1000, "--json", "--quiet")
    big = nimseq.compute("grundy", "2^14", table=path)
    assert big == run_json("compute", "grundy", "-n", "2^14", "--json", "--quiet")
    # A smaller N summarizes the prefix and leaves the table as it is.
    assert nimseq.compute("grundy", 1000, table=path) == small
    assert len(nimseq.Table(path)) == 2**14


def test_ctrl_c_stops_compute_and_the_table_resumes(tmp_path):
    path = tmp_path / "stopped.nimseq"
    script = textwrap.dedent(
        f"""
        import nimseq, signal, sys
        # As in a terminal or a notebook, even when started from a shell that ignores SIGINT
        # in background jobs (Python then installs no handler of its own).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        print("start", flush=True)
        try:
            nimseq.compute("0.6", 2**26, table={str(path)!r}, checkpoint=0.2, threads=1)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(0)
        """
    )
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "start"
    time.sleep(2.5)
    p.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    try:
        out, _ = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 0 and out.strip() == "interrupted"
    assert time.monotonic() - t0 < 10
    t = nimseq.Table(path)
    n = len(t)
    assert 0 < n < 2**26
    t.verify()
    assert np.array_equal(t.values, nimseq.values("0.6", n))


MEMORY_SCRIPT = """
import json, sys, tracemalloc
import numpy as np
import nimseq

# NumPy loaded and its reduction code run once, so that only the table is measured.
np.arange(10, dtype=np.uint8).sum()
nimseq.Table(sys.argv[1] + ".small").values.sum()

def rss_anon():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) * 1024

before = rss_anon()
t = nimseq.Table(sys.argv[1])
opened = rss_anon()
tracemalloc.start()
v = t.values
total = int(v.sum())
_, peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
summed = rss_anon()
print(json.dumps({"before": before, "opened": opened, "summed": summed, "peak": peak,
                  "total": total, "nbytes": v.nbytes, "owndata": bool(v.flags.owndata)}))
"""


def test_values_are_not_copied_memory_measured(tmp_path, run):
    # 2^26 heaps of sub(1,2,3) (G(n) = n mod 4): a 64 MiB table, read whole by sum().
    path = tmp_path / "sub123.nimseq"
    n = 2**26
    for file, heaps in ((path, n), (f"{path}.small", 100)):
        code, _, err = run("compute", "sub(1,2,3)", "-n", heaps, "--table", file, "--quiet")
        assert code == 0, err
    out = subprocess.run(
        [sys.executable, "-c", MEMORY_SCRIPT, str(path)], capture_output=True, text=True, check=True
    ).stdout
    m = json.loads(out)
    assert m["nbytes"] == n and m["owndata"] is False
    assert m["total"] == (n // 4) * (0 + 1 + 2 + 3)
    # A copy would add 64 MiB of anonymous memory; the mapping adds only file-backed pages.
    assert m["summed"] - m["before"] < 8 * 2**20, m
    assert m["peak"] < 2**20, m


def test_a_table_being_read_is_not_written(tmp_path):
    path = tmp_path / "k.nimseq"
    nimseq.compute("kayles", 1000, table=path)
    t = nimseq.Table(path)
    v = t.values  # takes the shared lock
    with pytest.raises(OSError, match="delete that Table and its arrays first"):
        nimseq.compute("kayles", 2000, table=path)
    del t, v
    gc.collect()
    assert nimseq.compute("kayles", 2000, table=path)["count"] == 2000


def test_uint32_values_in_memory_and_in_a_table(tmp_path):
    # Nim: G(n) = n, so 65,600 heaps need 32-bit cells (the table widens in place on the way).
    n = 65_600
    v = nimseq.values("nim", n)
    assert v.dtype == np.uint32 and np.array_equal(v, np.arange(n))
    path = tmp_path / "nim.nimseq"
    s = nimseq.compute("nim", n, table=path)
    assert s["max_value"] == n - 1
    t = nimseq.Table(path)
    assert t.width == 4 and t.values.dtype == np.uint32
    assert np.array_equal(t.values, np.arange(n)) and t.values.base is t
