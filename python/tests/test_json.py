"""summary, period and play give exactly the dicts of the binary's --json output."""

import json

import numpy as np
import pytest

import nimseq

SUMMARY_CASES = [
    ("kayles", "1e4"),  # period proved early: statistics extended from it
    ("0.6", "1e5"),  # Officers: no period known
    ("grundy", "2^12"),  # not covered by the theorem: observed pattern or none
    ("0.[3]", "1000"),  # Nim: arithmetic periodicity observed
    ("dawsons-kayles", "50000"),
    ("0.3F", "500"),
    ("sub(1,2,3)", "7"),
    ("0.07", "1"),
]


@pytest.mark.parametrize("game,n", SUMMARY_CASES)
def test_summary_is_compute_json(game, n, run_json):
    expected = run_json("compute", game, "-n", n, "--json", "--quiet")
    got = nimseq.summary(game, n)
    assert got == expected
    assert list(got) == list(expected)  # the same keys in the same order


def test_summary_keys():
    s = nimseq.summary("kayles", 100)
    assert list(s) == [
        "game",
        "count",
        "max_value",
        "max_value_first_at",
        "frequencies",
        "rare_mask",
        "rare_count",
        "last_rare_at",
        "period",
    ]
    assert s["game"] == "0.77" and s["count"] == 100


@pytest.mark.parametrize(
    "game,max", [("kayles", None), ("0.137", None), ("grundy", "2^12"), ("0.6", 5000),
                 ("0.[3]", 300), ("0.3F", 200), ("0.004", "1e4")]
)
def test_period_is_period_json(game, max, run_json):
    args = ["period", game, "--json"] + ([] if max is None else ["--max", max])
    expected = run_json(*args)
    got = nimseq.period(game) if max is None else nimseq.period(game, max)
    assert got == expected and list(got) == list(expected)


def test_kayles_period_proved():
    # Kayles: period 12 from heap 71 (Guy & Smith 1956; OEIS A002186).
    p = nimseq.period("kayles")["period"]
    assert (p["proved"], p["preperiod"], p["period"]) == (True, 71, 12)


def test_period_is_nested_as_in_summary():
    # docs/JSON.md: one shape of a period, wherever it appears.
    p = nimseq.period("kayles", 2000)
    s = nimseq.summary("kayles", p["count"])
    assert list(p) == ["game", "count", "theorem_t", "period"]
    assert p["period"] == s["period"]


def test_period_threads_and_table(tmp_path, run_json):
    one = nimseq.period("0.16", threads=1)
    assert one == nimseq.period("0.16", threads=2)
    path = tmp_path / "t.nimseq"
    got = nimseq.period("0.16", table=path, checkpoint=1)
    assert one == run_json("period", "0.16", "--json", "--quiet")
    # 0.16: period 149459 from heap 105351 (Gangolli & Plambeck 1989; OEIS A071430); a table
    # run stops at the end of the chunk that proved it, so its count may differ.
    key = lambda r: (r["period"]["proved"], r["period"]["preperiod"], r["period"]["period"])
    assert key(got) == key(one) == (True, 105351, 149459)
    # Recorded in the table, read back by the next call and by the binary.
    assert nimseq.Table(path).period["proved"]
    assert nimseq.period("0.16", table=path) == got
    assert run_json("period", "0.16", "--table", path, "--json", "--quiet") == got


def test_play_from_a_table(tmp_path, run_json):
    path = tmp_path / "k.nimseq"
    nimseq.compute("kayles", 1000, table=path)
    got = nimseq.play("kayles", [300, 700, 999], table=path)
    assert got == nimseq.play("kayles", [300, 700, 999])
    assert got == run_json("play", "kayles", 300, 700, 999, "--table", path, "--json")


@pytest.mark.parametrize(
    "game,heaps,extra",
    [
        ("kayles", [3, 5, 7], []),
        ("kayles", [1, 2, 3], []),  # P-position: no winning move
        ("0.6", [10, 20, 33, 40], []),
        ("grundy", [100, 200], []),
        ("kayles", [10**12, 10**12 + 12], []),  # far beyond memory: from the period (P)
        ("0.137", [50, 60, 70, 1000], ["--max-moves", 2]),
    ],
)
def test_play_is_play_json(game, heaps, extra, run_json):
    expected = run_json("play", game, *heaps, "--json", *extra)
    max_moves = extra[1] if extra else None
    got = nimseq.play(game, heaps, max_moves=max_moves)
    assert got == expected and list(got) == list(expected)


