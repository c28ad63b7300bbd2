"""What a bisect keeps between calls, in perfkit's own folder, and how it is locked."""
