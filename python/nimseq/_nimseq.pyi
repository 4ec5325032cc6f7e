"""Type stubs of the compiled part of nimseq (python/src/lib.rs)."""

import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

import numpy as np
import numpy.typing as npt

__version__: str
#: The engine's instruction-set tier (NIMSEQ_ISA, read at import; else the best this processor has).
engine_tier: str

Count = Union[int, str]
Game = Union[str, "Rule"]
Json = Dict[str, Any]

class Rule:
    """A game: a code ('0.77', '4!.0', '0.[3]', '0.3F'), a subtraction set ('sub(1,2,3)') or a
    name ('kayles'). Raises ValueError with the command line's message for anything else."""

    def __init__(self, game: Game) -> None: ...
    @property
    def code(self) -> str:
        """The canonical code, e.g. '0.77'."""
    @property
    def rules(self) -> str:
        """The moves in words, as `nimseq compute` prints them."""
    @property
    def name(self) -> Optional[str]:
        """The common name ('kayles'), or None."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Table:
    """A table file written by `nimseq compute GAME -n N --table PATH`, opened read-only.
    Raises OSError (FileNotFoundError, ...) when it is missing, not a table or damaged."""

    def __init__(self, path: Union[str, "os.PathLike[str]"]) -> None: ...
    @property
    def path(self) -> Path:
        """The file."""
    @property
    def game(self) -> str:
        """The canonical code of the game."""
    def __len__(self) -> int:
        """Heaps held: 0 .. len(t) - 1."""
    @property
    def width(self) -> int:
        """Bytes per value: 1, 2 or 4."""
    @property
    def file_size(self) -> int:
        """The size of the file in bytes."""
    @property
    def values(self) -> npt.NDArray[Union[np.uint8, np.uint16, np.uint32]]:
        """G(0) .. G(len(t) - 1), a read-only array mapped from the file (not copied); the
        first access verifies every checksum (OSError when damaged)."""
    def read(
        self, start: int = 0, stop: Optional[int] = None
    ) -> npt.NDArray[Union[np.uint8, np.uint16, np.uint32]]:
        """G(start) .. G(stop - 1) mapped from the file, their checksums verified first."""
    def verify(self, start: int = 0, stop: Optional[int] = None) -> None:
        """Checks the checksums of heaps start .. stop - 1; OSError when damaged."""
    def summary(self) -> Json:
        """The dict of `nimseq info PATH --json` (keys of `compute --json`)."""
    @property
    def period(self) -> Optional[Json]:
        """The period recorded in the table, or None."""

def values(
    game: Game, n: Count, *, engine: str = "auto", threads: Optional[int] = None
) -> npt.NDArray[Union[np.uint8, np.uint16, np.uint32]]:
    """G(0) .. G(n - 1) in the narrowest unsigned dtype."""

def summary(
    game: Game, n: Count, *, engine: str = "auto", threads: Optional[int] = None
) -> Json:
    """The dict of `nimseq compute GAME -n N --json`."""

def compute(
    game: Game,
    n: Count,
    *,
    table: Union[str, "os.PathLike[str]"],
    engine: str = "auto",
    threads: Optional[int] = None,
    checkpoint: float = 5.0,
) -> Json:
    """Creates or extends a table file (resumable); the dict of `compute --table --json`."""

def period(
    game: Game,
    max: Optional[Count] = None,
    *,
    engine: str = "auto",
    threads: Optional[int] = None,
    table: Optional[Union[str, "os.PathLike[str]"]] = None,
    checkpoint: float = 5.0,
) -> Json:
    """The dict of `nimseq period GAME [--max N] [--table PATH] --json` (docs/JSON.md)."""

def play(
    game: Game,
    heaps: List[Count],
    *,
    engine: str = "auto",
    threads: Optional[int] = None,
    max_moves: Optional[int] = None,
    table: Optional[Union[str, "os.PathLike[str]"]] = None,
) -> Json:
    """The dict of `nimseq play GAME HEAP... [--table PATH] --json` (normal play)."""

def hackenbush(
    components: Union[str, List[str], None] = None, graph: Optional[str] = None
) -> Json:
    """The dict of `nimseq hackenbush COMPONENT... [--graph FILE] --json`: canonical forms in
    CGSuite's notation, the outcome and the winning moves; graph is the text of an edge list
    ('u v COLOUR' a line, g or 0 the ground)."""

def cost_estimate(game: Game, n: Count) -> Optional[Json]:
    """The O(N^3) cost estimate (game, count, options, seconds) that values(), summary(),
    compute() and play() warn with (UserWarning), or None when no warning is due."""

def quotient(
    game: Game,
    max_heap: Optional[Count] = None,
    max_memory: Optional[Count] = None,
    *,
    table: bool = True,
    threads: Optional[int] = None,
    candidate_size: Optional[Count] = None,
    candidate_order: Optional[Count] = None,
    recalibrations: Optional[Count] = None,
) -> Json:
    """The dict of `nimseq quotient GAME [--max-heap N] [--max-memory BYTES] --json` (misère
    quotient), its "table" a NumPy array of order × order uint32 (the JSON's rows are
    `table.tolist()`); max_memory defaults to half the memory available; table=False leaves
    the table out (None), as `--no-table` does; threads (default: all cores) does not change
    the result; candidate_size, candidate_order, recalibrations are `--candidate-size`,
    `--candidate-order`, `--recalibrations`."""

def survey_misere(
    pattern: str,
    *,
    max_heap: Optional[Count] = None,
    max_order: Optional[Count] = None,
    budget: Optional[float] = None,
    threads: Optional[int] = None,
) -> List[Json]:
    """The rows of `nimseq survey PATTERN --misere --json` (misère quotients of many codes),
    computed in this process: one dict per game, in the order of the games."""
