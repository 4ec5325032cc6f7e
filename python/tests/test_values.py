"""nimseq.values against published sequences and against the binary."""

import numpy as np
import pytest

import nimseq
from conftest import DATA


def published(path, wanted=None):
    """(A-number, game, offset, terms) rows of a tests/data table of OEIS sequences."""
    rows = []
    for line in path.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        a, game, offset, terms = line.split("\t")[:4]
        if wanted is None or a in wanted:
            rows.append((a, game, int(offset), [int(t) for t in terms.split(",")]))
    return rows


# tests/data/shared_oeis.tsv is the project's copy of shared/reference/oeis.tsv (OEIS data
# sections): A002186 Kayles 0.77, A002187 Dawson's chess 0.137, A002188 Grundy's game 4!.0,
# A046695 Officers 0.6.
NAMED = published(DATA / "shared_oeis.tsv", {"A002186", "A002187", "A002188", "A046695"})


def test_the_named_sequences_are_there():
    assert sorted(a for a, *_ in NAMED) == ["A002186", "A002187", "A002188", "A046695"]


@pytest.mark.parametrize("a,game,offset,terms", NAMED, ids=[r[0] for r in NAMED])
def test_published_sequences(a, game, offset, terms):
    v = nimseq.values(game, offset + len(terms))
    assert v[offset:].tolist() == terms, f"{game} differs from OEIS {a}"


# OEIS comments that the game tree refutes (tests/exact_engine.rs, DISPUTED: an explicit search
# over positions gives nimseq's value at heap 27, not the comment's).
DISPUTED = {("A125941", "4.367"), ("A125941", "4.377")}


def test_every_sequence_of_oeis_octal_tsv():
    # tests/data/oeis_octal.tsv: the OEIS data sections of 458 octal games (source per row).
    rows = published(DATA / "oeis_octal.tsv")
    assert len(rows) > 400
    for a, game, offset, terms in rows:
        if (a, game) in DISPUTED:
            continue
        v = nimseq.values(game, offset + len(terms))
        assert v[offset:].tolist() == terms, f"{game} differs from OEIS {a}"


def test_kayles_first_values():
    v = nimseq.values("kayles", 12)
    assert v.dtype == np.uint8
    assert v.tolist() == [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]


@pytest.mark.parametrize(
    "game,n,dtype",
    [("kayles", 1000, np.uint8), ("nim", 256, np.uint8), ("nim", 257, np.uint16)],
)
def test_narrowest_dtype(game, n, dtype):
    v = nimseq.values(game, n)
    assert v.dtype == dtype and v.shape == (n,) and v.flags.c_contiguous


@pytest.mark.parametrize("game", ["0.6", "grundy", "0.137", "0.[3]", "0.3F", "sub(1,3,4)"])
def test_same_as_the_binary(game, run):
    n = 3000
    code, out, err = run("values", game, "-n", n, "--no-header", "--quiet")
    assert code == 0, err
    expected = [int(line.split()[1]) for line in out.splitlines()]
    assert nimseq.values(game, n).tolist() == expected


def test_engines_threads_and_count_forms():
    exact = nimseq.values("0.6", 4000, engine="exact")
    assert np.array_equal(nimseq.values("0.6", 4000, engine="sparse", threads=2), exact)
    assert np.array_equal(nimseq.values("officers", "4e3", threads=1), exact)
    assert len(nimseq.values("kayles", "2^10")) == 1024
    assert len(nimseq.values(nimseq.Rule("kayles"), 10.0)) == 10


def test_values_after_a_proved_period_come_from_it():
    # Dawson's Kayles: period 34 proved within a few hundred heaps; the rest is filled from it.
    n = 200_000
    v = nimseq.values("0.07", n)
    assert len(v) == n
    tail = v[1000:]
    assert np.array_equal(tail[34:], tail[:-34])
    assert np.array_equal(v[:3000], nimseq.values("0.07", 3000, engine="exact"))


def test_the_gil_is_released_while_the_engine_runs():
    import threading
    import time

    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    t = threading.Thread(target=tick)
    t.start()
    try:
        # A run long enough to tell (0.2 s at least): the size grows until one is, so that a
        # fast processor does not make the test fail (2^18 heaps of Officers took 0.199 s on an
        # Intel Xeon of the Sapphire Rapids class).
        for n in (2**18, 2**20, 2**22):
            t0 = time.monotonic()
            nimseq.values("0.6", n, threads=1)
            t1 = time.monotonic()
            if t1 - t0 > 0.2:
                break
    finally:
        done.set()
        t.join()
    during = [x for x in ticks if t0 < x < t1]
    # The other thread ran all along (about every 10 ms), not only before and after.
    assert t1 - t0 > 0.2, f"2^22 heaps of Officers took only {t1 - t0:.3f} s"
    assert len(during) >= 0.3 * (t1 - t0) / 0.01, (t1 - t0, len(during))


def _stderr_of(script, terminal):
    """Runs `script` in a new Python with stderr on a pseudo-terminal (or a pipe); its stderr."""
    import os
    import pty
    import subprocess
    import sys

    if not terminal:
        p = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=300)
        assert p.returncode == 0, p.stderr
        return p.stderr.decode()
    main, side = pty.openpty()
    p = subprocess.Popen([sys.executable, "-c", script], stderr=side, stdout=subprocess.DEVNULL)
    os.close(side)
    chunks = []
    while True:
        try:
            data = os.read(main, 4096)
        except OSError:  # the other side closed
            break
        if not data:
            break
        chunks.append(data)
    assert p.wait(timeout=300) == 0
    os.close(main)
    return b"".join(chunks).decode(errors="replace")


def test_long_runs_show_progress_on_a_terminal_only():
    # Officers to 2^21 on one thread: a few seconds, past the first second's silence.
    script = "import nimseq; nimseq.summary('0.6', 2**21, threads=1)"
    shown = _stderr_of(script, terminal=True)
    assert "nimseq: " in shown and " heaps (" in shown and "ETA" in shown, shown
    assert _stderr_of(script, terminal=False) == ""
