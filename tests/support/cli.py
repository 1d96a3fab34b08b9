"""Run the command line in-process, as a test sees it: its exit status and what it printed."""

from __future__ import annotations

from scopa_sim import cli


def scopa_sim(capsys, *args) -> tuple[int, str, str]:
    """``scopa-sim ARGS``: (exit status, stdout, stderr), an argparse exit included."""
    try:
        status = cli.main([str(a) for a in args])
    except SystemExit as exit:
        status = exit.code
    out, err = capsys.readouterr()
    return status, out, err
