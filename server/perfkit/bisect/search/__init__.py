"""Which commit to test next, and when the evidence is enough to stop."""
