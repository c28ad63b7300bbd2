"""Repository access: the one door through which perfkit runs git, and what it reads through it.

The git runner (gitrepo), the check of a repository's config includes before any git process reads them
(config_includes), the contribution files read from git objects at one commit (contribution_files), and a
Markdown template seen as sections (template_text).
"""
