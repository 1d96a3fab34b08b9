"""``python -m scopa_sim.cli``: the command line without the launcher's worker start-up."""

import sys

from scopa_sim.cli import main

sys.exit(main())
