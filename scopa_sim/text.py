"""Plain-text formatting shared by the terminal outputs: pure string work, no package imports."""

from __future__ import annotations

from collections.abc import Sequence


def plain_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a terminal table: left-aligned columns two spaces apart, a dashed rule under
    the header, no trailing spaces."""
    lines = [header, *rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = [
        "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
        for line in lines
    ]
    text.insert(1, "  ".join("-" * w for w in widths))
    return text
