"""The parameters of a repo's rule: what an agent needs to follow it, read from the sentence and the lines under it.

A rule is only useful to an agent with its values: "use one of [Attention] ... [Misc]" needs the list,
"[{modules}] {type}: {description}" needs what each slot may hold (often in the bullets right under it),
"add the `perf` label" needs the label's exact text, "disclose AI assistance in the PR description"
needs where. These are read from the sentence and, for a sentence that introduces a list (it ends
with ':' or names a pattern's slots), from the lines that follow it in the same section. Values are
kept exactly as the repo writes them; nothing is guessed. `action` turns them into one line saying
what to do, in perfkit's words.
"""

from __future__ import annotations

import re

from perfkit.markdown.blocks import ATX_RE
from perfkit.publish.models import NoteKind, RuleParams, Where

_CODE_RE = re.compile(r"`([^`\n]{1,120})`")
_QUOTED_RE = re.compile(r"""(?<![\w])["'“‘]([^"'“”‘’\n]{1,60})["'”’](?![\w])""")
_BRACKET_RE = re.compile(r"\\?\[([^\[\]\n]{1,40}?)\\?\](?!\()")  # [Tag], not a Markdown link's text
_PATTERN_RE = re.compile(r"[\[{<][^\n]{0,80}[\]}>]|\b\w+(?:\(\w+\))?!?:\s")
_SLOT_RE = re.compile(r"\{(\w[\w ]{0,30})\}|<(\w[\w ]{0,30})>|\[(\w[\w :]{0,30})\]")
_GENERIC_SLOT = re.compile(
    r"^(?:types?|modules?|components?|scopes?|areas?|categor(?:y|ies)|tags?|kinds?|prefix(?:es)?|subsystems?|"
    r"backends?|projects?|labels?|descriptions?|summary|title|subject|ticket|issue|jira|id)$",
    re.I,
)
_CLOSED_RE = re.compile(
    r"\bone of\b|\bmust\b|\bonly\b|\ballowed\b|\bvalid\b|\bis in\b|\binclude\b|\bchecked by\b|\bby the ci\b|"
    r"\bnot accepted\b|\bwill fail\b",
    re.I,
)
_WHEN_RE = re.compile(r"\b(?:if|when|whenever|in case|cases?|unless)\b", re.I)
_OPEN_RE = re.compile(r"\be\.g\b|\bsuch as\b|\bfor example\b|\bfor instance\b|\blike\b|\bincluding\b", re.I)
_LIST_LINE_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_ONE_OF_RE = re.compile(r"\bone of\b|\bexactly one\b|\beither\b|\bonly one\b", re.I)
_ANY_RE = re.compile(r"\bat least one\b|\bany of\b", re.I)
_ALL_RE = re.compile(r"\ball of\b|\bboth\b|\beach of\b", re.I)
_TRAILER_RE = re.compile(r"\b((?:Signed-off|Co-authored|Assisted|Generated|Co-developed|Helped|Reviewed)-by)\b", re.I)
_NAMES_TOOL_RE = re.compile(
    r"\b(?:tool|model|assistant|agent)(?:'s)? names?\b|\bname (?:of )?(?:the |which )?(?:tools?|models?|assistants?|"
    r"agents?)\b|\bwhich (?:ai )?(?:tools?|models?|assistants?|agents?)\b|\bnam(?:e|ing) (?:the|your) (?:ai )?tool\b",
    re.I,
)
_WHERE: tuple[tuple[Where, re.Pattern[str]], ...] = (
    (
        "pr-description",
        re.compile(
            r"\b(?:pr|pull request|merge request)(?:'s)? (?:descriptions?|body|bodies|summary|text)\b|"
            r"\bin the description\b|"
            r"\bdescription of (?:the|your) (?:pr|pull request|change)\b|\bin (?:the|your) (?:pr|pull request)\b",
            re.I,
        ),
    ),
    ("pr-template", re.compile(r"\b(?:pr|pull request) template\b|\bthe template\b|\bcheck ?box\b", re.I)),
    ("pr-title", re.compile(r"\btitles?\b", re.I)),
    ("pr-label", re.compile(r"\blabel(?:s|led|ed)?\b", re.I)),
    ("pr-comment", re.compile(r"\bcomments?\b", re.I)),
    ("commit-trailer", re.compile(r"\btrailers?\b|\b(?:co-authored|assisted|generated|signed-off)-by\b", re.I)),
    ("commit-message", re.compile(r"\bcommit messages?\b|\bin (?:the|each|every|your) commits?\b", re.I)),
)
_COMMAND_RE = re.compile(
    r"^(?:git|make|pytest|python3?|bash|sh|pre-commit|ruff|tox|nox|uv|pip|cargo|ctest|cmake|npm|yarn|bazel|\./)\b"
)
_PERF_RE = re.compile(r"^\W*(?:perf|performance|optimi[sz]\w*|speed\w*)\W*$", re.I)
_MAX_VALUES = 60
_AFTER_LINES = 14


