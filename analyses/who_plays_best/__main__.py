"""``python -m analyses.who_plays_best``: the page alone, or ``--commands`` for its tournaments."""

import sys

from analyses import framework, who_plays_best

sys.exit(
    framework.main(who_plays_best.build, prog="who_plays_best.py", commands=who_plays_best.commands)
)
