"""lint_wording: deterministic checks on the wording and the figures of a description or issue."""
