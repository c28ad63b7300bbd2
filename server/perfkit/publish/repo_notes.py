"""The sentences of a repository's contribution files that change what the user posts, read as rules with kinds.

Seven kinds: AI policy (use and disclosure), sign-off (DCO, `git commit -s`), CLA, title rules, required
labels, required tests and other PR rules. perfkit.publish.rule_search says which files are read
(CONTRIBUTING in any of its places, AI policy files, agent files, the PR template, the README's
contributing section and the guides they link to); perfkit.publish.pr_checks adds the title and label
rules a workflow enforces; perfkit.publish.rule_params reads what following each rule needs. Every rule
keeps its file and line, and how the file was reached.

Text is read as sentences, not lines: a paragraph wrapped over several lines is joined first, so a
rule whose subject and verb sit on different lines ("does not accept pull requests that are /
predominantly AI-generated") is seen whole. Checklist items count too: "The title follows the
format [component]: description" is a title rule even as a box. Code is not prose: fenced blocks,
RST literal blocks and comments (a license header) and folder trees are skipped, so "LLM" in a line
of a directory tree is no AI policy and a DCO's legal clauses are not rules.

AI policy is read with care because the user decides from it whether to post at all:
- "AI" counts only as a word of its own, outside links, URLs and code, and never inside a
  hyphenated name ("Something-AI" is an organisation, "AI-generated" is about AI); "AI" or "LLM"
  alone is the project's subject ("serve LLMs") unless the sentence speaks of contributions;
- every restricting sentence is reported (bans and requirements: "will be closed", "must
  disclose"), before the permissive ones ("AI tools are welcome"), with no cap that could cut a
  restricting sentence; the permissive ones are capped, they change nothing the user must do.
A CLA is its own kind, never a sign-off rule, and a license header that mentions "contributor
license agreements" is neither. Title advice about issues ("use a short issue title") is not a PR
title rule: a sentence that speaks of issues and not of pull requests, or stands under a heading
about reporting issues, is skipped for titles.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path

from perfkit.markdown.blocks import ATX_RE, BOX_RE, FENCE_RE
from perfkit.publish import rule_params
from perfkit.publish.models import NoteKind, PolicyConflict, RepoRule
from perfkit.publish.rule_search import Source, Start
from perfkit.repo.contribution_files import RepoFiles

_TEXT_CAP = 300
_CAP: dict[NoteKind, int] = {  # the AI cap counts permissive sentences only
    "ai-policy": 3,
    "sign-off": 3,
    "cla": 2,
    "title-rule": 3,
    "labels": 3,
    "tests": 3,
    "pr-rule": 4,
}
_ORDER: tuple[NoteKind, ...] = ("sign-off", "cla", "title-rule", "labels", "tests", "pr-rule")

_LINK_RE = re.compile(r"\]\([^)\s]{0,500}\)|<https?://[^>\s]{0,500}>|https?://\S+|`[^`\n]{0,500}`")
_LINK_TEXT_RE = re.compile(r"\[[^\[\]\n]{0,200}\]\([^)\s]{0,500}\)")  # a link's text names where a policy is
_NAMED_AI_RE = re.compile(r"[\w.@]-AI\b|\bAI-(?=[A-Z])|@[\w-]*AI\b|[A-Za-z]AI\b|\bAI[A-Za-z]")
_AI_UPPER_RE = re.compile(r"(?<![\w-])(?:AI|A\.I\.)(?![\w])|(?i:\b(?:llms?|large language models?)\b)")
_AI_TERMS_RE = re.compile(
    r"\b(?:(?:coding|autonomous|software|ai|llm) agents?|agentic|agent[- ](?:generated|"
    r"written|authored|driven)|copilot|chatgpt|claude|gpt-?\d\w*|"
    r"(?:code|text|content) generat(?:ors?|ion) tools?)\b",
    re.I,
)
_AI_TOOL_RE = re.compile(
    r"(?<![\w-])(?:AI|LLM)[- ](?:generated|assisted|written|authored|tools?|assistance|assistants?|usage|use)\b|"
    r"\b(?:use[ds]?|using) (?:of )?(?:an? |the )?(?:AI|LLMs?)(?! models?)\b",
    re.I,
)
_AGENT_WORD_RE = re.compile(r"\bagents?\b", re.I)
_AGENT_DISCLOSURE_RE = re.compile(
    r"\b(?:disclos\w*|trailer|co-authored-by|assisted-by|generated-by|authored|wrote|written by)\b", re.I
)
_AI_SECTION_RULE_RE = re.compile(
    r"\b(?:pull requests?|prs?|patch(?:es)?|commits?|contribut\w*|descriptions?|submi\w*|push\w*|review\w*|"
    r"comments?|issues?|respond\w*|repository)\b",
    re.I,
)
_CONTRIBUTING_RE = re.compile(
    r"\b(?:contribut\w*|pull requests?|prs?|patch(?:es)?|commits?|submi\w*|review\w*|author\w*|disclos\w*|"
    r"descriptions?|assist\w*|generated|written|policy)\b",
    re.I,
)
_POLICY_VERB_RE = re.compile(
    r"\b(?:must|required?|requires|disclos\w*|declar\w*|state|mention|label|mark|policy|allowed|permitted|"
    r"accept\w*|prohibit\w*|forbid\w*|ban\w*|responsib\w*|review\w*|reject\w*|close[ds]?|please|welcome\w*|"
    r"encourag\w*|may|can|cannot|should|fine|use|using|used|submit\w*|open\w*|says?|describ\w*|support\w*|"
    r"expect\w*)\b",
    re.I,
)
_RESTRICT_RE = re.compile(
    r"\b(?:not accept\w*|do not|don't|does not|doesn't|will not|won't|may not|must not|cannot|can't|never|"
    r"will be (?:closed|rejected|banned)|(?:is|are) (?:not )?(?:allowed|permitted)|not (?:allowed|permitted)|"
    r"prohibit\w*|forbid\w*|ban(?:s|ned)?|reject\w*|no (?:ai|llm)|must|required?|requires|mandatory|need to|"
    r"needs to|have to|has to|shall|only|(?:are|is) expected to|(?:are|is) (?:fully |solely |100% )?responsible|"
    r"strongly recommend\w*)\b",
    re.I,
)
_BAN_RE = re.compile(
    r"\b(?:not accept\w*|won't accept|will be (?:closed|rejected)|(?:is|are) not (?:allowed|permitted)|"
    r"not (?:allowed|permitted)|prohibit\w*|forbid\w*|ban(?:s|ned)?|reject\w*|no (?:ai|llm)|may not|must not|"
    r"do not (?:submit|open|send|use|create|write|run|push|respond)|never (?:submit|open|send|use|create|write))\b",
    re.I,
)
_SIGNOFF_RE = re.compile(
    r"\b(?:signed-off-by|sign[- ]?offs?|signed[- ]off|signing off|dco|developer certificate of origin|"
    r"sign (?:your|all|each|every|the) (?:work|commits?|patch(?:es)?)|sign your work|signed commits?)\b|"
    r"--signoff\b|(?-i:\bgit commit (?:-\w+ )*-s\b|`-s`|\(-s\))",
    re.I,
)
_SIGNOFF_ASK_RE = re.compile(
    r"\b(?:must|required?|requires|mandatory|need to|needs to|have to|please|not be accepted|will be rejected|"
    r"sign|use|add|run|certify|agree)\b",
    re.I,
)
_CLA_RE = re.compile(
    r"\bCLAs?\b|\b[CI]CLA\b|\b(?:individual |corporate )?contributor'?s? licen[cs]e agreements?\b|cla[- ]assistant|"
    r"\beasycla\b",
    re.I,
)
_CLA_ASK_RE = re.compile(
    r"\b(?:sign\w*|agree\w*|accept\w*|submit\w*|complet\w*|required?|requires|must|need(?:s|ed)? to|before|"
    r"accompanied|covered)\b|签署|签",
    re.I,
)
_LICENSE_HEADER_RE = re.compile(r"\blicensed to\b|\bunder one or more contributor license agreements\b", re.I)
_TITLE_RE = re.compile(
    r"\btitles?\b|\bnaming of (?:the )?(?:pull|merge) requests?\b|\b(?:pr|pull request|merge request) names?\b|"
    r"\b(?:commit|pr|pull request) tags?\b|标题",
    re.I,
)
_TITLE_SHAPE_RE = re.compile(
    r"\b(?:prefix|format|start|convention|tag|conventional commits?|imperative|mood|capitali[sz]\w*)\w*\b|"
    r"\[[^\]\n]{1,60}\]|\b\w{1,30}\(\w{1,30}\):|必须|开头|格式",
    re.I,
)
_ISSUE_RE = re.compile(r"\b(?:issues?|bug reports?)\b", re.I)
_COMMIT_FORM_RE = re.compile(r"\bcommit\b[^.]{0,60}?\b(?:messages?|subjects?|titles?)\b", re.I)
_SLOTS_RE = re.compile(r"\[[^\]\n]{0,80}\]|<[^>\n]{0,80}>|`[^`\n]{0,200}`")  # "[ticket]", "<issue>": a pattern's slots
_PR_WORD_RE = re.compile(r"\b(?:pull requests?|prs?|merge requests?|mrs?|patch(?:es)?|commits?)\b", re.I)
_ISSUE_HEADING_RE = re.compile(r"\b(?:issues?|bugs?|bug reports?|reporting|questions?|support)\b", re.I)
_PR_RE = re.compile(r"\b(?:pull requests?|prs?|merge requests?)\b", re.I)  # two searches, no '.*' between
_REQUIRED_RE = re.compile(
    r"\b(?:must|required?|requires|mandatory|need to|needs to|make sure|ensure|always|never|do not|don't)\b", re.I
)
_STATEMENT_RE = re.compile(
    r"\b(?:descriptions?|statements?|include|state|mention|link|declare|confirm|checklist|template|drafts?|"
    r"squash\w*|single commit|one commit|fork|body)\b",
    re.I,
)
_IN_DESCRIPTION_RE = re.compile(
    r"\b(?:report|include|describe|explain|list|link|add|mention|state|provide|paste|attach)\b[^.]{0,120}\bin the "
    r"(?:pr|pull request)(?:'s)? (?:description|body)\b",
    re.I,
)
_DESCRIPTION_HOLDS_RE = re.compile(
    r"\b(?:pr|pull request)(?:'s)? descriptions? (?:should|must|needs? to|has to|shall) "
    r"(?:contain|include|have|state|describe|explain|link|list|mention)",
    re.I,
)
_BENCH_RE = re.compile(r"\bbenchmark\w*|\bperformance (?:results?|numbers|improvements?|data)\b|\bbefore/after\b", re.I)
_BENCH_DO_RE = re.compile(r"\b(?:run|report|include|provide|attach|show|paste|share|post)\b", re.I)
_TEMPLATE_USE_RE = re.compile(
    r"\b(?:use|fill\w*|follow\w*|keep|preserve|complete)\b[^.]{0,60}\b(?:pr|pull request) template\b|"
    r"\b(?:pr|pull request) (?:description|body)\b[^.]{0,80}\b(?:keep|preserve|do not (?:remove|delete|edit))\b|"
    r"\b(?:pr|pull request) template\b[^.]{0,80}\bdo not (?:overwrite|remove|delete|replace)",
    re.I,
)
_LABEL_RE = re.compile(r"\blabel(?:s|ed|led)?\b", re.I)
_LABEL_ASK_RE = re.compile(
    r"\b(?:must|required?|requires|need(?:s)? to|should|please|make sure|ensure|always)\b|"
    r"^(?:add|apply|set|tag|label)\b",
    re.I,
)
_AUTOMATIC_RE = re.compile(r"\bautomatic\w*|\bbots?\b|\bby (?:the )?(?:ci|workflow|maintainers?)\b", re.I)
_TESTS_RE = re.compile(  # "tests", "a test", "test cases"; not the verb ("to properly test Jenkinsfile changes")
    r"\btests\b|\btest\(s\)|\b(?:a|the|new|unit|regression|integration|relevant|corresponding|matching|any|each|"
    r"every|e2e|end-to-end|ci)[- ]test\b|`[^`\n]{1,60}` test\b|"
    r"\btest[- ](?:cases?|suites?|plans?|files?|coverage)\b|测试",
    re.I,
)
_URLS_RE = re.compile(r"<?https?://[^\s>`]+>?")
_TESTS_ASK_RE = re.compile(
    r"\b(?:must|required?|requires|requirement|make sure|ensure|needs?|should|please|always|have to)\b|必须|需", re.I
)
_TESTS_IMPERATIVE_RE = re.compile(
    r"^(?:\*\*)?(?:add|write|run|include|update|make sure|ensure|verify)\b[^.:]{0,25}?\b(?:tests?|test\(s\)|测试)\b",
    re.I,
)
_TEST_COMMAND_RE = re.compile(
    r"\b(?:pytest|make (?:test|check)\w*|ctest|tox|nox|npm (?:run )?test|cargo test|bazel test|go test|unittest)\b"
)
_STEP_ASK_RE = re.compile(r"^(?:\d+[.)]\s*)?(?:before|check|run|make sure|ensure|please|test)\b", re.I)
_TESTS_DO_RE = re.compile(
    r"\b(?:add\w*|writ\w*|run\w*|pass\w*|includ\w*|cover\w*|updat\w*|provid\w*|accompan\w*|verif\w*|"
    r"corresponding|matching)\b|用例",
    re.I,
)
_TESTS_CONTEXT_RE = re.compile(
    r"\b(?:prs?|pull requests?|contribut\w*|submi\w*|commit\w*|push\w*|merg\w*|new (?:features?|functionality|"
    r"code|kernels?|ops?)|bug ?fix\w*|patch\w*|changes?|locally)\b",
    re.I,
)
_FIRST_PERSON_RE = re.compile(r"^\W*(?:\([a-z]\)\s*)?I\b(?!\.)")
_TABLE_ROW_RE = re.compile(r"^\s*\|| \| .* \| |<br>.* \| ")
_SUMMARY_RE = re.compile(r"^\s*<summary>(.*?)</summary>\s*$", re.I)
_LIST_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])(?:\*\*|__)?\s+(?=[A-Z\[*`\"'(])|(?<=[。！？])")
_TREE_RE = re.compile(r"[│├└┬┼─]|^\s*(?:\|--|\+--|`--|\|__)")
_UNDERLINE_RE = re.compile(r"^([=\-~^\"'`#*+<>:._])\1{2,}\s*$")
_RST_BLOCK_RE = re.compile(
    r"^\s*\.\.\s+(?:(?:code-block|code|sourcecode|literalinclude|highlight|toctree|image|figure|raw|include|"
    r"only|autosummary|automodule|autoclass|csv-table|list-table|math|graphviz|role|_[^:]*)::.*|[^\s:].*|)$",
    re.I,
)
_RST_ADMONITION_RE = re.compile(
    r"^\s*\.\.\s+(?:note|tip|important|warning|caution|attention|danger|hint|admonition|seealso)::\s*(.*)$", re.I
)


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


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _drop_tags(text: str) -> str:
    """Text with each `<...>` (a '<', then the next '>' at least one character on) removed, as
    re.sub(r"<[^>]+>", "", text) would, found with str.find: linear where that pattern is quadratic
    on a line of '<' with no '>'."""
    out: list[str] = []
    start = 0
    while (lt := text.find("<", start)) >= 0 and (gt := text.find(">", lt + 1)) >= 0:
        if gt == lt + 1:  # '<>' holds no tag; look again after the '<'
            out.append(text[start : lt + 1])
            start = lt + 1
            continue
        out.append(text[start:lt])
        start = gt + 1
    out.append(text[start:])
    return "".join(out)


@dataclass
class _Reader:
    """sentences()'s state over one file: the paragraph being joined, the heading, the code it is in."""

    out: list[Sentence] = field(default_factory=list)
    para: list[tuple[int, str]] = field(default_factory=list)
    heading: str = ""
    fence: str | None = None
    literal: int | None = None  # indentation an RST literal block must exceed; None outside one

    def flush(self) -> None:
        if not self.para:
            return
        offsets, off = [], 0
        for _, t in self.para:
            offsets.append(off)
            off += len(t) + 1
        joined = " ".join(t for _, t in self.para)
        pos = 0
        for chunk in _SENTENCE_END_RE.split(joined):
            at = joined.find(chunk, pos)
            pos = at + len(chunk)
            line = self.para[max(bisect_right(offsets, at) - 1, 0)][0]  # linear: no scan of the lines per sentence
            if chunk.strip():
                self.out.append(Sentence(line, chunk.strip(), False, self.heading))
        self.para.clear()

    def code(self, raw: str) -> bool:
        """The line is code (a fence, an RST literal block or comment); the block's state is kept."""
        if FENCE_RE.match(raw):
            self.flush()
            self.fence = None if self.fence else FENCE_RE.match(raw).group(1)  # type: ignore[union-attr]
            return True
        if self.fence:
            return True
        if self.literal is not None:
            if not raw.strip() or _indent(raw) > self.literal:
                return True
            self.literal = None
        if _RST_BLOCK_RE.match(raw) and not _RST_ADMONITION_RE.match(raw):
            self.flush()
            self.literal = _indent(raw)
            return True
        return False

    def structure(self, n: int, raw: str) -> bool:
        """The line is a heading (ATX, setext or RST underline, `<summary>`), a folder tree or a table row."""
        if _UNDERLINE_RE.match(raw) and len(self.para) == 1 and self.para[0][0] == n - 1:
            self.heading = self.para[0][1]
            self.para.clear()
            return True
        summary = _SUMMARY_RE.match(raw)
        h = ATX_RE.match(raw)  # the text is taken in Python: no pattern over a long line
        if h or summary:
            self.flush()
            title = summary.group(1) if summary else raw[h.end() :] if h else ""
            self.heading = _drop_tags(title).strip().rstrip("#").strip()
            return True
        if _TREE_RE.search(raw) or _TABLE_ROW_RE.search(raw):
            self.flush()  # folder trees and table rows are reference data, not sentences
            return True
        return False

    def prose(self, n: int, raw: str) -> None:
        box = BOX_RE.match(raw)
        line = _clean(raw)
        if box:
            self.flush()
            self.out.append(Sentence(n, box.group("text").strip(), True, self.heading))
            return
        if not line:
            self.flush()
            return
        if _LIST_RE.match(raw):
            self.flush()
            line = _LIST_RE.sub("", line)
        ends_literal = line.endswith("::") and not line.startswith("..")
        self.para.append((n, line[:-1] if ends_literal else line))
        if ends_literal:
            self.flush()
            self.literal = _indent(raw)


