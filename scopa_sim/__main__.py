"""``python -m scopa_sim`` is the ``scopa-sim`` command."""

import sys

from scopa_sim.launch import main

sys.exit(main())
