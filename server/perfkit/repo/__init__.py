"""Repository access: the one door through which perfkit runs git, and what it reads through it.

The git runner (gitrepo), the proof it makes before each command in a work tree perfkit made that the work
tree still leads to perfkit's own git folder (gitdir_proof), the check of a repository's config includes
before any git process reads them (config_includes), the contribution files read from git objects at one
commit (contribution_files), and a Markdown template seen as sections (template_text).
"""
