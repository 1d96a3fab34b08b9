"""``python -m analyses.family``: the page alone."""

import sys

from analyses import family, framework

sys.exit(framework.main(family.build, prog="family.py"))
