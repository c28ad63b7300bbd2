"""YAML from people and repositories we do not control: PyYAML's safe loader with bounds.

`yaml.safe_load` already refuses Python tags, but it resolves aliases: ten nested anchors of ten
aliases each describe 10^9 nodes in a few hundred bytes, and anything that walks the result walks
all of them. The loader here counts every node as if aliases were copied out and refuses a document
whose count passes `MAX_NODES`, refuses nesting deeper than `MAX_DEPTH` (PyYAML's composer recurses,
so depth is also a crash) and text over `MAX_BYTES`. Scalars stay as written: only `true`, `false`
and `null` are resolved. A dropdown option `No`, `2024-01` or `1.10` is a label, and a draft's
`tolerance: 0.010` keeps its last digit; pydantic turns `gpu_count: "8"` into the number the draft
model asks for.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.nodes import MappingNode, Node, SequenceNode

MAX_BYTES = 1024**2
MAX_DEPTH = 64
MAX_NODES = 100_000
_BOOL = "tag:yaml.org,2002:bool"
_DROPPED = {_BOOL, "tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}


class YamlRefused(ValueError):
    """The text is not YAML we read: the parser's message, with the line when it has one."""

    def __init__(self, problem: str, line: int | None = None):
        self.problem = problem
        self.line = line
        super().__init__(f"line {line}: {problem}" if line else problem)


class _BoundedLoader(yaml.SafeLoader):
    def __init__(self, text: str):
        super().__init__(text)
        self._depth = 0
        self._sizes: dict[int, int] = {}

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]  # untyped in the stubs
        if self.check_event(yaml.AliasEvent):
            node = super().compose_node(parent, index)
            if node is None or id(node) not in self._sizes:
                raise ComposerError(None, None, "an alias refers to the node that contains it", mark)
            return node
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise ComposerError(None, None, f"nesting is deeper than {MAX_DEPTH} levels", mark)
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if node is None:
            return None
        size = 1 + sum(self._sizes[id(child)] for child in _children(node))
        if size > MAX_NODES:
            raise ComposerError(
                None, None, f"with its aliases expanded the document holds more than {MAX_NODES:,} values", mark
            )
        self._sizes[id(node)] = size
        return node


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return [n for n in node.value if isinstance(n, Node)]
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair if isinstance(n, Node)]
    return []


_BoundedLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in _DROPPED]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_BoundedLoader.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


def load(text: str) -> Any:
    """One YAML document as Python data, or YamlRefused with the parser's words."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        raise YamlRefused(f"is {size:,} bytes, more than the {MAX_BYTES:,} read as YAML")
    loader = None
    try:
        loader = _BoundedLoader(text)  # the reader refuses control characters here, before parsing
        return loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        words = "; ".join(str(w) for w in (exc.context, exc.problem) if w)
        raise YamlRefused(words or "is not valid YAML", mark.line + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        raise YamlRefused(str(exc).replace("\n", " ")) from None
    except (ValueError, RecursionError) as exc:  # int() over 4,300 digits; a reader bug must not crash the tool
        raise YamlRefused(f"holds a value YAML cannot convert ({exc.__class__.__name__}: {exc})") from None
    finally:
        if loader is not None:
            loader.dispose()
