"""The parts a PR template is made of, as parse.py finds them and fill.py renders them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Kind = Literal[
    "heading",  # a heading or bold label; its role says what it asks
    "prompt",  # instruction to the author: comment, [bracketed], > quoted, 'please fill in', instruction bullet
    "checklist",  # boxes to tick, each decided on its own
    "options",  # a list to pick one from: boxes under 'choose one', '/kind' lines, 'One of [a | b]'
    "link",  # Fixes/Closes/Related #..., 'Linked issue:'
    "ai-value",  # 'AI usage: YES / NO'
    "process",  # for reviewers, CI, merge rules, bots: kept verbatim, nothing asked
    "code",  # a fenced block; an empty one is where a question's answer goes
    "details",  # <details>, <summary>, </details> markup
    "field",  # 'Device: <BLANK>', '* GPU:': one-line values, filled from the draft's facts by meaning
    "example",  # example items: '- Change A', '- *item1*': never posted
    "text",  # words no other kind claims: read as the template's instruction, never posted
    "cut",  # a line saying a bot removes what follows, and everything after it
]
Role = Literal["question", "process", "covered", "group"]
Style = Literal["atx", "setext", "label"]


@dataclass
class Box:
    index: int  # 0-based within the part
    line: int  # 0-based template line of the box
    end: int  # 0-based template line where the item's text ends (wrapped items)
    text: str  # the box's text, wrapped lines joined


@dataclass
class Part:
    id: str
    kind: Kind
    start: int  # 0-based first template line
    lines: list[str]  # verbatim
    gap: int = 0  # blank lines before the part in the template
    hidden: bool = False  # an HTML comment: not shown on GitHub
    # headings and labels
    title: str | None = None
    level: int = 0  # ATX/setext level; labels are 7, below every heading
    style: Style | None = None
    inline: str = ""  # a label's text after the colon: a prompt, a link or the template's own words
    inline_kind: Kind | None = None
    role: Role | None = None
    role_why: str = ""
    owner: str | None = None  # id of the heading or label the part sits under
    boxes: list[Box] = field(default_factory=list)
    options: list[str] = field(default_factory=list)  # for option lists: the values to pick from
    in_details: bool = False
    lead: bool = False  # a list item that leads the nested boxes under it ('- Patch releases:' over '  - [ ] Yes')
    meaning: str | None = None  # what the heading, label or field asks for (publish/meanings.py)
    meaning_why: str = ""

    @property
    def text(self) -> str:
        return "\n".join(self.lines)
