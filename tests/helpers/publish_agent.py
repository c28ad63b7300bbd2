"""A scripted agent for render_pr's loop: it reads left_for_human, answers from the example draft's facts,
hands over what it cannot know, and renders again; plus the independent judge of a draft's acceptability.

The agent knows only what a draft holds (the tests answer, the user-impact answer, the hardware, the
model, the commands) and what the result tells it; it never reads perfkit's source. The judge does not
use perfkit's parse: a template line that reaches the body unchanged must look like structure (a
heading, a box, an issue link, markup, code, a bot or reviewer line) by its shape alone.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

DISCLOSURE = "Drafted with an AI coding agent from my measurements; I reviewed every change and every number."
_STRUCTURE = re.compile(
    r"^\s*(?:#{1,6}\s|(?:[-*+]|\d+[.)])?\s*\[[ xX]\]|(?:[-*+]\s+)?(?:\*\*|__)[^*_]{1,160}(?:\*\*|__)\s*:?\s*$|"
    r"</?(?:details|summary|p|br|div|img|hr|a|sub|sup)\b|```|~~~|={3,}\s*$|-{3,}\s*$|@\w|/\w+|"
    r".*\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|related(?: to)?)\b[^\n]*#)",
    re.I,
)


# a note for reviewers, CI, bots or merge rules, by its words: kept as written, unless it tells the author to act
_PROCESS = re.compile(r"\b(?:review\w*|ci\b|merg\w*|approv\w*|labels?\b|oncall|bots?\b|codeowners|automatically)", re.I)
_ASKS = re.compile(r"\b(?:please|make sure|you must|describe|fill in|replace|remove this)\b", re.I)


def surviving_template_text(template: str, body: str) -> list[str]:
    """Template lines found unchanged in the body that do not look like structure: the judge's defects.

    Read by paragraph: a paragraph is structure when one of its lines has the shape of structure or it
    speaks of review, CI, merging or labels without asking the author for anything."""
    body_lines = set()
    fence = False
    for ln in body.split("\n"):
        if ln.strip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if not fence and "<!--" not in ln:
            body_lines.add(ln.strip())
    paragraphs: list[list[str]] = [[]]
    fence = comment = box = False
    for ln in template.split("\n"):
        s = ln.strip()
        if s.startswith(("```", "~~~")):
            fence = not fence
            continue
        if "<!--" in s:
            comment = "-->" not in s[s.index("<!--") :]
            continue
        if comment:
            comment = "-->" not in s
            continue
        if fence:
            continue
        if not s:
            paragraphs.append([])
            box = False
            continue
        if box and ln[:1] in (" ", "\t"):
            continue  # a box's wrapped line, or an item nested under the box that explains it
        box = bool(re.match(r"^\s*(?:[-*+]|\d+[.)])?\s*\[[ xX]\]", ln)) or (box and ln[:1] in (" ", "\t"))
        if re.match(r"^\s*(?:[-*+]|\d+[.)])\s", ln):
            paragraphs.append([])  # each list item is its own unit
        paragraphs[-1].append(s)
    out: list[str] = []
    for para in paragraphs:
        text = " ".join(para)
        if not para or any(_STRUCTURE.match(x) or len(x) < 4 for x in para):
            continue
        if _PROCESS.search(text) and not _ASKS.search(text):
            continue
        out += [x for x in para if x in body_lines and x not in out]
    return out


@dataclass
class Round:
    left_open: int
    lint: int
    answers: dict[str, Any]


@dataclass
class Loop:
    rounds: list[Round] = field(default_factory=list)
    draft: dict[str, Any] = field(default_factory=dict)
    overwritten: list[str] = field(default_factory=list)


def _fact(draft: dict[str, Any], meaning: str | None) -> str | None:
    answers = draft.get("template_answers", {})
    details = draft.get("details", {})
    by_meaning = {
        "tests": answers.get("Tests"),
        "user-impact": answers.get("User impact"),
        "hardware": details.get("hardware"),
        "model": details.get("model"),
        "software": details.get("hardware"),
        "reproduction": f"```sh\n{details['command_pr']}\n```" if details.get("command_pr") else None,
        "alternatives": "\n".join(f"- {r}" for r in details.get("rejected", [])) or None,
    }
    return by_meaning.get(meaning or "")


def next_draft(draft: dict[str, Any], result: dict[str, Any]) -> dict[str, Any] | None:
    """The agent's next draft from a render result (as JSON), or None when nothing is left to do."""
    d = copy.deepcopy(draft)
    answers: dict[str, Any] = d.setdefault("template_answers", {})
    boxes: list[dict[str, Any]] = d.setdefault("checkboxes", [])
    hand: dict[str, str] = d.setdefault("hand_over", {})
    changed = False
    for use in result.get("answers", []):
        if use["effect"] == "refused":
            value = answers.pop(use["key"], None)
            changed = True
            ids = [c.split(":", 1)[0] for c in use.get("candidates", [])]
            if value and ids and use["why"].startswith("it means"):
                answers.setdefault(ids[0], value)  # the first of the parts that ask for the same thing
    for item in result.get("left_for_human", []):
        if item["deliberate"]:
            continue
        changed = True
        kind, pid = item["kind"], item.get("id")
        if kind == "placeholder" and pid:
            fact = _fact(draft, item.get("meaning"))
            if fact and pid not in answers:
                answers[pid] = fact
            else:
                hand[pid] = "the agent cannot answer this from the measurements: the user writes it"
        elif kind == "placeholder":
            hand[item["text"]] = "the user fills it in"
        elif kind == "box" and pid:
            boxes.append({"text": pid, "tick": False, "reason": "not checked by the agent; the user confirms"})
        elif kind == "template-text":
            hand[item["text"]] = "the user removes or keeps this template line"
        elif kind == "rule":
            if "ai_disclosure" in item["do"] and not d.get("ai_disclosure"):
                d["ai_disclosure"] = DISCLOSURE
            else:
                hand[item["text"]] = "the user follows this rule before posting"
        elif kind == "answer":
            pass  # handled through result.answers above
    return d if changed else None


def overwritten(draft: dict[str, Any], result: dict[str, Any], body: str) -> list[str]:
    """Answers of the draft that are not in the body where the result says they landed."""
    out = []
    for use in result.get("answers", []):
        if use["effect"] not in ("answered", "joined"):
            continue
        value = draft.get("template_answers", {}).get(use["key"])
        if isinstance(value, str) and value.strip() and value.strip().split("\n")[0] not in body:
            out.append(use["key"])
    return out
