"""The page registry: ``analyses.__main__.PAGES`` lists every page module once, and each page
follows the protocol of ``analyses.Page`` (QUESTION, METHOD, NEEDS, build, glance) and builds
its page through ``framework.page`` with its answer, the headline of the index."""

from __future__ import annotations

import ast
import inspect
import pkgutil

import analyses
from analyses import __main__ as site
from analyses import framework
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
        assert callable(module.glance), module.__name__


def _page_calls(function) -> list[ast.Call]:
    """The calls of ``framework.page`` in ``function``'s source."""
    tree = ast.parse(inspect.getsource(function).strip())
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "page"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "framework"
    ]


def test_every_page_has_a_headline():
    """Each page's build makes its page with ``framework.page`` (the one path), passing the
    answer its ``glance`` gives; framework.page has no default for it, and turns it into the
    headline (tests/test_headlines.py checks what that does)."""
    assert inspect.signature(framework.page).parameters["answer"].default is inspect._empty
    for module in site.PAGES:
        calls = _page_calls(module.build)
        assert len(calls) == 1, f"{module.__name__}.build: {len(calls)} framework.page calls"
        answer = next((k.value for k in calls[0].keywords if k.arg == "answer"), None)
        assert answer is not None, f"{module.__name__}.build passes no answer"
        assert isinstance(answer, ast.Call) and ast.unparse(answer.func) == "glance", (
            f"{module.__name__}.build: the answer is not its glance(...)"
        )
