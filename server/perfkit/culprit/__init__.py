"""What kind of commit a bisect culprit is, and where to look next."""
