"""nimseq.survey_misere: the rows of `nimseq survey PATTERN --misere --json`, computed in the
Python process (the binary runs each game in a child process); small heap limits so that no
clock decides a row."""

import pytest

import nimseq


def _rows(run, *args):
    code, out, err = run("survey", *args, "--misere", "--json", "--quiet")
    assert code == 0, err
    import json

    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize(
    "pattern,max_heap", [("0.0?", 10), ("0.1?", 8), ("0.7?", 6)]
)
def test_rows_equal_the_binary(run, pattern, max_heap):
    expected = _rows(run, pattern, "--max-heap", str(max_heap))
    got = nimseq.survey_misere(pattern, max_heap=max_heap, threads=2)
    assert got == expected
    assert [list(r) for r in got] == [list(r) for r in expected]
    assert [r["index"] for r in got] == list(range(8))
    # Rows cut by the heap limit are compared too, not only certified ones.
    assert "heap_limit" in {r["stopped_by"] for r in got}


def test_a_file_of_codes_and_published_quotients(tmp_path, run):
    codes = tmp_path / "codes.txt"
    codes.write_text("0.75\n0.121\n0.05\n")
    got = nimseq.survey_misere(str(codes), max_heap="100")
    assert got == _rows(run, str(codes), "--max-heap", "100")
    # R8 (Siegel 2007) and a Woolly Mammoth, tame of order 6 (Plambeck 2005).
    r8, mammoth = got[0], got[1]
    assert (r8["order"], r8["p_count"], r8["tame"], r8["certified"]) == (8, 2, False, True)
    assert (mammoth["order"], mammoth["tame"]) == (6, True)


def test_order_limit_is_the_binary_s(run):
    got = nimseq.survey_misere("0.07", max_heap=40, max_order=30)
    assert got == _rows(run, "0.07", "--max-heap", "40", "--max-order", "30")
    assert got[0]["stopped_by"] == "order_limit" and got[0]["order"] > 30


@pytest.mark.parametrize(
    "kwargs,error,needle",
    [
        ({"budget": 0.0}, ValueError, "budget 0"),
        ({"budget": float("nan")}, ValueError, "budget"),
        ({"max_heap": 2_000_000}, ValueError, "max_heap 2000000 is above"),
        ({"max_heap": -1}, ValueError, "-1"),
        ({"threads": 0}, ValueError, "thread"),
        ({"max_order": "x"}, ValueError, "x"),
    ],
)
def test_bad_arguments(kwargs, error, needle):
    with pytest.raises(error, match=needle):
        nimseq.survey_misere("0.0?", **kwargs)


def test_bad_patterns(tmp_path):
    with pytest.raises(ValueError):
        nimseq.survey_misere("0.x?")
    with pytest.raises(FileNotFoundError, match="wildcards"):
        nimseq.survey_misere(str(tmp_path / "missing.txt"))


def test_ctrl_c_raises_at_once():
    """Ctrl-C raises KeyboardInterrupt at once, even while a game is inside a long heap (the
    games still running stop in the background after it)."""
    import signal
    import subprocess
    import sys
    import textwrap
    import time

    script = textwrap.dedent(
        """
        import nimseq, signal, sys
        signal.signal(signal.SIGINT, signal.default_int_handler)
        print("start", flush=True)
        try:
            # 512 games on one thread: minutes (0.354 alone spends more than 30 s in heap 5).
            nimseq.survey_misere("0.???", max_heap=12, threads=1)
            print("finished", flush=True)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(0)
        """
    )
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "start"
    time.sleep(1.5)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        out, _ = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 0 and out.strip() == "interrupted"
    assert time.monotonic() - t0 < 5
