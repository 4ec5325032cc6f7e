"""nimseq: Sprague-Grundy values ("nim-sequences") of heap games, from the nimseq engine.

Octal and hexadecimal take-and-break games (Kayles 0.77, Officers 0.6, ...), Grundy's game
4!.0, subtraction games: their values as NumPy arrays, the summaries and periods that the
`nimseq` command prints with --json (as dicts with the same keys and values), positions, and
tables on disk mapped into NumPy without a copy.

    >>> import nimseq
    >>> nimseq.values("kayles", 12)
    array([0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6], dtype=uint8)
    >>> nimseq.Rule("kayles").code
    '0.77'

Functions: values, summary, period, play, quotient (misère), survey_misere (the misère
quotients of a pattern of codes, as `survey PATTERN --misere --json`), compute (a table on disk),
hackenbush (canonical forms of Hackenbush positions of every colour), cost_estimate (the
O(N^3) estimate that values, summary, compute and play warn with). Classes: Rule, Table.
Counts accept ints or the command line's forms as text ('2^20', '1e6', '1_000_000').
The dicts have the shapes of docs/JSON.md. Bad input raises ValueError, a missing or damaged
table OSError, each with a one-line message naming the keyword argument at fault; Ctrl-C stops
a computation (KeyboardInterrupt). A long computation shows its progress on stderr when stderr
is a terminal.
"""

from ._nimseq import (
    Rule,
    Table,
    __version__,
    compute,
    cost_estimate,
    engine_tier,
    hackenbush,
    period,
    play,
    quotient,
    summary,
    survey_misere,
    values,
)

__all__ = [
    "Rule",
    "Table",
    "__version__",
    "engine_tier",
    "compute",
    "cost_estimate",
    "hackenbush",
    "period",
    "play",
    "quotient",
    "summary",
    "survey_misere",
    "values",
]
