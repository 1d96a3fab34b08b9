"""``make test`` runs the suite on two workers with ``--dist loadgroup``, and some tests must
share one worker: the browser tests (``xdist_group("html")``), the bench's (its build folder),
the rating audit's costly fixture. xdist sends a group to one worker by the group's name at the
end of each test's node id (``...@html``); with pytest 9.2 and pytest-xdist 3.8 that suffix is
dropped without a word (pytest-xdist issue 1386) and grouped tests run at once on both workers.
This test fails then, so that the cause is named rather than met as a flaky test elsewhere;
pyproject.toml keeps pytest below 9.2 until xdist follows."""

from __future__ import annotations

import pytest


@pytest.mark.xdist_group("suite-groups")
def test_grouped_tests_carry_their_group_to_the_scheduler(request):
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not a worker of --dist loadgroup (make test runs it that way)")
    assert request.node.nodeid.endswith("@suite-groups"), (
        f"{request.node.nodeid} lost its xdist group: with this pytest "
        f"({pytest.__version__}) --dist loadgroup does not group tests; see this file's docstring"
    )
