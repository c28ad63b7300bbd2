"""A repository's PR template read once as a structure: every part with a kind, then filled from it.

parse.py cuts the template into parts (headings, bold labels, prompts, checklists, option lists,
issue links, process notes, template text) using words.py and links.py; roles.py decides what each
heading or label asks; keys.py resolves the draft's answers and box decisions to part ids;
options.py picks the option a performance PR backs; enforced.py reads the repo's checks of the PR
body; fill.py walks the parts (context.py holds its state, fill_lists.py fills lists and boxes).
"""
