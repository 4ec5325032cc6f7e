#!/usr/bin/env python3
"""Checks a table's value frequencies against published ones at every power of two it holds.

    scripts/check-frequencies.py TABLE GAME PUBLISHED.tsv

PUBLISHED.tsv has the columns of tests/data/published/rogalski-*.tsv: N, log2 N, value, count,
counting heaps 1 .. N (Rogalski's convention: heap 0, whose value is 0, is not counted). For
each N with heaps 0 .. N in the table, `nimseq compute GAME -n N+1 --table TABLE --json` gives
the frequencies of the table's prefix; heap 0 is taken off and the counts are compared value by
value. Prints a line per N; exits 1 at the first difference, 2 on bad input.
"""

import json
import os
import subprocess
import sys
from collections import defaultdict


def published(path):
    rows = defaultdict(dict)
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 4 or fields[0] == "n_heaps_upto":
                continue
            n, _, value, count = (int(x) for x in fields)
            if count:
                rows[n][value] = count
    return rows


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(2)
    table, game, tsv = sys.argv[1:]
    here = os.path.dirname(os.path.abspath(__file__))
    nimseq = os.environ.get("NIMSEQ", os.path.join(here, "..", "target", "release", "nimseq"))
    info = json.loads(subprocess.run([nimseq, "info", table, "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    held = info["count"]
    checked = 0
    for n, theirs in sorted(published(tsv).items()):
        if n + 1 > held:
            break
        out = subprocess.run([nimseq, "compute", game, "-n", str(n + 1), "--table", table,
                              "--json", "--quiet"], check=True, capture_output=True, text=True)
        ours = {int(v): c for v, c in json.loads(out.stdout)["frequencies"].items()}
        ours[0] -= 1  # heap 0
        ours = {v: c for v, c in ours.items() if c}
        if ours != theirs:
            diff = sorted(v for v in set(ours) | set(theirs) if ours.get(v) != theirs.get(v))
            print(f"N = {n}: DIFFERENT at values {diff[:10]}: "
                  f"ours {[ours.get(v, 0) for v in diff[:10]]}, "
                  f"published {[theirs.get(v, 0) for v in diff[:10]]}")
            sys.exit(1)
        print(f"N = {n}: {len(theirs)} values, equal")
        checked += 1
    print(f"{game}: frequencies equal the published ones at {checked} powers of two "
          f"(the table holds heaps 0 .. {held - 1})")


if __name__ == "__main__":
    main()
