"""The target repo's issue forms and Markdown issue templates: read, rank, and fill.

`perfkit.publish.issue_forms` is the entry point; the stages live here, one file each.
"""
