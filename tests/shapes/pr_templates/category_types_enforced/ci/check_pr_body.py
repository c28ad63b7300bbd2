"""Fails when the PR body does not follow the template."""

import re
import sys

PATTERN = r"### PR Category(.*[^\s].*)### PR Types(.*[^\s].*)### Description(.*[^\s].*)"


def check(body: str) -> bool:
    body = re.sub(r"<!--.*?-->", "", body or "", flags=re.S)
    return re.search(PATTERN, body, re.S) is not None


if __name__ == "__main__":
    sys.exit(0 if check(sys.stdin.read()) else 1)
