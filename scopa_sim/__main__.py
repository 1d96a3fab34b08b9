"""``python -m scopa_sim`` is the ``scopa-sim`` command."""

from scopa_sim.launch import console

console()
