"""The page registry: ``analyses.__main__.PAGES`` lists every page module once, and each page
follows the protocol of ``analyses.Page`` (QUESTION, METHOD, NEEDS, build)."""

from __future__ import annotations

import pkgutil

import analyses
from analyses import __main__ as site
from analyses.framework import Needs

#: Modules of ``analyses`` that are not pages: the shared framework and helpers.
NOT_PAGES = {"__main__", "framework", "tournaments", "_card_interventions"}


def test_the_registry_covers_every_page_module():
    found = {m.name for m in pkgutil.iter_modules(analyses.__path__)} - NOT_PAGES
    listed = [module.__name__.removeprefix("analyses.") for module in site.PAGES]
    assert len(listed) == len(set(listed))
    assert set(listed) == found


def test_every_page_follows_the_protocol():
    for module in site.PAGES:
        assert isinstance(module, analyses.Page), module.__name__
        assert isinstance(module.QUESTION, str) and module.QUESTION, module.__name__
        assert isinstance(module.METHOD, str) or callable(module.METHOD), module.__name__
        assert isinstance(module.NEEDS, Needs), module.__name__
