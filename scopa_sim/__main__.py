"""``python -m scopa_sim`` is the ``scopa-sim`` command."""

import sys

from scopa_sim.cli import main

sys.exit(main())