def sentences(text: str, span: tuple[int, int] | None = None) -> list[Sentence]:
    """Every sentence outside code, paragraphs joined across their wrapped lines; boxes one each.

    Code is fenced blocks, RST literal blocks (after '::' or a code directive) and RST comments, and
    folder trees and table rows are skipped; a line underlined with '===' or '---' (setext, RST) is a
    heading, as is a `<summary>` line. span limits the lines read (1-based, inclusive).
    """
    r = _Reader()
    lines = text.split("\n")
    lo, hi = span or (1, len(lines))
    for n in range(lo, min(hi, len(lines)) + 1):
        raw = lines[n - 1]
        if r.code(raw):
            continue
        adm = _RST_ADMONITION_RE.match(raw)
        if adm:
            r.flush()
            raw = adm.group(1)
        if not r.structure(n, raw):
            r.prose(n, raw)
    r.flush()
    return r.out


def _plain(text: str) -> str:
    """The sentence without links (their text too: "read our [AI policy](x)" points to a rule, it is
    not one), URLs, code and names that merely contain 'AI'."""
    return _NAMED_AI_RE.sub(" ", _LINK_RE.sub(" ", _LINK_TEXT_RE.sub(" ", text)))


def mentions_ai(text: str) -> bool:
    plain = _plain(text)
    return bool(_AI_UPPER_RE.search(plain) or _AI_TERMS_RE.search(plain))


