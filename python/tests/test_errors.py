"""Every class of error: the exception type and the command line's one-line message."""

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import nimseq
from conftest import FIXTURES


@pytest.mark.parametrize("code", ["0.8x", "", "kayle", "0..7", "1.2.3", "0.[3", "sub(a)", "0.7" * 200])
def test_bad_game_code(code, cli_error):
    exit_code, message = cli_error("compute", code, "-n", 10)
    assert exit_code == 2
    for call in (
        lambda: nimseq.Rule(code),
        lambda: nimseq.values(code, 10),
        lambda: nimseq.summary(code, 10),
        lambda: nimseq.period(code),
        lambda: nimseq.play(code, [1]),
    ):
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == message


def test_bad_counts(cli_error):
    # The same refusal in each face's own words: the binary names its flags, Python its
    # keyword arguments (the library names neither).
    _, message = cli_error("compute", "kayles", "-n", 0)
    assert message == "N must be at least 1"
    with pytest.raises(ValueError, match="^n must be at least 1$"):
        nimseq.summary("kayles", 0)
    with pytest.raises(ValueError, match="^n must be at least 1$"):
        nimseq.values("kayles", 0)
    for bad in ("abc", "1.5", "-3", -3, 2.5, "2^99", 2**99, -(2**99)):
        with pytest.raises(ValueError):
            nimseq.values("kayles", bad)
    _, message = cli_error("values", "kayles", "-n", "2^60")
    with pytest.raises(ValueError) as e:
        nimseq.values("kayles", 2**60)
    assert message.startswith("N = 1152921504606846976 needs at least")
    assert str(e.value).startswith("n = 1152921504606846976 needs at least")
    assert "--" not in str(e.value) and "table=PATH" in str(e.value)
    _, message = cli_error("period", "kayles", "--max", 0)
    assert message == "--max must be at least 1"
    with pytest.raises(ValueError, match="^max must be at least 1$"):
        nimseq.period("kayles", 0)


def test_bad_options(cli_error):
    with pytest.raises(ValueError, match="unknown engine 'fast'"):
        nimseq.values("kayles", 10, engine="fast")
    with pytest.raises(ValueError, match="thread count must be at least 1"):
        nimseq.values("kayles", 10, threads=0)
    with pytest.raises(ValueError, match="thread count must be at least 1"):
        nimseq.period("kayles", threads=0)
    with pytest.raises(ValueError, match="2000 threads is more than 1024"):
        nimseq.summary("kayles", 10, threads=2000)
    with pytest.raises(ValueError):
        nimseq.play("kayles", [])
    with pytest.raises(ValueError):
        nimseq.play("kayles", [-1])
    with pytest.raises(ValueError):
        nimseq.compute("kayles", 10, table="/tmp/x.nimseq", checkpoint=-1)


def test_wrong_types():
    with pytest.raises(TypeError):
        nimseq.values(77, 10)
    with pytest.raises(TypeError):
        nimseq.values("kayles", [10])
    with pytest.raises(TypeError):
        nimseq.play("kayles", 5)


def test_missing_table(tmp_path, cli_error):
    missing = tmp_path / "missing.nimseq"
    _, message = cli_error("info", missing)
    with pytest.raises(FileNotFoundError) as e:
        nimseq.Table(missing)
    assert str(e.value) == message and isinstance(e.value, OSError)


def test_not_a_table(tmp_path, cli_error):
    text = tmp_path / "notes.txt"
    text.write_text("not a table\n" * 1000)
    _, message = cli_error("info", text)
    with pytest.raises(OSError) as e:
        nimseq.Table(text)
    assert str(e.value) == message
    with pytest.raises(OSError):
        nimseq.Table(tmp_path)  # a folder


# docs/FORMAT.md: superblock slots A and B at offsets 0 and 2048, the values from offset 4096.
SLOT_B = 2048
VALUES_OFFSET = 4096


def test_damaged_header(tmp_path, cli_error):
    path = tmp_path / "damaged.nimseq"
    shutil.copy(FIXTURES / "kayles-1000.nimseq", path)
    data = bytearray(path.read_bytes())
    for i in range(16, 64):  # both superblock slots fail their checksums
        data[i] ^= 0xFF
        data[SLOT_B + i] ^= 0xFF
    path.write_bytes(bytes(data))
    _, message = cli_error("info", path)
    with pytest.raises(OSError) as e:
        nimseq.Table(path)
    assert str(e.value) == message


def test_damaged_values(tmp_path, cli_error):
    path = tmp_path / "damaged.nimseq"
    shutil.copy(FIXTURES / "kayles-1000.nimseq", path)
    data = bytearray(path.read_bytes())
    assert data[VALUES_OFFSET : VALUES_OFFSET + 12] == bytes([0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6])
    data[VALUES_OFFSET + 500] ^= 0x7F
    path.write_bytes(bytes(data))
    _, message = cli_error("info", path, "--verify")
    t = nimseq.Table(path)  # opening reads only the header
    with pytest.raises(OSError) as e:
        t.verify()
    assert str(e.value) == message
    # Reading the values verifies them, as every command does with the heaps it reads.
    _, message = cli_error("values", "kayles", "-n", 1000, "--table", path)
    with pytest.raises(OSError) as e:
        t.values
    assert str(e.value) == message
    with pytest.raises(OSError):
        t.read(400, 600)
    del t
    with pytest.raises(OSError):
        nimseq.compute("kayles", 2000, table=path)


