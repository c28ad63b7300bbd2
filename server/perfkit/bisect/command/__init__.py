"""Running one command at one point: checkout, install, run, and the verdict it gave."""