def about_ai_use(text: str) -> bool:
    """A sentence on AI use in contributions: an AI tool named, or "AI"/"LLM" beside a word about contributing.

    ML projects say "AI" and "LLM" about their own subject ("train AI models on any hardware", "serve
    LLMs"); that is not a policy, so a bare "AI" or "LLM" needs a word about contributions (pull
    request, commit, review, disclose, generated, submit) in the same sentence, or is used as a tool
    ("AI-assisted", "using an LLM to").
    """
    plain = _plain(text)
    if _AI_TERMS_RE.search(plain) or _AI_TOOL_RE.search(plain):
        return True
    return bool(_AI_UPPER_RE.search(plain) and _CONTRIBUTING_RE.search(plain))


def _ai_heading(heading: str, start: Start) -> bool:
    """A heading over an AI policy: it speaks of AI, or, in a file written for agents, of agents' rules."""
    if mentions_ai(heading):
        return True
    return start == "agents" and bool(re.search(r"\bagent(?:s|ic)?\b", heading, re.I))


def _title_kind(s: Sentence, prev: Sentence | None = None) -> bool:
    """A title rule: it speaks of titles and shows a shape. The title may be named in the sentence before,
    in the same list item ("Task name should be clarified in title. The general format is: [Prefix] ...");
    a commit message's form with slots (`[Module:Type] Summary`) is the title's too (squash merges
    make the title the commit's subject)."""
    titled = bool(
        _TITLE_RE.search(s.text)
        or (prev is not None and s.line - prev.line <= 1 and not prev.box and _TITLE_RE.search(prev.text))
        or (_COMMIT_FORM_RE.search(s.text) and rule_params.has_pattern(s.text))
    )
    if not (titled and _TITLE_SHAPE_RE.search(s.text)):
        return False
    words = _SLOTS_RE.sub(" ", s.text)
    about_issues = _ISSUE_RE.search(words) or _ISSUE_HEADING_RE.search(s.heading)
    return not about_issues or bool(_PR_WORD_RE.search(words))


