"""What `perfkit bisect-* --help` says to a person, where the agent's descriptions do not fit them.

The examples run on the folder `perfkit demo` leaves (perfkit-demo/), so each can be tried as written.
"""

from __future__ import annotations

from perfkit.tools.spec import CliText

DEMO = "perfkit-demo/bisect/pypto"

START = CliText(
    examples=(
        f"perfkit bisect-start {DEMO} good      # commands from the repository's perfkit.toml",
        "perfkit bisect-start ../compiler v1.4 --run 'python check.py' \\\n"
        "      --install 'pip install -e .' --install-submodule 'pip install -e .'",
        "perfkit bisect-start ../compiler v1.4 --devices 0 --devices 1 --build-ahead 2   # two devices at once",
        "perfkit bisect-start ../compiler v1.4 --noise   # a check that may give a wrong verdict now and then",
    ),
    params={
        "devices": "Free accelerators to test on at once, one per flag (--devices 0 --devices 1): one point per "
        "device per round, each in its own worktree and environment, {device} replaced in the commands and "
        "PERFKIT_DEVICE set. Default: one point at a time.",
    },
)
STEP = CliText(examples=(f"perfkit bisect-step {DEMO}      # test one point, then stop",))
RUN = CliText(
    examples=(
        f"perfkit bisect-run {DEMO}         # to the end, with a progress bar",
        f"perfkit bisect-run {DEMO} --quiet --json > bisect.json",
    ),
)
STATUS = CliText(examples=(f"perfkit bisect-status {DEMO}", f"perfkit bisect-status {DEMO} --json"))
RESET = CliText(examples=(f"perfkit bisect-reset {DEMO}      # remove the state, logs and worktree",))
