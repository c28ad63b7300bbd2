"""The draft an agent writes for render_pr, and lint_wording reads again: its model, the parameter
both tools take it through, and its loading.

It sits below publish and lint (both import it; it imports neither), so lint_wording reads the
same model render_pr fills its slots from. Reading the draft's text (JSON or bounded YAML, inline or
a file, size and depth limits) is perfkit.guards.draft_source.
"""
