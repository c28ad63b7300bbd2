"""Input guards: every read of untrusted input goes through here before the core sees it.

Size and depth caps and a reader that never blocks (limits), bounded YAML (safe_yaml), walks that never leave
the campaign folder (campaign_walk), the draft's three ways in (draft_source), text from a repository or a
campaign capped and quoted (outside_text), every list of an answer capped with a count (list_caps), and the
environment's XDG variables read per the spec, with perfkit's own folders and files made private (private_dirs).
"""
