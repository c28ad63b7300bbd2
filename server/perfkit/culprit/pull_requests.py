"""Which repository a pull-request number in a culprit's subject or message belongs to.

A commit that moves a submodule often copies the submodule's own log into its message ("Bump
runtime: fix summation (#1098)"), so a number there can be the submodule's pull request, not this
repository's. A number is the submodule's when a commit of the range the pointer moves over holds
it in its own message; every other number is this repository's. When the commit moves a submodule
whose range the local clone cannot read, a number of the message body is left unattributed rather
than claimed. Two repositories can use the same number; a collision inside the moved range is
attributed to the submodule, which is where the copied text came from.
"""

from __future__ import annotations

from pathlib import Path

from perfkit.culprit.models import PullRequestMention, SubmoduleMove
from perfkit.culprit.pointer import submodule_store
from perfkit.repo import gitrepo

_MAX_RANGE = 5000  # commits read per moved range; a larger move is read up to this many


def _numbers(text: str) -> list[int]:
    """Every pull-request number the text names, one per line at most (gitrepo's pattern)."""
    found = [gitrepo.pr_number(line) for line in text.splitlines()]
    return list(dict.fromkeys(n for n in found if n is not None))


def _range_numbers(repo: Path, move: SubmoduleMove) -> set[int] | None:
    """Numbers the commit messages of the moved range name, or None when the clone cannot say."""
    if not (move.old and move.new) or move.direction == "unknown" or not move.objects_available:
        return None
    store = submodule_store(repo, move.path, move.name)
    if store is None:
        return None
    rng = {"backward": f"{move.new}..{move.old}", "sideways": f"{move.old}...{move.new}"}
    spec = rng.get(move.direction, f"{move.old}..{move.new}")
    out = gitrepo.git(store, "log", f"--max-count={_MAX_RANGE}", "--format=%B%x00", spec, "--", check=False)
    return set(_numbers(out))


def attribute(
    repo: Path, subject: str, message: str, moves: list[SubmoduleMove]
) -> tuple[int | None, list[PullRequestMention]]:
    """(this repository's pull request, every number named with the repository it belongs to)."""
    named = [(n, "subject") for n in _numbers(subject)]
    body = message.split("\n", 1)[1] if "\n" in message else ""
    named += [(n, "message") for n in _numbers(body) if n not in {m for m, _ in named}]
    if not named:
        return None, []
    ranges = {m.path: _range_numbers(repo, m) for m in moves if m.old and m.new}
    mentions: list[PullRequestMention] = []
    for number, where in named:
        owner = next((path for path, nums in ranges.items() if nums and number in nums), None)
        if owner is None and where == "message" and any(nums is None for nums in ranges.values()):
            owner = "unknown"  # a moved range the clone cannot read may hold it
        mentions.append(PullRequestMention(number=number, repository=owner or ".", where=where))
    own = [m.number for m in mentions if m.repository == "."]
    subject_own = [m.number for m in mentions if m.repository == "." and m.where == "subject"]
    return (subject_own[-1] if subject_own else own[-1] if own else None), mentions
