"""What an issue form or Markdown issue template holds, once read: the parts ranking and filling use."""

from __future__ import annotations

from dataclasses import dataclass, field

from perfkit.repo.template_text import Section


@dataclass
class FormField:
    label: str
    kind: str  # textarea, input, dropdown, checkboxes, or 'heading' for a Markdown template's section
    id: str = ""
    description: str = ""
    placeholder: str = ""
    value: str = ""  # a textarea's pre-filled text, posted as it is unless the reporter edits it
    render: str = ""  # a textarea GitHub posts inside a code block of this language
    required: bool = False
    multiple: bool = False
    options: list[str] = field(default_factory=list)
    required_options: list[str] = field(default_factory=list)  # checkboxes the form will not submit unticked
    section: Section | None = None  # Markdown templates: the heading's own section, kept verbatim


@dataclass
class IssueForm:
    path: str
    name: str
    about: str
    title_prefix: str
    labels: list[str]
    fields: list[FormField]
    markdown: bool
    preamble: Section | None = None
    text: str = ""  # the file as read, for the automation test


@dataclass
class Unreadable:
    path: str
    error: str
    refused_by_reader: bool = False  # a link or an oversized file: repofiles already warned about it
