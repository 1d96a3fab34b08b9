"""One question per module, each answered from the Parquet data of ``make simulate``.

A page is a module (or a package) that follows :class:`Page`: it states its question, its
method and the data it needs, and ``build(data)`` returns its ``scopa_sim.reporting.Page``.
``analyses.framework`` does what every page shares (runs, the Holm family, formats, forest
plots, the headline, the page ending, the command line); ``analyses.tournaments`` reads
tournament configs.
Every page runs on its own (``python -m analyses.ace_value``); ``python -m analyses`` builds
every page of ``analyses.__main__.PAGES`` and the index.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol, runtime_checkable

__all__ = ["Page"]


@runtime_checkable
class Page(Protocol):
    """What a page module declares.

    - ``QUESTION``: the question the page answers (a page may name its players after it).
    - ``METHOD``: how it answers, as text, or the function that writes the text from the
      sizes the page measured (the card pages).
    - ``NEEDS``: an ``analyses.framework.Needs``, the runs or tournaments it reads by name.
    - ``build(data)``: the page, from the data folder; ``framework.MissingData`` when the
      data it needs are not there.
    - ``glance(...)``: the page's answer at a glance (an ``analyses.framework.Answer``: one
      sentence a player understands and the findings of its small chart), from what the page
      measured; ``build`` hands it to ``framework.page``, which makes it the headline that opens
      the page and stands for it on the index.
    """

    QUESTION: str
    METHOD: str | Callable[..., str]
    NEEDS: object

    def build(self, data: Path): ...

    def glance(self, *measured): ...
