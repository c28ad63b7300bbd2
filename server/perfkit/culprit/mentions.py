"""Which submodule commits a commit message names, and whether they contradict the pointer.

Real bump messages name the old pointer, the new one, commits inside the range (change lists),
superproject commits, commits of other repositories (pinned tools) and e-mail addresses with
digits. Only two things contradict the pointer: a submodule commit that neither pointer
contains, and a destination ('to X', '-> X', '..X') that is not the new pointer.
"""

from __future__ import annotations

import re
from pathlib import Path

from perfkit.culprit.models import Mention, MentionRelation
from perfkit.culprit.objects import commits_in
from perfkit.repo import gitrepo

_HEX_RE = re.compile(r"(?<![0-9A-Za-z_])[0-9a-f]{7,40}(?![0-9A-Za-z_])")
_NOISE_RE = re.compile(r"https?://\S++|(?<![\w.+-])[\w.+-]++@[\w-]++(?:\.[\w-]++)+")
_TARGET_RE = re.compile(r"(?:\bto|\binto|→|⇒|->|=>|\.\.)\s*[`'\"*(\[]*$", re.IGNORECASE)


def message_ids(message: str) -> list[tuple[str, bool]]:
    """(id, written as a destination) for each distinct hex id, URLs and e-mail addresses removed.

    All digits (a date, an issue number) and all letters (a word such as 'defaced') are kept too:
    one abbreviated id in 27 is all digits, so they are real ids often enough to matter. They
    count only where they name a commit (`plain_word`).
    """
    text = _NOISE_RE.sub(lambda m: " " * len(m.group()), message)
    seen: dict[str, bool] = {}
    for m in _HEX_RE.finditer(text):
        h = m.group()
        target = bool(_TARGET_RE.search(text[max(0, m.start() - 16) : m.start()]))
        seen[h] = seen.get(h, False) or target
    return list(seen.items())


def plain_word(h: str) -> bool:
    """All digits or all letters: a number or a word unless a repository holds it as a commit."""
    return not (re.search(r"[a-f]", h) and re.search(r"[0-9]", h))


def classify_mentions(
    repo: Path,
    store: Path | None,
    message: str,
    old: str | None,
    new: str | None,
    in_sub: dict[str, str] | None = None,
) -> list[Mention]:
    """Place every hex id of the message relative to the move old -> new.

    store is the submodule object store, or None when it cannot be trusted (missing or cut
    history): then only prefixes of the pointers are recognised. in_sub, when the caller already
    asked the store, maps ids to the commits they name there.
    """
    ids = message_ids(message)
    plain = [h for h, _ in ids]
    if store is None:
        in_sub = {}
    elif in_sub is None:
        in_sub = commits_in(store, plain)
    in_top = commits_in(repo, [h for h in plain if h not in in_sub])
    mentions: list[Mention] = []
    for h, target in ids:
        relation: MentionRelation
        if old and old.startswith(h):
            relation = "old_pointer"
        elif new and new.startswith(h):
            relation = "new_pointer"
        elif h in in_sub and store is not None:
            sha = in_sub[h]
            in_new = new is not None and gitrepo.is_ancestor(store, sha, new)
            in_old = gitrepo.is_ancestor(store, sha, old) if old else in_new
            relation = "before_range" if in_new and in_old else "in_range" if in_new or in_old else "outside_range"
        elif h in in_top:
            relation = "superproject"
        elif plain_word(h):
            continue  # a number or a word, not a commit of either repository
        else:
            relation = "unknown"
        mentions.append(Mention(id=h, relation=relation, as_target=target, warns=False))
    names_new = any(m.relation == "new_pointer" for m in mentions)
    for m in mentions:
        if m.relation == "outside_range":
            m.warns = True
        elif m.as_target and m.relation in ("in_range", "before_range"):
            m.warns = True
        elif m.as_target and m.relation == "unknown" and not names_new:
            m.warns = True
    return mentions
