"""What a campaign's delivery branch changes, sorted by what a PR may claim, and why removed code was there."""