def test_play_kayles():
    p = nimseq.play("kayles", [3, 5, 7])
    assert p["outcome"] == "N" and p["nim_sum"] == 5
    assert p["winning_moves"] == [{"heap_index": 1, "from": 5, "to": [4]}]


def test_period_of_0_354_is_the_binarys_long_proof(run_json):
    # 0.354: period 1180 from heap 10,061,916 (Flammenkamp's tables of octal games; OEIS
    # A071496). The proof needs 20,126,195 values, past the first 2^24: both faces go on to
    # them by themselves (issue 29). About 13 s with the package's release build.
    got = nimseq.period("0.354")
    assert got == run_json("period", "0.354", "--json", "--quiet")
    p = got["period"]
    assert (p["proved"], p["preperiod"], p["period"]) == (True, 10_061_916, 1180)
    assert got["count"] == p["theorem_bound"] == 20_126_195


@pytest.mark.parametrize(
    "game,max_heap", [("0.75", None), ("kayles", None), ("0.07", "20"), ("0.121", None)]
)
def test_quotient_is_quotient_json(game, max_heap, run_json):
    # The same dict but for the table, a NumPy array of the JSON's rows (issue 30: a list of
    # lists took 30 times the memory at order 10^4).
    extra = [] if max_heap is None else ["--max-heap", max_heap]
    expected = run_json("quotient", game, *extra, "--json", "--quiet")
    got = nimseq.quotient(game, max_heap)
    table = got["table"]
    assert isinstance(table, np.ndarray)
    assert table.dtype == np.uint32 and table.shape == (got["order"], got["order"])
    assert table.flags["C_CONTIGUOUS"]
    assert {**got, "table": table.tolist()} == expected
    assert list(got) == list(expected)


def test_quotient_on_any_number_of_threads_is_the_same(run_json):
    # 0.07 to heap 28 recalibrates at several heaps; the verification's threads change nothing.
    expected = run_json("quotient", "0.07", "--max-heap", "28", "--json", "--quiet", "--threads", "3")
    for threads in [1, 2, "3"]:
        got = nimseq.quotient("0.07", 28, threads=threads)
        assert {**got, "table": got["table"].tolist()} == expected


def test_quotient_candidate_limits_are_the_options(run):
    code, out, _ = run("quotient", "0.07", "--max-heap", "12", "--recalibrations", "0",
                       "--json", "--quiet")
    assert code == 1
    expected = json.loads(out)
    got = nimseq.quotient("0.07", 12, recalibrations=0)
    assert {**got, "table": got["table"].tolist()} == expected
    assert got["last_heap"] == 9 and "within 0 recalibrations" in got["stopped"]
    for kw, value in [("candidate_size", 0), ("candidate_order", "2^40"), ("recalibrations", 2**30)]:
        with pytest.raises(ValueError, match=f"^{kw} must be from "):
            nimseq.quotient("0.07", 12, **{kw: value})


def test_quotient_without_its_table_is_no_table_json(run_json):
    # table=False is `--json --no-table`: the same dict with table None (the default keeps it,
    # as issue 30 asks).
    expected = run_json("quotient", "kayles", "--json", "--no-table", "--quiet")
    got = nimseq.quotient("kayles", table=False)
    assert got == expected and got["table"] is None
    full = nimseq.quotient("kayles")
    assert full["table"].shape == (40, 40) and full["order"] == 40
    assert {**full, "table": None} == got


def test_quotient_r8():
    q = nimseq.quotient("0.75")
    assert q["certified"] and (q["order"], q["p_count"]) == (8, 2)
    for key in ["game", "order", "p_count", "certified", "certified_at", "stable_from",
                "preperiod", "period", "heaps", "identity", "p", "table", "presentation",
                "changes"]:
        assert key in q
    assert q["table"].shape == (8, 8)
    assert q["stopped"] is None
    # R8 is wild (Siegel 2007); a Woolly Mammoth (Plambeck 2005) has the tame T_2.
    assert (q["tame"], q["tame_index"]) == (False, None)
    m = nimseq.quotient("0.121")
    assert (m["order"], m["tame"], m["tame_index"]) == (6, True, 2)


def test_quotient_memory_limit_stops_with_the_partial_quotient():
    # 0.07 needs a candidate of 712 elements at heap 30: more than 70 MiB leaves.
    q = nimseq.quotient("0.07", 40, max_memory=70 * 2**20)
    assert q["certified"] is False
    assert "memory limit" in q["stopped"]
    assert 20 <= q["last_heap"] < 34
    with pytest.raises(ValueError):
        nimseq.quotient("0.07", 10, max_memory=0)
