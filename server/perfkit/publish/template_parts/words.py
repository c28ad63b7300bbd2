"""What a line of a PR template says, read from its wording: an instruction, a process note, an option list.

Every pattern is anchored or bounded, so a line of any length is read in time linear in its length.
"""

from __future__ import annotations

import re

from perfkit.markdown.html import strip_comments

# an instruction to the author: starts with an asking word, or asks the author a question
_ASK_START = re.compile(
    r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:[_*]+\s*)?(?:\(\s*)?(?:please\b|pls\b|kindly\b|describe|explain|list\b|add\b|provide|"
    r"include|paste|link\b|attach|summari[sz]e|tell|give|write|share|mention|show|fill|replace|remove|delete|"
    r"complete|enter|insert|put|read (?:the|our|this)\b|"
    r"do the following|follow these|make sure|ensure|remember|select|choose|pick|tick|"
    r"check the|mark|uncomment|note\b|e\.g\.|eg\b|for example|"
    r"example:|optional|if (?:this|the|you|applicable|it|your|any)|why\b|what\b|how\b|which\b|where\b|when\b|"
    r"does\b|do you|did you|is this|are there|was\b|were\b|who\b|briefly|short description|"
    r"a (?:short|brief|one[- ]line)|"
    r"one[- ]line|your (?:description|summary|answer|text)|todo\b|tbd\b|xxx|insert|here goes|"
    r"you (?:can|may|should|must|might) (?:\w+ )?(?:add|describe|include|provide|list|link|explain|give|paste|attach|"
    r"write|mention|also|show|put|use|tag|call)|(?:before|after) (?:submitting|opening|you))",
    re.I,
)
_FILL_IN = re.compile(r"\b(?:fill(?:ed)?\s+(?:in|out|this)|(?:replace|delete|remove) (?:this|me|these)|here\W*$)", re.I)
# '<Describe the change here>': an angle-bracket blank, not an HTML tag
_ANGLE = re.compile(
    r"^\s*(?:[-*+]\s+)?<(?![!/]|(?:details|summary|br|p|div|img|a|sub|sup|b|i|em)\b)[A-Za-z][^<>\n]{2,200}>\s*$"
)
_QUESTION_END = re.compile(r"\?\s*+(?:[*_)]++\s*+)?:?\s*+$")
# bracketed or parenthesised instruction: "[Note which collection ...]", "(*link existing issues*)"
_BRACKET = re.compile(
    r"^\s*+(?:[-*+]\s++)?[*_]*+\s*+(?:\[(?!\s*+[xX]?\s*+\])[^\]\n]{3,}+\](?!\()|\([^)\n]{3,}+\))\s*+[*_]*+\s*+[.:]?\s*+$"
)
_QUOTE = re.compile(r"^\s*>\s?")
_PROCESS = re.compile(
    r"\b(?:reviewers?|review(?:ed|ing|s)?\b|maintainers?|ci\b|continuous integration|jenkins|pipelines?|workflows?|"
    r"github actions|merg(?:e|ed|es|ing)|squash|cherry-pick|bots?\b|approv(?:e|al|ed)|draft\b|/bot\b|labels?\b|"
    r"milestones?|buildkite|codeowners?|triage|stale)",
    re.I,
)
_MENTION = re.compile(r"(?<![\w.`])@[A-Za-z0-9][\w-]{0,38}\b")
_COMMAND = re.compile(r"^\s*(?:[-*+]\s+)?`?(?:@[\w-]+(?:\[bot\])?\s+\w|/[a-z][\w-]*\b)")
_AUTHOR_ASK = re.compile(
    r"\b(?:describe|explain|summari[sz]e|fill|list (?:the|your|any)|add (?:a|the|your|any)|provide|paste|include)\b",
    re.I,
)

# headings and labels addressed to reviewers, CI and bots, not to the author
_PROCESS_HEADING = re.compile(
    r"^(?:who (?:can|should|to|may) review(?: this)?|"
    r"(?:code |pr |pull request )?review(?:ing)?(?: process| guidelines?)?|"
    r"reviewers?|for (?:the )?reviewers?(?: only)?|reviewers? checklist|review checklist|maintainers? checklist|"
    r"(?:how to |when to )?merg(?:e|ing)(?: rules| process| policy| checklist)?|"
    r"(?:\w+ )*ci|continuous integration|(?:\w+ )*jenkins(?: \w+)*|(?:\w+ )*bot(?: \w+)*|(?:\w+ )*commands?|"
    r"for maintainers?|maintainers?(?: only| checklist)?|cc|tag(?:ging)? reviewers|approvals?|release process|"
    r"pinging|ping)$",
    re.I,
)
# an option list: 'choose one', 'select one of the following', 'type of change', 'PR category'
_ONE_OF = re.compile(
    r"\b(?:(?:choose|select|pick|tick|check|mark|add)\s+(?:one|only one|exactly one|one or more|any|all)\b|one of\b|"
    r"uncomment|delete (?:the )?options? that|remove (?:the )?options? that|whichever applies)",
    re.I,
)
_KIND_TITLE = re.compile(
    r"\b(?:type|types|kind|kinds|category|categories|classif\w*|area|areas|component|components|labels?)\b", re.I
)
_COMMENT_ONE_OF = re.compile(r"\bone of\s*+:?\s*+\[([^\]\n]*+)\]", re.I)
_SLASH_OPTION = re.compile(r"^\s*(/[a-z][\w-]*\s+[\w./-]+)\s*$", re.I)


def is_prompt(text: str) -> bool:
    """Words asking the author to write something, not words of the template's own."""
    first = next((ln for ln in text.split("\n") if ln.strip()), "")
    return bool(
        is_instruction(text)
        or _ASK_START.match(first)
        or _BRACKET.match(first)
        or _FILL_IN.search(text)
        or (_QUESTION_END.search(first) and len(first) < 200)
        or (_shouted(first) and len(first.split()) >= 3)
        or bool(_ANGLE.match(first))
    )


def _shouted(line: str) -> bool:
    """A line in capitals ('PLEASE FILL IN THE DESCRIPTION'): an instruction, however it is worded."""
    letters = re.sub(r"https?://\S+|[^A-Za-z]", "", line)
    return len(letters) > 8 and letters.isupper()


_WRITE_ASK = re.compile(
    r"\b(?:describe|explain|fill|write|list|add|provide|include|paste|summari[sz]e|give|tell|link|answer|mention|"
    r"why|what|how|which)\b",
    re.I,
)


def asks_to_write(text: str) -> bool:
    """Whether a prompt asks for words from the author, not only to read or keep something."""
    return bool(_WRITE_ASK.search(text))


def is_bracket(text: str) -> bool:
    return bool(_BRACKET.match(text))


def is_quote(line: str) -> bool:
    return bool(_QUOTE.match(line))


def is_process(text: str) -> bool:
    """Said to reviewers, CI or bots (or tagging them), and asking the author for nothing."""
    if _COMMAND.match(text) or _MENTION.search(text):
        return True
    return bool(_PROCESS.search(text)) and not _AUTHOR_ASK.search(text)


def is_process_heading(norm: str) -> bool:
    return bool(_PROCESS_HEADING.match(norm)) and not re.search(r"\b(?:notes?|risks?|special)\b", norm)


_DELETE_OPTIONS = re.compile(
    r"\b(?:delete|remove|strike)\b[^.\n]{0,40}\b(?:options?|lines?|items?|ones?)\b[^.\n]{0,30}"
    r"\b(?:not|n't|don't|do not)\b",
    re.I,
)


def asks_to_delete_options(text: str) -> bool:
    """'Please delete options that are not relevant.': the bullets after it are a list to pick from."""
    return bool(_DELETE_OPTIONS.search(text))


def asks_one_of(text: str) -> bool:
    return bool(_ONE_OF.search(text))


def is_kind_title(norm: str) -> bool:
    return bool(_KIND_TITLE.search(norm))


def comment_options(text: str) -> list[str]:
    """Options a comment lists to pick from: 'One of [ a | b ]', or several '/kind x' lines to uncomment."""
    m = _COMMENT_ONE_OF.search(text)
    if m and "|" in m.group(1):
        return [o.strip() for o in m.group(1).split("|") if o.strip()]
    slash = [
        m.group(1) for ln in text.split("\n") if (m := _SLASH_OPTION.match(ln.replace("<!--", "").replace("-->", "")))
    ]
    return slash if len(slash) >= 2 else []


# words about the template itself, for the author: '[PLEASE REMOVE] ...', 'Thanks for your contribution!
# The following instructions ...', 'Ex. I am always frustrated when [...]', '<BLANK>'
_TAG = re.compile(r"^\s*+(?:[-*+]\s++|\d+[.)]\s++)?[*_]*+\[\s*+[A-Z][A-Z _/-]{2,40}\]")
_INSTRUCTION = re.compile(
    r"\b(?:instructions?|this template|the template|the following (?:sections?|instructions?|steps?|items?|"
    r"guidelines?|questions?)|(?:thanks?|thank you)\b[^.!\n]{0,60}\b(?:contribut\w*|pull request|pr|submitting|"
    r"opening)|clear and concise|please (?:make sure|ensure|be sure|remember|first|open|share|read|fill|describe|"
    r"provide|add|link|include|reference|refer|note|use|follow|check)\b|make sure (?:to|that|you)|"
    r"a concise description|"
    r"ex\.\s|e\.g\.|for example|placeholder|"
    r"(?:required|optional|mandatory) (?:section|field)|this (?:section|field) is (?:required|optional|mandatory))",
    re.I,
)
_BLANK = re.compile(r"<\s*(?:blank|empty|fill[ _-]?in|todo|tbd|here|\.\.\.|…)\s*>|_{3,}|(?<!\.)\.{3,}+\s*$|…\s*$", re.I)


def is_instruction(text: str) -> bool:
    """Text about the template or to the author, whatever its shape; never the repo's own statement."""
    visible = strip_comments(text)
    first = next((ln for ln in visible.split("\n") if ln.strip()), "")
    return bool(_TAG.match(first) or _INSTRUCTION.search(visible[:2000]) or _BLANK.search(first))


# a legal or licensing note the author agrees to by posting: kept as written
_LEGAL = re.compile(
    r"\b(?:licen[sc]e[ds]?|copyright|contributor license agreement|cla\b|dco\b|developer certificate|"
    r"by (?:submitting|opening|contributing|sending)|i (?:agree|certify|confirm that)|terms of|"
    r"intellectual property|signed[- ]off[- ]by)",
    re.I,
)


def is_legal(text: str) -> bool:
    return bool(_LEGAL.search(text[:2000]))


# an example item: '- Change A', '- *item1*', '- ...', '1. Foo', '- Item 2', '- xxx'
_EXAMPLE = re.compile(
    r"^\s*+(?:[-*+]|\d+[.)])\s++[*_`]*+\s*+(?:\.{2,}|…|x{2,}|etc\.?|(?:[A-Za-z]+[ _-]?(?:[A-Z]|\d{1,2}|\.\.\.))|"
    r"(?:item|change|feature|fix|step|thing|point|example|foo|bar|baz|todo|tbd)s?[ _-]?\w{0,2})\s*+[*_`]*+\s*+$",
    re.I,
)


def is_example_item(line: str) -> bool:
    return bool(_EXAMPLE.match(line))


# a field to fill on one line: 'Device:', 'Model used: <BLANK>', '* GPU: [e.g. A100]', 'Decode speed: ___'
_FIELD_LINE = re.compile(
    r"^\s*+(?:[-*+]\s++)?(?:\*\*|__)?(?P<label>[A-Za-z][\w ()/.+-]{0,60}?)(?:\*\*|__)?\s*+:\s*+(?:\*\*|__)?\s*+"
    r"(?P<value>|<[^<>\n]{0,80}>|\[[^\]\n]{0,120}\]|\([^)\n]{0,120}\)|_{2,}|\.{2,}|…|x{2,}|n/?a|\?+|"
    r"(?:e\.g\.|ex\.|eg)[^\n]{0,120}|<!--.*?-->)\s*+$",
    re.I,
)


def field_label(line: str) -> str | None:
    """The label of a one-line field left for the author to fill, or None."""
    m = _FIELD_LINE.match(line)
    if not m or len(m.group("label").split()) > 8:
        return None
    return m.group("label").strip()
