"""Example players for docs/players.md: load one with ``--players examples.cautious:CautiousPlayer``
from the root of the repository (which must then be on the import path; see docs/players.md)."""
