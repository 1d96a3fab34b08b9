"""examples/analysis.ipynb runs from top to bottom in a fresh kernel (nbclient), and shows what it
says: deals played with the Python API, a run folder read with polars and with pandas giving the
same numbers, a comparison of two variants, and one chart. Every code cell follows prose that
explains it.

The test adds one cell of its own at the end, which reads the notebook's variables and prints
them as JSON, so the checks are on what the notebook computed, not on its printed text.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "examples" / "analysis.ipynb"

PROBE = """\
import json as _json
print("PROBE" + _json.dumps({
    "deals": outcomes.to_frame().select("game", "deal").unique().height,
    "sides": sorted(per_side["side"].to_list()),
    "polars": dict(zip(map(str, by_dealer["dealer"]), by_dealer["points"])),
    "pandas": {str(k): float(v) for k, v in pandas_by_dealer["mean"].items()},
    "polars_rows": int(by_dealer["rows"].sum()),
    "pandas_rows": int(len(pandas_deals)),
    "manifest": any(p.exists() for p in (FOLDER / "manifest.json",
                                          FOLDER.with_name(FOLDER.name + ".manifest.json"))),
    "arms": [a.label for a in result.arms],
    "tested": differences.height,
}))
"""


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> tuple[nbformat.NotebookNode, dict, float]:
    """The notebook run in a fresh kernel from the project's folder, with the probe cell: the
    executed notebook, the probe's values and the seconds it took."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert not [c for c in notebook.cells if c.cell_type == "code" and c.get("outputs")], (
        "examples/analysis.ipynb is kept without outputs"
    )
    notebook.cells.append(nbformat.v4.new_code_cell(PROBE))
    client = NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    started = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - started
    (output,) = [o for o in notebook.cells[-1].outputs if o.get("name") == "stdout"]
    probe = json.loads(output.text.split("PROBE", 1)[1])
    return notebook, probe, seconds


def test_every_code_cell_follows_prose_that_explains_it():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    cells = notebook.cells
    assert cells[0].cell_type == "markdown" and cells[0].source.startswith("# ")
    for k, cell in enumerate(cells):
        if cell.cell_type == "code" and k > 1:  # the first code cell: the imports
            before = cells[k - 1]
            assert before.cell_type == "markdown", f"code cell {k} follows no prose"
            assert len(before.source.split()) >= 12, f"the prose before cell {k} is too short"
    headings = [c.source.splitlines()[0] for c in cells if c.cell_type == "markdown"]
    for step in ("Play deals", "polars", "pandas", "Compare two variants", "chart"):
        assert any(step in h for h in headings), step


def test_the_notebook_runs_and_shows_what_it_says(executed):
    notebook, probe, _ = executed
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            assert output.output_type != "error", output
    assert probe["deals"] == 4_000 and probe["sides"] == [0, 1]
    # polars and pandas read the same run folder into the same numbers
    assert probe["polars_rows"] == probe["pandas_rows"] > 0
    assert probe["polars"].keys() == probe["pandas"].keys() == {"False", "True"}
    for key, value in probe["polars"].items():
        assert value == pytest.approx(probe["pandas"][key], rel=1e-12)
    assert probe["manifest"]
    assert probe["arms"] == ["classic", "classic:forced_capture=true"]
    assert probe["tested"] >= 1
    # one chart, drawn as an image in the notebook's outputs
    images = [
        output
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if "image/png" in output.get("data", {})
    ]
    assert len(images) == 1


def test_the_notebook_keeps_within_the_suite_budget(executed):
    _, _, seconds = executed
    print(f"examples/analysis.ipynb ran in {seconds:.1f} s")
    assert seconds < 120, f"the notebook took {seconds:.0f} s: keep its runs small"