def _labels_kind(s: Sentence) -> bool:
    t = _URLS_RE.sub(" ", _plain(s.text) if "`" not in s.text else s.text)  # "labels=" in a link is no rule
    if not _LABEL_RE.search(t) or _AUTOMATIC_RE.search(t) or _ISSUE_HEADING_RE.search(s.heading):
        return False
    if _ISSUE_RE.search(t) and not _PR_WORD_RE.search(t):
        return False
    return bool(_LABEL_ASK_RE.search(t.strip("*_ ")) and (_PR_WORD_RE.search(t) or re.search(r"`[^`]+`", t)))


def _tests_kind(s: Sentence, start: Start) -> bool:
    t = _LINK_RE.sub(" ", s.text) if "`" not in s.text else re.sub(r"\]\([^)\s]{0,500}\)", " ", s.text)
    if not (_TESTS_RE.search(t) and _TESTS_DO_RE.search(t)):
        return False
    if _ISSUE_HEADING_RE.search(s.heading) and not _PR_WORD_RE.search(t):
        return False
    asked = _TESTS_ASK_RE.search(t) or _TESTS_IMPERATIVE_RE.search(t.strip())
    if not asked:
        return False
    return start == "contributing" or bool(_TESTS_CONTEXT_RE.search(t))


def kind_of(s: Sentence, start: Start, prev: Sentence | None = None) -> NoteKind | None:
    """The kind of rule a sentence states, or None. Boxes state only AI, sign-off, CLA and title rules:
    the PR template's other boxes are the template's own checklist."""
    if about_ai_use(s.text) and _POLICY_VERB_RE.search(_plain(s.text)):
        return "ai-policy"
    if start == "agents" and _AGENT_WORD_RE.search(_plain(s.text)) and _AGENT_DISCLOSURE_RE.search(s.text):
        return "ai-policy"  # in a file written for agents, "an agent" is the AI tool
    if _ai_heading(s.heading, start) and _AI_SECTION_RULE_RE.search(_plain(s.text)) and restricts(s.text):
        return "ai-policy"  # under "AI tool use" or an agent file's "Agent rules", a rule on PRs is about AI
    if not s.box and _FIRST_PERSON_RE.match(s.text):
        return None  # a certificate's clause ("(d) I understand and agree ..."), not a rule
    if _SIGNOFF_RE.search(s.text) and (s.box or _SIGNOFF_ASK_RE.search(s.text)):  # a box is the ask
        return "sign-off"
    if _CLA_RE.search(s.text) and (s.box or _CLA_ASK_RE.search(s.text)) and not _LICENSE_HEADER_RE.search(s.text):
        return "cla"
    if _title_kind(s, prev):
        return "title-rule"
    if s.box:
        return None
    if _labels_kind(s):
        return "labels"
    if _tests_kind(s, start):
        return "tests"
    t = s.text
    if start == "pr-template":
        return None
    if _PR_RE.search(t) and _REQUIRED_RE.search(t) and _STATEMENT_RE.search(t):
        return "pr-rule"
    if _IN_DESCRIPTION_RE.search(t) or _TEMPLATE_USE_RE.search(t) or _DESCRIPTION_HOLDS_RE.search(t):
        return "pr-rule"
    if _BENCH_RE.search(t) and _BENCH_DO_RE.search(t) and _PR_WORD_RE.search(t):
        return "pr-rule"  # a performance PR's evidence: what to run and show
    return None


