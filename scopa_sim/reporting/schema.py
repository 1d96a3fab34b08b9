"""The JSON twin of a page (``NAME.json``) and its documented shape.

``page_json`` gives a page's findings, runs and build as plain JSON; ``json_problems`` checks a
document against :data:`PAGE_JSON_SHAPE`, so a malformed twin is refused before it is written.
"""

from __future__ import annotations

from scopa_sim.reporting.page import Page
from scopa_sim.reporting.provenance import build_info, run_json


def page_json(page: Page) -> dict:
    """The machine-readable twin of a page: its findings, the runs behind them (:func:`run_json`),
    the build that made it, and its headline (sentence and chart rows) when it has one."""
    document = {
        "page": page.slug,
        "findings": [f.to_json() for f in page.findings],
        "runs": [run_json(row) for row in page.data],
        "build": build_info().to_json(),
    }
    if page.headline is not None:
        document["headline"] = page.headline.to_json()
    return document


_OPTIONAL_NUMBER = (int, float, type(None))
_OPTIONAL_INT = (int, type(None))
_FORMAT = (int, str, type(None))  # a version number; "1 / 2" when a page's runs disagree
#: The shape of ``NAME.json``, JSON-schema-like: each key and the types its value may have; a
#: list holds objects of the shape given; ``details`` (a run's other data-table columns) is free.
PAGE_JSON_SHAPE: dict = {
    "page": str,
    "findings": [
        {
            "name": str,
            "estimate": _OPTIONAL_NUMBER,
            "ci_low": _OPTIONAL_NUMBER,
            "ci_high": _OPTIONAL_NUMBER,
            "n": _OPTIONAL_INT,
            "unit": str,
        }
    ],
    "runs": [
        {
            "name": str,
            "variant": (str, type(None)),
            "players": (list, type(None)),
            "mode": (str, type(None)),
            "seed": (int, str, type(None)),
            "deals": _OPTIONAL_INT,
            "games": _OPTIONAL_INT,
            "versions": dict,
            "schema_version": _FORMAT,
            "data_version": _FORMAT,
            "pack_stream": _FORMAT,
            "in_process": bool,
            "details?": dict,  # optional key
        }
    ],
    "headline?": {  # the answer at a glance and its chart's numbers, when the page has one
        "sentence": str,
        "axis": str,
        "kind": str,
        "reference": _OPTIONAL_NUMBER,
        "whiskers": str,  # what the intervals are, as the chart's caption says
        "rows": [
            {
                "label": str,
                "estimate": _OPTIONAL_NUMBER,
                "ci_low": _OPTIONAL_NUMBER,
                "ci_high": _OPTIONAL_NUMBER,
            }
        ],
    },
    "build": {
        "commit": str,
        "dirty": bool,
        "scopa_sim": str,
        "numpy": str,
        "polars": str,
        "python": str,
    },
}


def json_problems(value, shape=PAGE_JSON_SHAPE, where: str = "$") -> list[str]:
    """How ``value`` (a parsed ``NAME.json``) departs from ``shape``: missing or unknown keys,
    wrong types, repeated finding names; [] when it conforms."""
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return [f"{where}: an object expected, got {type(value).__name__}"]
        keys = {k.rstrip("?"): k.endswith("?") for k in shape}
        problems = [
            f"{where}.{k}: missing" for k, opt in keys.items() if not opt and k not in value
        ]
        problems += [f"{where}.{k}: unexpected key" for k in value if k not in keys]
        for key, sub in shape.items():
            if key.rstrip("?") in value:
                name = key.rstrip("?")
                problems += json_problems(value[name], sub, f"{where}.{name}")
        if where == "$" and isinstance(value.get("findings"), list):
            names = [f.get("name") for f in value["findings"] if isinstance(f, dict)]
            problems += [f"$.findings: name {n!r} repeated" for n in sorted(
                {n for n in names if names.count(n) > 1}, key=str)]  # fmt: skip
        return problems
    if isinstance(shape, list):
        if not isinstance(value, list):
            return [f"{where}: a list expected, got {type(value).__name__}"]
        return [
            p
            for k, item in enumerate(value)
            for p in json_problems(item, shape[0], f"{where}[{k}]")
        ]
    types = shape if isinstance(shape, tuple) else (shape,)
    if isinstance(value, bool) and bool not in types:  # a bool is an int to Python, not to JSON
        return [f"{where}: {value!r} is not {'/'.join(t.__name__ for t in types)}"]
    if not isinstance(value, types):
        return [f"{where}: {value!r} is not {'/'.join(t.__name__ for t in types)}"]
    return []
