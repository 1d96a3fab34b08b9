"""``python -m analyses.seat_advantage``: the page alone."""

import sys

from analyses import framework, seat_advantage

sys.exit(framework.main(seat_advantage.build, prog="seat_advantage.py"))
