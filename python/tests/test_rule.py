"""nimseq.Rule, the type stubs and the docstrings."""

import inspect
from pathlib import Path

import pytest

import nimseq


def test_rule(run):
    r = nimseq.Rule("kayles")
    assert r.code == "0.77" and r.name == "kayles"
    assert repr(r) == "Rule('0.77')" and str(r) == "0.77 (kayles)"
    assert r == nimseq.Rule(".77") and hash(r) == hash(nimseq.Rule("0.77"))
    assert r != nimseq.Rule("0.07")
    assert nimseq.Rule("0.71").name is None
    assert nimseq.Rule(r).code == "0.77"
    # The rules in words, as `compute` prints them.
    code, out, _ = run("compute", "kayles", "-n", "10")
    line = next(l for l in out.splitlines() if l.startswith("rules"))
    assert line.split(None, 1)[1] == r.rules


@pytest.mark.parametrize("game,code", [("grundy", "4!.0"), ("sub(1,2,3)", "0.333"), ("nim", "0.[3]")])
def test_canonical_codes(game, code):
    assert nimseq.Rule(game).code == code


def test_stubs_name_every_export():
    stub = (Path(nimseq.__file__).parent / "_nimseq.pyi").read_text()
    for name in nimseq.__all__:
        # Functions and classes, or module values such as `engine_tier: str`.
        assert any(f in stub for f in (f"def {name}(", f"class {name}", f"\n{name}: ")), name
    assert (Path(nimseq.__file__).parent / "py.typed").exists()


@pytest.mark.parametrize(
    "f,params",
    [
        (nimseq.values, ["game", "n", "engine", "threads"]),
        (nimseq.summary, ["game", "n", "engine", "threads"]),
        (nimseq.compute, ["game", "n", "table", "engine", "threads", "checkpoint"]),
        (nimseq.period, ["game", "max", "engine", "threads", "table", "checkpoint"]),
        (nimseq.play, ["game", "heaps", "engine", "threads", "max_moves", "table"]),
    ],
)
def test_signatures_and_docstrings(f, params):
    assert list(inspect.signature(f).parameters) == params
    assert len(f.__doc__) > 100


def test_class_docstrings():
    for cls in (nimseq.Rule, nimseq.Table):
        assert len(cls.__doc__) > 100
    assert nimseq.Table.values.__doc__ and nimseq.Table.verify.__doc__
