"""Plant each fault of ``tests/mutation/*.toml`` in a scratch copy of the project and see whether
the tests notice: a check of the tests, not of the code.

Why: a test suite is only as good as the faults it would catch. Each fault is one small,
plausible slip in a search player, the position analysis, interventions or run integrity (a sign,
an off-by-one, a wrong side), written as an exact substring of a file and its replacement. A
fault the tests pass with is a *survivor*: the code could be wrong that way and nobody would know.

How: the project is copied once (``git archive`` of a revision, default the working tree as
committed plus uncommitted changes), the tests are run once on the unchanged copy (they must
pass), then each fault is applied, the tests run (``pytest -x``: the first failure kills it), and
the file restored. The copy keeps one numba cache (``NUMBA_CACHE_DIR``, numba's per-file stamps),
so a fault recompiles only the kernels of its own file. A run that fails is *killed*, one past
``--timeout`` too (a fault that hangs is caught), one that passes *survived*, and one that cannot
collect or errors otherwise is reported as an *error* (a fault that does not compile says nothing
of the tests).

    python -m tests.mutation.run                        # every fault, the whole suite
    python -m tests.mutation.run --at a5df12e -- tests/test_search_players.py
    python -m tests.mutation.run --only ismcts-exploration-sign --list

Arguments after ``--`` are pytest's (default: the whole suite on two workers). ``--at REV`` plants
the faults in that revision instead, with its own tests: the suite *before* a change of tests.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FAULTS = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Fault:
    id: str
    file: str
    old: str
    new: str
    what: str
    area: str


def load_faults(folder: Path = FAULTS) -> list[Fault]:
    """Every fault of every ``*.toml`` in ``folder``, its area the file's stem."""
    faults = []
    for path in sorted(folder.glob("*.toml")):
        for row in tomllib.loads(path.read_text())["fault"]:
            faults.append(Fault(area=path.stem, **row))
    ids = [f.id for f in faults]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise SystemExit(f"mutation: fault ids used twice: {', '.join(repeated)}")
    return faults


def check_applies(fault: Fault, root: Path) -> str | None:
    """Why ``fault`` cannot be planted in the tree at ``root``, or None."""
    path = root / fault.file
    if not path.is_file():
        return f"{fault.file} does not exist"
    found = path.read_text().count(fault.old)
    if found != 1:
        return f"its text occurs {found} times in {fault.file}, not once"
    if fault.old == fault.new:
        return "its replacement is the text itself"
    return None


def scratch_copy(rev: str | None, dest: Path) -> None:
    """The project at ``rev`` (None: the working tree, tracked and untracked files not ignored)."""
    if rev is not None:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True
        ).stdout
        with tempfile.TemporaryFile() as tmp:
            tmp.write(archive)
            tmp.seek(0)
            with tarfile.open(fileobj=tmp) as tar:
                tar.extractall(dest, filter="data")
        return
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        check=True, capture_output=True, text=True,
    ).stdout.split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


def run_tests(root: Path, pytest_args: list[str], timeout: float) -> tuple[str, float, str]:
    """(outcome, seconds, last line) of pytest in ``root``: passed, failed, timeout or error."""
    env = {
        **os.environ,
        "PYTHONPATH": str(root),
        "NUMBA_CACHE_DIR": str(root / ".numba-cache"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *pytest_args]
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command, cwd=root, env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - started, f"over {timeout:.0f} s"
    seconds = time.perf_counter() - started
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    last = lines[-1] if lines else (done.stderr.strip().splitlines() or ["no output"])[-1]
    outcome = {0: "passed", 1: "failed"}.get(done.returncode, "error")
    return outcome, seconds, last


def plant(fault: Fault, root: Path, pytest_args: list[str], timeout: float) -> dict:
    """Run the tests with ``fault`` planted in ``root``, then restore the file."""
    path = root / fault.file
    original = path.read_text()
    path.write_text(original.replace(fault.old, fault.new, 1))
    try:
        outcome, seconds, last = run_tests(root, pytest_args, timeout)
    finally:
        path.write_text(original)
    verdict = {"failed": "killed", "timeout": "killed", "passed": "survived"}.get(outcome, "error")
    return {
        "id": fault.id, "area": fault.area, "file": fault.file, "what": fault.what,
        "verdict": verdict, "outcome": outcome, "seconds": round(seconds, 1), "last": last,
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    pytest_args = ["-n", "2", "--dist", "loadgroup"]
    if "--" in argv:
        cut = argv.index("--")
        argv, pytest_args = argv[:cut], argv[cut + 1 :]
    parser = argparse.ArgumentParser(
        prog="python -m tests.mutation.run",
        description="Plant each fault of tests/mutation/*.toml in a scratch copy of the project "
        "and report which the tests kill. Arguments after -- go to pytest.",
    )
    parser.add_argument("--at", metavar="REV", help="plant in this git revision, with its tests")
    parser.add_argument("--only", nargs="+", metavar="ID", help="these faults (ids or areas)")
    parser.add_argument("--timeout", type=float, default=1200, help="seconds per fault (1200)")
    parser.add_argument("--json", metavar="FILE", help="also write the verdicts as JSON")
    parser.add_argument("--list", action="store_true", help="list the faults and stop")
    args = parser.parse_args(argv)
    # A stop (SIGTERM) unwinds like ^C, so the scratch copy is removed and pytest stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    faults = load_faults()
    if args.only:
        faults = [f for f in faults if f.id in args.only or f.area in args.only]
        if not faults:
            print("mutation: no fault has those ids or areas (see --list)", file=sys.stderr)
            return 2
    if args.list:
        for f in faults:
            print(f"{f.id:44} {f.file:38} {f.what}")
        return 0
    with tempfile.TemporaryDirectory(prefix="scopa-mutation-") as tmp:
        root = Path(tmp)
        scratch_copy(args.at, root)
        problems = [(f.id, why) for f in faults if (why := check_applies(f, root))]
        if problems:
            for ident, why in problems:
                print(f"mutation: fault {ident} cannot be planted: {why}", file=sys.stderr)
            return 2
        outcome, seconds, last = run_tests(root, pytest_args, args.timeout)
        print(f"unchanged: {outcome} in {seconds:.0f} s ({last})", flush=True)
        if outcome != "passed":
            print("mutation: the tests fail without a fault; fix them first", file=sys.stderr)
            return 2
        rows = []
        for f in faults:
            row = plant(f, root, pytest_args, args.timeout)
            rows.append(row)
            line = f"{row['verdict']:9} {f.id:44} {row['seconds']:7.1f} s  {row['last']}"
            print(line, flush=True)
    killed = sum(r["verdict"] == "killed" for r in rows)
    errors = sum(r["verdict"] == "error" for r in rows)
    survived = len(rows) - killed - errors
    print(f"{killed} of {len(rows)} faults killed, {survived} survived, {errors} errors")
    if args.json:
        verdicts = {"at": args.at, "pytest": pytest_args, "faults": rows}
        Path(args.json).write_text(json.dumps(verdicts, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
