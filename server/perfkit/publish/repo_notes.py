"""The sentences of CONTRIBUTING, an AI policy file and the PR template that change what the user posts.

Four kinds: AI policy, sign-off (DCO, `git commit -s`, a CLA), title rules and other PR rules.
Text is read as sentences, not lines: a paragraph wrapped over several lines is joined first, so a
rule whose subject and verb sit on different lines ("does not accept pull requests that are /
predominantly AI-generated") is seen whole. Checklist items count too: "The title follows the
format [component]: description" is a title rule even as a box.

AI policy is read with care because the user decides from it whether to post at all:
- "AI" counts only as a word of its own, outside links, URLs and code, and never inside a
  hyphenated name ("Something-AI" is an organisation, "AI-generated" is about AI);
- every restricting sentence is reported (bans and requirements: "will be closed", "must
  disclose"), before the permissive ones ("AI tools are welcome"), with no cap that could cut a
  restricting sentence; the permissive ones are capped, they change nothing the user must do.
Title advice about issues ("use a short issue title") is not a PR title rule: a sentence that
speaks of issues and not of pull requests, or stands under a heading about reporting issues, is
skipped for titles.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from perfkit.publish.models import NoteKind, PolicyConflict, RepoNote
from perfkit.repo.contribution_files import RepoFiles
from perfkit.repo.template_text import BOX_RE, FENCE_RE

_POLICY_STEMS = ("contributing", "ai_policy", "ai-policy", "ai_usage", "ai-usage")
_TEXT_CAP = 300
_CAP = {"ai-policy": 3, "sign-off": 3, "title-rule": 3, "pr-rule": 3}  # the AI cap counts permissive sentences only

_LINK_RE = re.compile(r"\]\([^)\s]{0,500}\)|<https?://[^>\s]{0,500}>|https?://\S+|`[^`\n]{0,500}`")
_NAMED_AI_RE = re.compile(r"[\w.@]-AI\b|\bAI-(?=[A-Z])|@[\w-]*AI\b|[A-Za-z]AI\b|\bAI[A-Za-z]")
_AI_WORD_RE = re.compile(r"(?<![\w-])(?:AI|A\.I\.)(?![\w])")
_AI_TERMS_RE = re.compile(
    r"\b(?:llms?|large language models?|(?:coding|autonomous|software|ai) agents?|agentic|agent[- ](?:generated|"
    r"written|authored|driven)|copilot|chatgpt|claude|gpt-?\d\w*|machine[- ]generated|"
    r"(?:code|text|content) generat(?:ors?|ion) tools?)\b",
    re.I,
)
_AI_TOOL_RE = re.compile(
    r"(?<![\w-])AI[- ](?:generated|assisted|written|authored|tools?|assistance|assistants?|usage)\b"
)
_CONTRIBUTING_RE = re.compile(
    r"\b(?:contribut\w*|pull requests?|prs?|patch(?:es)?|commits?|submi\w*|review\w*|author\w*|disclos\w*|code|"
    r"descriptions?|tools?|assist\w*|generated|written|write|wrote|usage|policy)\b",
    re.I,
)
_POLICY_VERB_RE = re.compile(
    r"\b(?:must|required?|requires|disclos\w*|declar\w*|state|mention|label|mark|policy|allowed|permitted|"
    r"accept\w*|prohibit\w*|forbid\w*|ban\w*|responsib\w*|review\w*|reject\w*|close[ds]?|please|welcome\w*|"
    r"encourag\w*|may|can|cannot|should|fine|use|using|used|submit\w*|open\w*|says?|describ\w*)\b",
    re.I,
)
_RESTRICT_RE = re.compile(
    r"\b(?:not accept\w*|do not|don't|does not|doesn't|will not|won't|may not|must not|cannot|can't|never|"
    r"will be (?:closed|rejected|banned)|(?:is|are) (?:not )?(?:allowed|permitted)|not (?:allowed|permitted)|"
    r"prohibit\w*|forbid\w*|ban(?:s|ned)?|reject\w*|no (?:ai|llm)|must|required?|requires|mandatory|need to|"
    r"needs to|have to|has to|shall|only)\b",
    re.I,
)
_BAN_RE = re.compile(
    r"\b(?:not accept\w*|won't accept|will be (?:closed|rejected)|(?:is|are) not (?:allowed|permitted)|"
    r"not (?:allowed|permitted)|prohibit\w*|forbid\w*|ban(?:s|ned)?|reject\w*|no (?:ai|llm)|may not|must not|"
    r"do not (?:submit|open|send|use)|never (?:submit|open|send|use))\b",
    re.I,
)
_SIGNOFF_RE = re.compile(
    r"\b(?:signed-off-by|sign[- ]?offs?|signed[- ]off|signing off|dco|developer certificate of origin|cla|"
    r"contributor license agreements?|sign (?:your|all|each|every|the) (?:work|commits?|patch(?:es)?)|"
    r"sign your work|signed commits?)\b|--signoff\b|\bgit commit (?:-\w+ )*-s\b|`-s`|\(-s\)",
    re.I,
)
_SIGNOFF_ASK_RE = re.compile(
    r"\b(?:must|required?|requires|mandatory|need to|needs to|have to|please|not be accepted|will be rejected|"
    r"sign|use|add|run|certify|agree)\b",
    re.I,
)
_TITLE_RE = re.compile(
    r"\btitles?\b|\bnaming of (?:the )?(?:pull|merge) requests?\b|\b(?:pr|pull request|merge request) names?\b", re.I
)
_TITLE_SHAPE_RE = re.compile(
    r"\b(?:prefix|format|start|convention|tag|conventional commits?)\w*\b|\[[^\]\n]{1,60}\]|\b\w{1,30}\(\w{1,30}\):",
    re.I,
)
_ISSUE_RE = re.compile(r"\b(?:issues?|bug reports?)\b", re.I)
_SLOTS_RE = re.compile(r"\[[^\]\n]{0,80}\]|<[^>\n]{0,80}>|`[^`\n]{0,200}`")  # "[ticket]", "<issue>": a pattern's slots
_PR_WORD_RE = re.compile(r"\b(?:pull requests?|prs?|merge requests?|mrs?|patch(?:es)?|commits?)\b", re.I)
_ISSUE_HEADING_RE = re.compile(r"\b(?:issues?|bugs?|bug reports?|reporting|questions?|support)\b", re.I)
_PR_RE = re.compile(r"\b(?:pull requests?|prs?|merge requests?)\b", re.I)  # two searches, no '.*' between
_REQUIRED_RE = re.compile(r"\b(?:must|required?|requires|mandatory|need to)\b", re.I)
_STATEMENT_RE = re.compile(
    r"\b(?:descriptions?|statements?|include|state|mention|link|declare|confirm|checklist|template)\b", re.I
)
_HEADING_RE = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")  # the text is taken in Python: no pattern over a long line
_LIST_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\[*`\"'(])")


@dataclass(frozen=True)
class Sentence:
    line: int  # 1-based line where the sentence starts
    text: str
    box: bool  # a checklist item of the template
    heading: str  # the heading it stands under ('' before the first)


def _clean(line: str) -> str:
    t = re.sub(r"<!--|-->", " ", line)
    t = re.sub(r"^\s*(?:>\s*)+", "", t)  # quoted blocks and GitHub alerts
    t = re.sub(r"^\s*\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*", "", t)
    return t.strip()


def sentences(text: str) -> list[Sentence]:
    """Every sentence outside code fences, paragraphs joined across their wrapped lines; boxes one each."""
    out: list[Sentence] = []
    para: list[tuple[int, str]] = []
    heading = ""
    fence: str | None = None

    def flush() -> None:
        if not para:
            return
        offsets, off = [], 0
        for _, t in para:
            offsets.append(off)
            off += len(t) + 1
        joined = " ".join(t for _, t in para)
        pos = 0
        for chunk in _SENTENCE_END_RE.split(joined):
            at = joined.find(chunk, pos)
            pos = at + len(chunk)
            line = para[max(bisect_right(offsets, at) - 1, 0)][0]  # linear: no scan of the lines per sentence
            if chunk.strip():
                out.append(Sentence(line, chunk.strip(), False, heading))
        para.clear()

    for n, raw in enumerate(text.split("\n"), 1):
        m = FENCE_RE.match(raw)
        if m:
            flush()
            fence = None if fence else m.group(1)
            continue
        if fence:
            continue
        h = _HEADING_RE.match(raw)
        box = BOX_RE.match(raw)
        line = _clean(raw)
        if h:
            flush()
            heading = raw[h.end() :].strip().rstrip("#").strip()
            continue
        if box:
            flush()
            out.append(Sentence(n, box.group("text").strip(), True, heading))
            continue
        if not line:
            flush()
            continue
        if _LIST_RE.match(raw):
            flush()
            line = _LIST_RE.sub("", line)
        para.append((n, line))
    flush()
    return out


def _plain(text: str) -> str:
    """The sentence without links, URLs, code and names that merely contain 'AI'."""
    return _NAMED_AI_RE.sub(" ", _LINK_RE.sub(" ", text))


def mentions_ai(text: str) -> bool:
    plain = _plain(text)
    return bool(_AI_WORD_RE.search(plain) or _AI_TERMS_RE.search(plain))


def about_ai_use(text: str) -> bool:
    """A sentence on AI use in contributions: an AI tool named, or "AI" beside a word about contributing.

    ML projects say "AI" about their own subject ("train AI models on any hardware"); that is not a
    policy, so a bare "AI" needs a word about contributions (pull request, code, review, disclose,
    tools, generated) in the same sentence.
    """
    plain = _plain(text)
    if _AI_TERMS_RE.search(plain) or _AI_TOOL_RE.search(plain):
        return True
    return bool(_AI_WORD_RE.search(plain) and _CONTRIBUTING_RE.search(plain))


def _title_kind(s: Sentence) -> bool:
    if not (_TITLE_RE.search(s.text) and _TITLE_SHAPE_RE.search(s.text)):
        return False
    words = _SLOTS_RE.sub(" ", s.text)
    about_issues = _ISSUE_RE.search(words) or _ISSUE_HEADING_RE.search(s.heading)
    return not about_issues or bool(_PR_WORD_RE.search(words))


def kind_of(s: Sentence, from_template: bool) -> NoteKind | None:
    if about_ai_use(s.text) and _POLICY_VERB_RE.search(_plain(s.text)):
        return "ai-policy"
    if _SIGNOFF_RE.search(s.text) and (s.box or _SIGNOFF_ASK_RE.search(s.text)):  # a box is the ask
        return "sign-off"
    if _title_kind(s):
        return "title-rule"
    if s.box:
        return None
    t = s.text
    if not from_template and _PR_RE.search(t) and _REQUIRED_RE.search(t) and _STATEMENT_RE.search(t):
        return "pr-rule"
    return None


def restricts(text: str) -> bool:
    """An AI-policy sentence that bans or requires something, as opposed to one that allows."""
    return bool(_RESTRICT_RE.search(_plain(text)))


def policy_files(files: RepoFiles) -> list[str]:
    """CONTRIBUTING and AI-policy files at the root, .github/ and docs/, in that order."""
    out = []
    for base in ("", ".github", "docs"):
        for e in files.children(base):
            if e.name.lower().split(".", 1)[0] in _POLICY_STEMS and e.path in files.texts:
                out.append(e.path)
    return out


def read(
    files: RepoFiles, template_path: str | None, template_text: str
) -> tuple[list[RepoNote], list[PolicyConflict]]:
    """The notes, AI policy first (restricting sentences, then permissive), and the AI bans as conflicts."""
    sources: list[tuple[str, str]] = [(p, files.texts[p]) for p in policy_files(files)]
    if template_path:
        sources.append((template_path, template_text))
    found: list[tuple[NoteKind, bool, RepoNote]] = []
    seen: set[str] = set()
    for rel, text in sources:
        for s in sentences(text):
            kind = kind_of(s, rel == template_path)
            key = re.sub(r"\W+", " ", s.text.lower()).strip()
            if kind is None or key in seen:
                continue
            seen.add(key)
            strict = kind == "ai-policy" and restricts(s.text)
            found.append((kind, strict, RepoNote(source=rel, line=s.line, kind=kind, text=s.text[:_TEXT_CAP])))
    ai = [n for k, strict, n in found if k == "ai-policy" and strict]
    ai += [n for k, strict, n in found if k == "ai-policy" and not strict][: _CAP["ai-policy"]]
    rest: list[RepoNote] = []
    for other in ("sign-off", "title-rule", "pr-rule"):
        rest += [n for k, _, n in found if k == other][: _CAP[other]]
    conflicts = [
        PolicyConflict(
            source=n.source,
            line=n.line,
            text=n.text,
            why="the repo restricts AI-assisted contributions; the user decides whether and how to post",
        )
        for n in ai
        if _BAN_RE.search(_plain(n.text))
    ]
    return ai + rest, conflicts
