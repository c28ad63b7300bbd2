"""publish-pr: the PR description and the companion issue, filled from a campaign's own files."""
