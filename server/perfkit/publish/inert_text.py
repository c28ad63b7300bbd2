"""Make the drafts render_pr writes inert: nothing in them acts when they are posted.

render_pr copies text others wrote (candidate titles, commit subjects, the agent's draft) into the
PR description and the issue. The decision: perfkit never writes a live `@name` or `@org/team`
mention, raw HTML that loads or runs something, a link whose scheme is not a web page's, or a bidi
or zero-width character in text it composes. The first three are written as inline code (GitHub
renders no mention, markup or link inside code), hidden characters are dropped. The repository's
own template text is carried as the template has it. It uses lint's own detection
(perfkit.lint.live_text) over perfkit.markdown's CommonMark reading, so the drafts it writes lint
clean on those rules by construction, and the code it writes is code where GitHub sees code.
"""

from __future__ import annotations

from perfkit.lint import live_text, markdown
from perfkit.markdown import safe


def _inert(piece: str, rule: str, raw_html: bool) -> str:
    """The stretch written so it does nothing: code in Markdown; in an HTML block, where backticks are
    text, a mention inside a <code> element and markup with its '<' escaped."""
    if rule == "hidden-char":
        return ""
    if not raw_html:
        return safe.code(piece)
    return f"<code>{piece}</code>" if rule == "mention" else piece.replace("<", "&lt;")


def make_inert(text: str, repo_lines: set[str] | None = None) -> str:
    """text with every mention, active tag and non-web link made code, and hidden characters dropped."""
    doc = markdown.parse(text, repo_lines)
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for rule, i, start, end, _ in live_text.spans(doc):
        edits.setdefault(i, []).append((start, end, rule))
    if not edits:
        return text
    lines = list(doc.lines)
    for i, found in edits.items():
        line = lines[i]
        taken_to = len(line) + 1
        raw_html = doc.outline.html[i] is not None
        for start, end, rule in sorted(found, key=lambda e: (e[0], -e[1]), reverse=True):
            if end > taken_to:  # overlaps a stretch already rewritten (a link inside a tag)
                continue
            if rule != "hidden-char" and doc.fenced[i]:
                continue
            line = line[:start] + _inert(line[start:end], rule, raw_html) + line[end:]
            taken_to = start
        lines[i] = line
    return "\n".join(lines)
