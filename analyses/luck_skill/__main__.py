"""``python -m analyses.luck_skill``: the page alone, or ``--commands`` for its tournaments."""

import sys

from analyses import framework, luck_skill

sys.exit(framework.main(luck_skill.build, prog="luck_skill.py", commands=luck_skill.commands))
