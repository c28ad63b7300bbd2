"""Two-level precision bisect over a superproject and its submodule, in a private worktree."""
