"""nimseq.hackenbush gives exactly the dict of `nimseq hackenbush ... --json`."""

import pytest

import nimseq


@pytest.mark.parametrize(
    "components",
    [["BRBRR"], ["GGGGGGG", "GB", "BG"], ["G(B,RR)", "GBB", "BBBRRBBR"]],
)
def test_hackenbush_is_cli_json(components, run_json):
    expected = run_json("hackenbush", *components, "--json")
    got = nimseq.hackenbush(components)
    assert got == expected
    assert list(got) == list(expected)


def test_hackenbush_values():
    # CGSuite's documentation: BRBRR is 9/16; McKay-Milley-Nowakowski: GB is ^*.
    assert nimseq.hackenbush("BRBRR")["value"] == "9/16"
    d = nimseq.hackenbush(["GB"])
    assert d["value"] == "^*"
    assert d["outcome"] == "N"
    assert d["form"]["right"][0]["value"] == "0"


def test_hackenbush_errors():
    with pytest.raises(ValueError, match="position 2"):
        nimseq.hackenbush("BX")
    with pytest.raises(TypeError):
        nimseq.hackenbush(3)


def test_hackenbush_long_mixed_strings():
    # A string with a blue ground edge is won by Left whoever starts (cut that edge).
    d = nimseq.hackenbush("B" + "GRB" * 1000)
    assert d["outcome"] == "L"
    # CGSuite writes {0,^*|0} (green, blue, blue) as ^[2]*.
    assert nimseq.hackenbush("GBB")["value"] == "^[2]*"


def test_hackenbush_graph_is_cli_json(tmp_path, run_json):
    # A blue edge, a red edge and a green edge closing a triangle on the ground, and a green
    # loop on its top vertex; beside a string.
    text = "# a triangle\ng a B\na b R\nb g G\na a green\n"
    path = tmp_path / "graph"
    path.write_text(text)
    expected = run_json("hackenbush", "GB", "--graph", str(path), "--json")
    got = nimseq.hackenbush(["GB"], graph=text)
    expected["components"][1]["component"] = "graph"
    assert got == expected
    # Fusion (Winning Ways ch. 7): a green triangle on the ground is a single edge.
    assert nimseq.hackenbush(graph="g a G\na b G\nb g G")["value"] == "*"


def test_hackenbush_large_graphs_list_moves(tmp_path, run_json):
    # A green circuit of 20,001 edges on a stalk of two edges: *3 (the odd circuit fuses to
    # one twig), and the winning moves are listed (over 5,000 edges they once were not).
    lines = ["g s1 G", "s1 s2 G", "s2 c1 G"]
    lines += [f"c{i} c{i + 1} G" for i in range(1, 20_000)] + ["c20000 s2 G"]
    text = "\n".join(lines) + "\n"
    path = tmp_path / "circuit"
    path.write_text(text)
    expected = run_json("hackenbush", "--graph", str(path), "--json")
    got = nimseq.hackenbush(graph=text)
    expected["components"][0]["component"] = "graph"
    assert got == expected
    assert got["value"] == "*3"
    left = got["winning_moves"]["left"]
    assert left["count"] >= 1 and left["partly_searched"] == []
    # A mixed block beyond the search's limit is refused, naming its size.
    ring = "".join(f"v{i} v{i + 1} {'BR'[i % 2]}\n" for i in range(1, 60)) + "g v1 G\ng v60 G\n"
    with pytest.raises(ValueError, match="a block of 61 edges"):
        nimseq.hackenbush(graph=ring)


def test_hackenbush_graph_errors():
    with pytest.raises(ValueError, match="line 2: unknown colour"):
        nimseq.hackenbush(graph="g a G\na b Q")
    with pytest.raises(ValueError, match="give components"):
        nimseq.hackenbush()


def test_hackenbush_unbuilt_sum_is_cli_json(run_json):
    # Two long mixed strings: the sum's canonical form is too costly to build, so it is null
    # with the reason, and the outcome and winning moves come from the sum search. Both
    # strings stand on a blue ground edge, so the sum is positive.
    components = ["B" + "GRB" * 100, "B" + "RGB" * 100]
    expected = run_json("hackenbush", *components, "--json")
    got = nimseq.hackenbush(components)
    assert got == expected
    assert got["value"] is None and got["form"] is None
    assert "components 1 and 2" in got["not_built"]
    assert got["outcome"] == "L"
    assert nimseq.hackenbush("BRBRR")["not_built"] is None