def _values(text: str) -> list[str]:
    """Code spans, else quoted strings, in order, without duplicates."""
    vals = [m.group(1).strip() for m in _CODE_RE.finditer(text)]
    if not vals:
        vals = [m.group(1).strip() for m in _QUOTED_RE.finditer(text)]
    return list(dict.fromkeys(v for v in vals if v))[:_MAX_VALUES]


def _brackets(text: str) -> list[str]:
    """Bracketed tags ('[Bugfix]'), boxes and Markdown link texts left out."""
    plain = re.sub(r"\[[^\]\n]*\]\([^)\n]*\)", " ", text)
    out = []
    for m in _BRACKET_RE.finditer(plain):
        inner = m.group(1).strip()
        if inner.lower() in ("", "x", " ") or inner.startswith("!"):
            continue
        out.append(f"[{inner}]")
    return list(dict.fromkeys(out))[:_MAX_VALUES]


def following(lines: list[str], line: int, ends_list: bool) -> list[str]:
    """The lines under a sentence that belong to it: its nested list, or the list it introduces with ':'."""
    out: list[str] = []
    if line < 1 or line > len(lines):
        return out
    base = len(lines[line - 1]) - len(lines[line - 1].lstrip())
    for raw in lines[line : line + _AFTER_LINES]:
        if ATX_RE.match(raw):
            break
        if not raw.strip():
            if out and not ends_list:
                break
            continue
        indent = len(raw) - len(raw.lstrip())
        nested = indent > base and _LIST_LINE_RE.match(raw)
        if nested or (ends_list and (_LIST_LINE_RE.match(raw) or raw.lstrip().startswith(("`", "[", "\\[")))):
            out.append(raw)
            continue
        if out or not ends_list:
            break
    return out


def _slot_names(pattern: str) -> list[str]:
    """The slots of a form: '{type}', '<scope>', and bracketed generic words ('[Type]', '[Module:Type]')."""
    names = []
    for m in _SLOT_RE.finditer(pattern):
        name = next(g for g in m.groups() if g)
        parts = [p.strip() for p in name.split(":")] if m.group(3) else [name.strip()]
        if m.group(1) or m.group(2):
            names.append(name.strip())
        elif all(_GENERIC_SLOT.match(p) for p in parts):
            names += parts
    return names


_TAG_RUN_RE = re.compile(r"(?:\\?\[[^\[\]\n]{1,40}\\?\])+:?")
_LEAD_RE = re.compile(r"\bone of\b|\bprefix|\bbeginning\b|\bbegin\b|\bstart", re.I)
_DESCRIPTION_WORD = re.compile(r"\b(?:description|summary|subject|title|message)\b", re.I)


_PLAIN_PATTERN_RE = re.compile(r"((?:\\?\[[^\[\]\n]{1,40}\\?\])+:?\s+[A-Z][\w ]{2,40}?)(?=\s*(?:\(|$|[.,;]))")


def has_pattern(text: str) -> bool:
    """The sentence writes a title or commit form with slots, in code or in plain text."""
    return any(_is_pattern(c) for c in _values(text)) or bool(_plain_pattern(text))


def _plain_pattern(text: str) -> str | None:
    """A form written without code: '\\[Prefix\\] Short description of the PR'."""
    for m in _PLAIN_PATTERN_RE.finditer(_CODE_RE.sub(" ", text)):
        form = m.group(1).replace("\\[", "[").replace("\\]", "]").strip()
        if _slot_names(form):
            return form
    return None


