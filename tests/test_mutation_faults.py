"""The planted faults of ``tests/mutation/*.toml`` (``make mutants``) still fit the code: each
fault's text occurs exactly once in its file, and its replacement changes it. A fault whose text
the code no longer holds would be reported as an error by the harness, not as a check of the
tests; this keeps the faults moving with the code they were written for."""

from __future__ import annotations

import pytest

from tests.mutation.run import ROOT, load_faults

FAULTS = load_faults()


def test_there_are_faults_in_every_area():
    areas = {f.area for f in FAULTS}
    assert {"deal_rules", "endgame", "ismcts", "rollouts", "sampling"} <= areas
    assert len({f.id for f in FAULTS}) == len(FAULTS), "two faults share an id"


@pytest.mark.parametrize("fault", FAULTS, ids=[f.id for f in FAULTS])
def test_each_fault_applies_once(fault):
    text = (ROOT / fault.file).read_text(encoding="utf-8")
    assert text.count(fault.old) == 1, f"{fault.id}: its text is not once in {fault.file}"
    assert fault.new != fault.old