def test_table_of_another_game(tmp_path, cli_error):
    path = tmp_path / "k.nimseq"
    shutil.copy(FIXTURES / "kayles-1000.nimseq", path)
    _, message = cli_error("compute", "0.6", "-n", 2000, "--table", path, "--quiet")
    with pytest.raises(ValueError) as e:
        nimseq.compute("0.6", 2000, table=path)
    # The binary adds advice in its own words ("give another --table path").
    assert str(e.value).endswith("holds the values of 0.77, not 0.6")
    assert message.startswith(str(e.value))


def test_ctrl_c_stops_values():
    script = textwrap.dedent(
        """
        import nimseq, signal, sys
        # As in a terminal or a notebook, even when started from a shell that ignores SIGINT
        # in background jobs (Python then installs no handler of its own).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        print("start", flush=True)
        try:
            nimseq.values("0.6", 2**27, threads=1)
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


def test_engine_tier_as_the_binary_names_it(nimseq_bin):
    """The package reads NIMSEQ_ISA at import as the binary does at start: same tier, same
    refusal (ValueError at import, exit code 2 with the same message from the binary)."""
    version = subprocess.run([str(nimseq_bin), "--version"], capture_output=True, text=True, check=True)
    assert f"engine tier {nimseq.engine_tier} " in version.stdout
    env = dict(os.environ, NIMSEQ_ISA="bogus")
    child = subprocess.run(
        [sys.executable, "-c", "import nimseq"], capture_output=True, text=True, env=env
    )
    assert child.returncode != 0
    assert "ValueError: NIMSEQ_ISA: unknown instruction-set tier 'bogus'" in child.stderr
    cli = subprocess.run(
        [str(nimseq_bin), "compute", "kayles", "-n", "10"], capture_output=True, text=True, env=env
    )
    assert cli.returncode == 2
    assert "NIMSEQ_ISA: unknown instruction-set tier 'bogus'" in cli.stderr
    env = dict(os.environ, NIMSEQ_ISA="portable")
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            "import nimseq; print(nimseq.engine_tier, nimseq.values('grundy', 3000, engine='sparse')"
            ".tolist() == nimseq.values('grundy', 3000, engine='exact').tolist())",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert child.stdout.split() == ["portable", "True"], child.stderr


def _binary_words(message):
    """What the binary says of a bad value after naming its flag: clap's "invalid value 'V' for
    '--flag <X>': WORDS (see ...)" gives WORDS."""
    if message.startswith("invalid value "):
        message = message.split("': ", 1)[1]
    return message.split(" (see 'nimseq", 1)[0]


@pytest.mark.parametrize(
    "call,name,cli",
    [
        (lambda: nimseq.values("kayles", -3), "n", ("values", "kayles", "-n", "-3")),
        (lambda: nimseq.values("kayles", "2.5"), "n", ("values", "kayles", "-n", "2.5")),
        (lambda: nimseq.summary("kayles", "abc"), "n", ("compute", "kayles", "-n", "abc")),
        (lambda: nimseq.period("kayles", -1), "max", ("period", "kayles", "--max", "-1")),
        (lambda: nimseq.quotient("0.77", max_heap=-1), "max_heap", ("quotient", "0.77", "--max-heap", "-1")),
        (lambda: nimseq.quotient("0.77", max_memory=-5), "max_memory", None),
        (lambda: nimseq.survey_misere("0.0?", max_heap=-1), "max_heap", ("survey", "0.0?", "--misere", "--max-heap", "-1")),
        (lambda: nimseq.survey_misere("0.0?", max_order=-3), "max_order", ("survey", "0.0?", "--misere", "--max-order", "-3")),
        (lambda: nimseq.play("kayles", [3, -1]), "heaps[1]", ("play", "kayles", "3", "--", "-1")),
        (lambda: nimseq.play("kayles", [3], max_moves=-1), "max_moves", ("play", "kayles", "3", "--max-moves", "-1")),
        (lambda: nimseq.values("kayles", 10, threads=-1), "threads", ("values", "kayles", "-n", "10", "--threads", "-1")),
        (lambda: nimseq.values("kayles", 10, threads=0), "threads", ("values", "kayles", "-n", "10", "--threads", "0")),
        (lambda: nimseq.summary("kayles", 10, threads=2000), "threads", ("compute", "kayles", "-n", "10", "--threads", "2000")),
        (lambda: nimseq.survey_misere("0.0?", threads=-2), "threads", None),
        (lambda: nimseq.compute("kayles", 10, table="/tmp/never.nimseq", checkpoint=-1), "checkpoint", ("compute", "kayles", "-n", "10", "--table", "/tmp/never.nimseq", "--checkpoint", "-1")),
    ],
)
def test_a_bad_count_names_its_argument(call, name, cli, cli_error):
    # "max_heap: '-1' is negative": the keyword argument, then the binary's words for the value.
    with pytest.raises(ValueError) as e:
        call()
    message = str(e.value)
    assert message.startswith(f"{name}: "), message
    if cli is not None:
        code, binary = cli_error(*cli)
        assert code == 2
        assert message == f"{name}: {_binary_words(binary)}"