_NOT_BANNED_RE = re.compile(
    r"\b(?:doesn't|does not|do not|don't|is not|isn't|not|never) (?:(?:\w+ ){0,2})?(?:prohibit\w*|forbid\w*|ban\w*|"
    r"reject\w*)",
    re.I,
)


def _unnegated(text: str) -> str:
    """The sentence without a negated prohibition ("doesn't prohibit the use of ..." allows)."""
    return _NOT_BANNED_RE.sub(" ", _plain(text))


_IMPERATIVE_RE = re.compile(
    r"^\W*(?:disclos\w*|state|declare|mention|label|mark|add|include|name|note|tag|identify)\b|"
    r"\bplease (?:state|disclose|declare|mention|include|add|label|note|indicate)\b",
    re.I,
)


def restricts(text: str) -> bool:
    """An AI-policy sentence that bans or requires something ("Disclose AI assistance ..." too), as
    opposed to one that allows."""
    return bool(_RESTRICT_RE.search(_unnegated(text)) or _IMPERATIVE_RE.search(text))


def bans(text: str) -> bool:
    """An AI-policy sentence that refuses something (not accepted, closed, must not): a policy conflict."""
    return bool(_BAN_RE.search(_unnegated(text)))


def _required(kind: NoteKind, s: Sentence) -> bool:
    if s.box:
        return True
    if kind == "ai-policy":
        return restricts(s.text)
    t = _plain(s.text)
    return bool(
        _RESTRICT_RE.search(t)
        or _REQUIRED_RE.search(t)
        or re.search(r"\b(?:please|needs?|requirement)\b|必须|需", t, re.I)
    )


