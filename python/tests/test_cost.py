"""The O(N^3) cost estimate: Python warns before a long run in the words the binary prints."""

import subprocess
import warnings

import pytest

import nimseq


def test_estimate_only_for_long_cubic_runs():
    # 2^16 heaps of the hexadecimal 0.3F: hours (issue 29, defect 5).
    e = nimseq.cost_estimate("0.3F", "2^16")
    assert e["game"] == "0.3F" and e["count"] == 65536 and e["seconds"] > 3600
    assert e["seconds"] == pytest.approx(e["options"] / 5e8)
    assert nimseq.cost_estimate("0.3F", 1000) is None
    assert nimseq.cost_estimate("0.6", 2**30) is None


def test_python_warns_as_the_binary_says(nimseq_bin, tmp_path):
    # The binary says the cost on stderr before it starts; read that line, then stop it.
    p = subprocess.Popen(
        [str(nimseq_bin), "compute", "0.3F", "-n", "2^16"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = p.stderr.readline().rstrip("\n")
    finally:
        p.kill()
        p.wait()
    assert line.startswith("nimseq: 0.3F: heap n costs") and line.endswith("; progress follows")
    said = line.removesuffix("; progress follows")
    calls = [
        lambda: nimseq.values("0.3F", 2**16),
        lambda: nimseq.summary("0.3F", 2**16),
        lambda: nimseq.compute("0.3F", 2**16, table=tmp_path / "t"),
        lambda: nimseq.play("0.3F", [2**16 - 1]),
    ]
    for call in calls:
        # Warnings made errors refuse the run before anything is computed or written.
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(UserWarning) as w:
                call()
        assert str(w.value) == said
    assert not (tmp_path / "t").exists()
