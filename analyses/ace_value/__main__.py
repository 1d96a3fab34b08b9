"""``python -m analyses.ace_value``: the page alone."""

import sys

from analyses import ace_value, framework

sys.exit(framework.main(ace_value.build, prog="ace_value.py"))
