"""Find lines deleted in one place and added in another: a moved block is not a removal.

Rename detection only catches whole files that moved. A function cut from one file and pasted
into another, or lower in the same file, shows up as a deletion plus an addition. Like git's
--color-moved, a run of deleted lines counts as moved when the same lines (whitespace ignored)
are added elsewhere as a run holding at least MIN_ALNUM alphanumeric characters.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

MIN_ALNUM = 20
_MAX_CANDIDATES = 64
_WS = re.compile(r"\s+")
_ALNUM = re.compile(r"[A-Za-z0-9]")


def norm(text: str) -> str:
    return _WS.sub(" ", text).strip()


@dataclass
class Run:
    """Consecutive deleted (or added) lines of one hunk, with an owner the caller uses to map back."""

    owner: tuple[Any, int]  # the caller's key back to its hunk: (file context, hunk id) in hunks.py
    path: str
    numbers: list[int]
    texts: list[str]


@dataclass
class Match:
    removed: Run
    added: Run
    removed_numbers: list[int]
    added_numbers: list[int]


def find_moves(removed: list[Run], added: list[Run]) -> list[Match]:
    """Greedy longest matches of deleted runs against added runs, each added line used once."""
    seqs = []
    for run in added:
        keep = [(n, norm(t)) for n, t in zip(run.numbers, run.texts, strict=True) if norm(t)]
        seqs.append(keep)
    index: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for ai, seq in enumerate(seqs):
        for pos, (_, t) in enumerate(seq):
            index[t].append((ai, pos))
    used: set[tuple[int, int]] = set()
    matches: list[Match] = []
    for run in removed:
        rem = [(n, norm(t)) for n, t in zip(run.numbers, run.texts, strict=True) if norm(t)]
        i = 0
        while i < len(rem):
            best = (0, -1, -1)
            for ai, pos in index.get(rem[i][1], ())[:_MAX_CANDIDATES]:
                seq = seqs[ai]
                k = 0
                while (
                    i + k < len(rem)
                    and pos + k < len(seq)
                    and (ai, pos + k) not in used
                    and rem[i + k][1] == seq[pos + k][1]
                ):
                    k += 1
                if k > best[0]:
                    best = (k, ai, pos)
            k, ai, pos = best
            if k and sum(len(_ALNUM.findall(t)) for _, t in rem[i : i + k]) >= MIN_ALNUM:
                used.update((ai, pos + j) for j in range(k))
                matches.append(
                    Match(run, added[ai], [n for n, _ in rem[i : i + k]], [n for n, _ in seqs[ai][pos : pos + k]])
                )
                i += k
            else:
                i += 1
    return matches
