"""Shared helpers: the repository's paths and the `nimseq` binary the package is compared with.

The binary is $NIMSEQ_BIN, else the newer of target/release/nimseq and target/debug/nimseq
(`cargo test` builds the latter; .ci/run runs these tests after it).
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
FIXTURES = ROOT / "tests" / "fixtures"


def _binary():
    env = os.environ.get("NIMSEQ_BIN")
    if env:
        return Path(env)
    found = [ROOT / "target" / p / "nimseq" for p in ("release", "debug")]
    found = [p for p in found if p.exists()]
    if not found:
        raise RuntimeError(
            "no nimseq binary: run `cargo build` (or set NIMSEQ_BIN) before these tests"
        )
    return max(found, key=lambda p: p.stat().st_mtime)


@pytest.fixture(scope="session")
def nimseq_bin():
    return _binary()


@pytest.fixture(scope="session")
def run(nimseq_bin):
    """Runs the binary with arguments; returns (exit code, stdout, stderr)."""

    def go(*args):
        p = subprocess.run(
            [str(nimseq_bin), *map(str, args)], capture_output=True, text=True, timeout=600
        )
        return p.returncode, p.stdout, p.stderr

    return go


@pytest.fixture(scope="session")
def run_json(run):
    """The JSON the binary prints for these arguments (it must succeed)."""

    def go(*args):
        code, out, err = run(*args)
        assert code == 0, err
        return json.loads(out)

    return go


@pytest.fixture(scope="session")
def cli_error(run):
    """The one-line message the binary prints for a refused command line, without 'nimseq: '."""

    def go(*args):
        code, out, err = run(*args)
        assert code != 0, out
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("nimseq: "), err
        return code, lines[0][len("nimseq: ") :]

    return go