def _is_pattern(code: str) -> bool:
    """A code span that states a title's form: it has a slot ('{type}', '<scope>', '[Module]') or a
    word standing for the free text ('[Type] Description'); a run of literal tags is not one."""
    if _TAG_RUN_RE.fullmatch(code.strip()) and not _slot_names(code):
        return False
    return bool(_slot_names(code) or (_PATTERN_RE.search(code) and _DESCRIPTION_WORD.search(code)))


def title(text: str, after: list[str], context: str = "") -> RuleParams:
    """A title rule's pattern, allowed prefixes and slot values; context is the sentence's whole line,
    where a closing "Please use one of the following:" may stand."""
    codes = _values(text)
    pattern = next((c for c in codes if len(c) <= 80 and _is_pattern(c)), None) or _plain_pattern(text)
    slots: dict[str, list[str]] = {}
    slot_lines: list[str] = []
    names = _slot_names(pattern) if pattern else []
    lines = after
    for name in names:
        want = re.compile(r"(?:`\{?|\*\*|\{|<|\b)" + re.escape(name) + r"s?(?:\}?`|\*\*|\}|>|\b)", re.I)
        for ln in lines:
            head = ln[:80]
            if want.search(head):
                vals = [
                    v
                    for v in _values(ln) or _brackets(ln)
                    if v.strip("{}<>[]").lower().rstrip("s") != name.lower().rstrip("s")
                ]
                if vals:
                    slots[name] = vals
                    slot_lines.append(ln)
                    break
    prefixes: list[str] = []
    runs = [c.strip() for c in codes if c != pattern and _TAG_RUN_RE.fullmatch(c.strip())]
    outside = _brackets(_CODE_RE.sub(" ", text))
    tags = runs + [t for t in outside if t not in (f"[{n}]" for n in names)]
    if len(set(tags)) >= 2 or (tags and _LEAD_RE.search(text)):
        prefixes = list(dict.fromkeys(tags))
    if not slots and not prefixes:
        for ln in lines:
            lead = _LIST_LINE_RE.sub("", ln).strip().lstrip("*_").lstrip("`")
            if lead.startswith(("[", "\\[")):
                tag = _brackets(lead)
                if tag:
                    prefixes.append(tag[0])
        prefixes = list(dict.fromkeys(prefixes))
    for name, vals in slots.items():  # a "Prefix" or "Tag" slot listing bracketed values lists the prefixes
        if not prefixes and re.search(r"prefix|tag", name, re.I) and all(v.startswith("[") for v in vals):
            prefixes = list(vals)
    words = " ".join([text, context, *slot_lines])
    closed = None
    if slots or prefixes:
        closed = True if _CLOSED_RE.search(words) else False if _OPEN_RE.search(words) else None
    return RuleParams(pattern=pattern, prefixes=prefixes[:_MAX_VALUES], slots=slots, closed=closed)


def labels(text: str, after: list[str]) -> RuleParams:
    vals = [v for v in _values(text) if not v.startswith(("http", "/"))]
    for ln in after:
        vals += [v for v in _values(ln) if v not in vals]
    if not vals:
        vals = [b.strip("[]") for b in _brackets(text)]
    mode = (
        "one-of"
        if _ONE_OF_RE.search(text)
        else "any"
        if _ANY_RE.search(text)
        else "all"
        if _ALL_RE.search(text)
        else None
    )
    return RuleParams(labels=vals[:_MAX_VALUES], labels_mode=mode)


def disclosure(text: str) -> RuleParams:
    where: list[Where] = [w for w, rx in _WHERE if rx.search(text)]
    trailer = _TRAILER_RE.search(text)
    return RuleParams(
        where=where,
        trailer=trailer.group(1) if trailer else None,
        names_tool=bool(_NAMES_TOOL_RE.search(text)),
    )


