"""``python -m analyses.deal_shape``: the page alone."""

import sys

from analyses import deal_shape, framework

sys.exit(framework.main(deal_shape.build, prog="deal_shape.py"))