def _runs_tests(s: Sentence, fence: list[str], start: Start) -> bool:
    """A step that introduces a block of commands running the tests ("Check code before commit:")."""
    if s.box or not s.text.rstrip().endswith(":") or start == "pr-template":
        return False
    if start == "agents" and not re.search(r"\b(?:before|make sure|ensure|must|always|please)\b", s.text, re.I):
        return False  # an agent file's "Run all tests:" says how, not that a PR must
    return bool(_STEP_ASK_RE.search(s.text.strip("*_ ")) and any(_TEST_COMMAND_RE.search(ln) for ln in fence))


def _fence_after(lines: list[str], line: int) -> list[str]:
    """The lines of a code block that starts within two lines after line, when one does."""
    for k in range(line, min(line + 3, len(lines))):
        m = FENCE_RE.match(lines[k])
        if m:
            body = []
            for ln in lines[k + 1 : k + 12]:
                if FENCE_RE.match(ln):
                    break
                body.append(ln)
            return body
    return []


def rules_from(
    sources: list[Source], extra: list[RepoRule] | None = None
) -> tuple[list[RepoRule], list[PolicyConflict]]:
    """The rules of the sources, AI policy first (restricting, then permissive), then by kind; bans as conflicts.

    extra holds rules found elsewhere (the checks a workflow runs), reported after the written ones.
    """
    found: list[tuple[NoteKind, bool, RepoRule]] = []
    seen: set[str] = set()
    for src in sources:
        lines = src.text.split("\n")
        prev: Sentence | None = None
        for s in sentences(src.text, src.span):
            kind, prev = kind_of(s, src.start, prev), s
            fence = _fence_after(lines, s.line)
            if kind is None and _runs_tests(s, fence, src.start):
                kind = "tests"
            key = re.sub(r"\W+", " ", s.text.lower()).strip()
            if kind is None or key in seen:
                continue
            seen.add(key)
            strict = kind == "ai-policy" and restricts(s.text)
            ban = kind == "ai-policy" and bans(s.text)
            after = rule_params.following(lines, s.line, s.text.rstrip().endswith(":") or kind == "title-rule")
            if kind == "ai-policy" and s.text.rstrip().endswith(":"):
                after = [s.text, *after]  # "PR descriptions for AI-assisted work must include:" and its list
            params = rule_params.for_kind(kind, s.text, after, fence, lines[s.line - 1])
            rule = RepoRule(
                source=src.path,
                line=s.line,
                kind=kind,
                text=s.text[:_TEXT_CAP],
                via=list(src.via),
                required=_required(kind, s),
                params=params,
                action=rule_params.action(kind, params, ban, rule_params.conditional(s.text)),
            )
            found.append((kind, strict, rule))
    for rule in extra or []:
        found.append((rule.kind, False, rule))
    ai = [n for k, strict, n in found if k == "ai-policy" and strict]
    ai += [n for k, strict, n in found if k == "ai-policy" and not strict][: _CAP["ai-policy"]]
    rest: list[RepoRule] = []
    for other in _ORDER:  # a rule a check enforces first, then the required ones, each in the files' order
        same = [n for k, _, n in found if k == other]
        same.sort(key=lambda n: (n.params.checked_by is None, bool(n.via) and "->" not in n.via[-1], not n.required))
        rest += same[: _CAP[other]]
    conflicts = [
        PolicyConflict(
            source=n.source,
            line=n.line,
            text=n.text,
            why="the repo restricts AI-assisted contributions; the user decides whether and how to post",
        )
        for n in ai
        if bans(n.text)
    ]
    return ai + rest, conflicts


def read(
    top: Path, files: RepoFiles, template_path: str | None
) -> tuple[list[RepoRule], list[PolicyConflict], list[str]]:
    """(rules, AI bans as conflicts, what the search skipped) for the repo at files.commit."""
    from perfkit.publish import pr_checks, rule_search

    found = rule_search.search(top, files, [template_path] if template_path else [])
    checks = pr_checks.rules(top, files.commit)
    rules, conflicts = rules_from(found.sources, checks)
    return rules, conflicts, found.skipped
