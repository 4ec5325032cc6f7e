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
    # A string with a blue ground edge is won by Left whoever starts (cut that edge), and a
    # sum of two long mixed strings is refused up front rather than computed for minutes.
    d = nimseq.hackenbush("B" + "GRB" * 1000)
    assert d["outcome"] == "L"
    with pytest.raises(ValueError, match="one at a time"):
        nimseq.hackenbush(["BGR" * 100, "GRB" * 100])
    # CGSuite writes {0,^*|0} (green, blue, blue) as ^[2]*.
    assert nimseq.hackenbush("GBB")["value"] == "^[2]*"