def commands(text: str, after: list[str], fence: list[str]) -> list[str]:
    """Commands the rule gives: code spans that read as commands, then the first lines of a block under it."""
    out = [c for c in _values(text) if _COMMAND_RE.match(c)]
    for ln in after:
        out += [c for c in _values(ln) if _COMMAND_RE.match(c)]
    out += [ln.strip().lstrip("$ ").strip() for ln in fence if ln.strip() and not ln.strip().startswith("#")]
    return list(dict.fromkeys(out))[:8]


def sign_off(text: str, after: list[str], fence: list[str]) -> RuleParams:
    cmds = commands(text, after, fence)
    if not any("-s" in c.split() or "--signoff" in c for c in cmds):
        cmds = ["git commit -s", *cmds]
    return RuleParams(where=["commit-trailer"], trailer="Signed-off-by", commands=cmds[:8])


def for_kind(kind: NoteKind, text: str, after: list[str], fence: list[str], context: str = "") -> RuleParams:
    if kind == "title-rule":
        return title(text, after, context)
    if kind == "labels":
        return labels(text, after)
    if kind == "ai-policy":
        return disclosure(" ".join(after) if after and after[0] == text else text)
    if kind == "sign-off":
        return sign_off(text, after, fence)
    if kind == "tests":
        return RuleParams(commands=commands(text, after, fence))
    return RuleParams()


def perf_value(values: list[str]) -> str | None:
    """The one value naming performance ('[Perf]', 'perf', 'Performance'), when the list has one."""
    hits = [v for v in values if _PERF_RE.match(v.strip("[]{}<>`"))]
    return hits[0] if len(hits) == 1 else None


_PLACE_NAMES: dict[str, str] = {
    "pr-description": "PR description",
    "pr-template": "PR template's place for it",
    "pr-title": "PR title",
    "pr-label": "PR labels",
    "pr-comment": "a PR comment",
    "commit-message": "commit message",
    "commit-trailer": "commit trailers",
}


def conditional(text: str) -> bool:
    """The rule applies only in some cases ("if this PR breaks any API, add [BREAKING]")."""
    return bool(_WHEN_RE.search(text))


def action(kind: NoteKind, p: RuleParams, ban: bool, conditional: bool = False) -> str:
    """What to do to follow the rule, in one line; a rule for some cases only says "when it applies"."""
    if kind == "ai-policy":
        if ban:
            return "the repo restricts AI-assisted contributions: the user decides whether and how to post"
        if p.where or p.trailer or p.names_tool:
            places = " and ".join(_PLACE_NAMES[w] for w in p.where) or "PR"
            tool = ", naming the tool" if p.names_tool else ""
            trailer = f" (a '{p.trailer}:' trailer)" if p.trailer else ""
            return f"disclose AI assistance in the {places}{trailer}{tool}"
        return "follow the repo's AI policy before posting"
    if kind == "sign-off":
        return "sign off every commit (git commit -s adds 'Signed-off-by:' with the user's name and email)"
    if kind == "cla":
        return "the user signs the repo's contributor license agreement (CLA) before the PR can be merged"
    if kind == "title-rule":
        when = "when it applies, " if conditional else ""
        slots = "; ".join(
            f"{k}: {'e.g. ' if p.closed is False else 'one of '}{', '.join(v)}" for k, v in p.slots.items()
        )
        if p.prefixes:
            pick = perf_value(p.prefixes)
            many = "one of (examples)" if p.closed is False else "one of"
            lead = f"start the title with {pick}" if pick else f"start the title with {many} " + " ".join(p.prefixes)
            return when + lead + (" (no other is allowed)" if p.closed else "")
        if p.pattern:
            return f"{when}write the title as {p.pattern}" + (f" ({slots})" if slots else "")
        if slots:
            return f"{when}write the title with {slots}"
        return f"{when}write the title as the rule says"
    if kind == "labels":
        if p.labels:
            how = {"one-of": "exactly one of", "any": "at least one of", "all": "all of"}.get(p.labels_mode or "", "")
            return f"add the label{'s' if len(p.labels) > 1 else ''} {how + ' ' if how else ''}" + ", ".join(
                f"'{x}'" for x in p.labels
            )
        return "add the labels the rule asks for"
    if kind == "tests":
        return "add or run the tests the rule asks for" + (f": {'; '.join(p.commands[:3])}" if p.commands else "")
    return "check the PR against this rule before posting"
