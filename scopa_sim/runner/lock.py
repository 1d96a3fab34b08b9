"""The lock file of a run folder being written (``DIR/.lock``): :func:`writer_lock` refuses a
second writer with one line, and takes over a lock whose writer died (its process id no longer
runs), so a SIGKILL never leaves a folder that cannot be completed.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

from scopa_sim.storage import LOCK_NAME, StorageError


def lock_path(folder: Path) -> Path:
    return Path(folder) / LOCK_NAME


def _process_start(pid: int) -> str | None:
    """A process's start time (Linux: /proc), which tells a live writer from another process
    that took its pid after it died; None where it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _alive(owner: dict) -> bool:
    """Whether the process that took a lock still runs (on this machine)."""
    if owner.get("host") != socket.gethostname():
        return True  # another machine's (a shared disk): this one cannot tell
    pid = owner.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # runs, as another user
    started = owner.get("started")
    return started is None or _process_start(pid) in (None, started)


@contextlib.contextmanager
def writer_lock(folder: Path) -> Iterator[None]:
    """Hold ``folder``'s lock file while writing it: a second writer is refused with one line
    naming the first; a lock left by a writer that died (SIGKILL, a crash) is stale, seen by its
    process id, and taken over. Released on exit, whatever the exit."""
    path = lock_path(folder)
    owner = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": _process_start(os.getpid()),
    }
    # The owner is written to a file of its own, then linked to the lock's name: a link fails if
    # the name exists, and a lock that exists is whole (never an empty file being written).
    mine = path.with_name(f"{LOCK_NAME}.{os.getpid()}")
    mine.write_text(json.dumps(owner))
    try:
        for _ in range(3):
            try:
                os.link(mine, path)
                break
            except FileExistsError:
                pass
            try:
                text = path.read_text()
            except FileNotFoundError:
                continue  # released meanwhile
            try:
                held = json.loads(text)
            except ValueError:
                held = {}  # not a lock of this version: stale
            if isinstance(held, dict) and held and _alive(held):
                raise StorageError(
                    f"{folder} is being written by another scopa-sim (process {held.get('pid')} "
                    f"on {held.get('host')}); wait for it to finish, or stop it, and rerun"
                ) from None
            with contextlib.suppress(FileNotFoundError):
                if path.read_text() == text:  # stale (its writer is gone), and still that one
                    path.unlink()
        else:
            raise StorageError(
                f"cannot take the lock {path}; delete it if no scopa-sim writes {folder}"
            )
    finally:
        mine.unlink()
    try:
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            if json.loads(path.read_text()).get("pid") == os.getpid():
                path.unlink()
