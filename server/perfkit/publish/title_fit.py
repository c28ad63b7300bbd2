"""The PR title within about 100 characters, with one or two headline figures.

The full form is `<prefix> <job> on <hardware>: <headline> at <world size>, mostly from <cause>`
(the seed's form; a metric campaign's headline is one or two "A to B" spans). A maintainer reads
titles in a list of pull requests, where about 100 characters show, so when the full form is longer
(counting the prefix the repo's title rule or the draft gives it), parts go in this order, each only
while the title is still too long: the second headline span, the world size or parallelism (the
hardware already names the GPUs), then the cause, which says what was wrong and goes last. A
warning names what went, so the user can shorten the job or the cause in the draft and keep it.
perfkit.lint.title_length holds the limit lint_wording checks.
"""

from __future__ import annotations

from collections.abc import Callable

from perfkit.lint.title_length import TITLE_MAX_CHARS, length


def _join(
    frame: Callable[[str], str], job: str, hardware: str, spans: list[str], at: str | None, cause: str | None
) -> str:
    summary = f"{job} on {hardware}: {' and '.join(spans)}"
    if at:
        summary += f" at {at}"
    if cause:
        summary += f", mostly from {cause}"
    return frame(summary)


def fit(
    frame: Callable[[str], str],
    job: str,
    hardware: str,
    spans: list[str],
    at: str | None,
    cause: str,
    at_repeats_count: bool,
) -> tuple[str, list[str]]:
    """(the title, warnings naming what was left out to keep it within TITLE_MAX_CHARS); frame puts the
    summary in the repo's title form or after the draft's prefix."""
    steps: list[tuple[str, list[str], str | None, str | None]] = [("", spans, at, cause)]
    if len(spans) > 1:
        steps.append(("the second headline figure", spans[:1], at, cause))
    if at:
        said = " (the GPU count says it)" if at_repeats_count else ""
        steps.append((f"'at {at}'{said}", spans[:1], None, cause))  # said only when it was not redundant
    steps.append(("the largest cause", spans[:1], None, None))
    left: list[str] = []
    title = _join(frame, job, hardware, spans, at, cause)
    for what, s, a, c in steps:
        title = _join(frame, job, hardware, s, a, c)
        if what and not what.endswith("(the GPU count says it)"):
            left.append(what)  # a world size that repeats the GPU count goes without a word: nothing is lost
        if length(title) <= TITLE_MAX_CHARS:
            break
    warnings = []
    if left:
        warnings.append(
            f"the title leaves out {', '.join(left)} to stay within {TITLE_MAX_CHARS} characters; a shorter "
            "draft.job or draft.largest_cause keeps them"
        )
    if length(title) > TITLE_MAX_CHARS:
        warnings.append(f"the title has {length(title)} characters, more than {TITLE_MAX_CHARS}: shorten draft.job")
    return title, warnings
