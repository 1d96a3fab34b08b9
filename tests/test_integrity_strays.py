"""Stray files in a run folder (scopa_sim/integrity.py with scopa_sim/storage.py), name by name.

Readers take a run's rows only from the chunks its manifest lists, after refusing every file the
manifest does not account for (``unknown_files``, ``checked_chunks``). A rule like that fails at
its edges: a stray ``chunk-{chunks_total}`` taken for an interrupted run's chunk, a name that
parses one number off, a chunk another layout's field lists. tests/test_run_folders.py checks
one stray (``chunk-000099``) on a real run; this file states the rule plainly, from the module
docstrings and the manifest layout of storage.py, and checks every boundary name against it:

* A run folder may hold its manifest (``manifest.json``), while it is written its lock
  (``.lock``, and the writer's own ``.lock.<pid>``), its scratch folder (``.partial``), a
  manifest being replaced (``.manifest.<pid>.tmp``), and chunk files.
* A chunk file is named ``chunk-<n>.parquet``, ``n`` in decimal digits zero-padded to six (as
  ``chunk_path`` writes it): ``n`` is a chunk number only in that exact spelling.
* The manifest lists the chunks done: layout 2 by ``chunk_files`` (each one's record), layout 1
  by ``chunks_done``, or, when a layout 1 manifest has no ``chunks_done`` (written by hand),
  every chunk file in the folder. A listed chunk file is the run's.
* An unlisted chunk file is an interrupted run's (written, not yet recorded; a rerun checks it)
  when its number is below ``chunks_total``; at or past it, or with no ``chunks_total``, it is a
  stray. Without a manifest, chunk files are not strays here (the runner refuses chunk files
  without a manifest on its own).
* Every other name is a stray, hidden or not.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest

from scopa_sim import integrity, storage

# The plain rule --------------------------------------------------------------------------------

DIGITS = "0123456789"


def plain_chunk(name: str) -> int | None:
    """The chunk number that ``name`` spells exactly (``chunk-`` six or more ASCII digits,
    zero-padded to six and no further, ``.parquet``), else None."""
    head, tail = "chunk-", ".parquet"
    if not (name.startswith(head) and name.endswith(tail)):
        return None
    digits = name[len(head) : len(name) - len(tail)]
    if len(digits) < 6 or any(ch not in DIGITS for ch in digits):
        return None
    if len(digits) > 6 and digits[0] == "0":
        return None  # padded past six: no writer spells a chunk so
    return int(digits)


def plain_own(name: str) -> bool:
    """The names a run folder holds besides its chunks."""
    if name in ("manifest.json", ".partial", ".lock"):
        return True
    for head, tail in ((".lock.", ""), (".manifest.", ".tmp")):
        if name.startswith(head) and name.endswith(tail):
            pid = name[len(head) : len(name) - len(tail)]
            if pid and all(ch in DIGITS for ch in pid):
                return True
    return False


def plain_listed(manifest: dict, names: list[str]) -> set[int]:
    """The chunks a manifest lists as done."""
    if manifest.get("layout", 1) >= 2:
        return {int(k) for k in manifest.get("chunk_files") or {}}
    if "chunks_done" not in manifest:
        return {n for n in map(plain_chunk, names) if n is not None}
    return {int(c) for c in manifest["chunks_done"]}


def plain_strays(names: list[str], manifest: dict | None) -> list[str]:
    """The names of a folder its manifest does not account for, sorted."""
    listed = plain_listed(manifest, names) if manifest is not None else set()
    total = (manifest or {}).get("chunks_total") or 0
    strays = []
    for name in names:
        if plain_own(name):
            continue
        number = plain_chunk(name)
        if number is None:
            strays.append(name)
        elif manifest is not None and number not in listed and not number < total:
            strays.append(name)
    return sorted(strays)


# Folders ---------------------------------------------------------------------------------------


def _name(n: int) -> str:
    return f"chunk-{n:06d}.parquet"


def _fill(folder: Path, names: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        if name == ".partial":
            (folder / name).mkdir()
        else:
            (folder / name).write_bytes(name.encode())
    return folder


def manifest_2(listed, total=None, **more) -> dict:
    """A layout 2 manifest listing ``listed`` in ``chunk_files`` (records not checked here)."""
    found = {"layout": 2, "kind": "simulate", "chunk_files": {str(c): {} for c in listed}}
    if total is not None:
        found["chunks_total"] = total
    return {**found, **more}


def _unknown(tmp_path: Path, names: list[str], manifest: dict | None, sub: str = "run") -> list:
    return integrity.unknown_files(_fill(tmp_path / sub, names), manifest)


# Chunk names -----------------------------------------------------------------------------------

NUMBERS = [0, 1, 9, 10, 99, 4_095, 99_999, 100_000, 999_998, 999_999, 1_000_000, 12_345_678]

NOT_CHUNKS = [
    "chunk-00001.parquet",  # five digits
    "chunk-0000001.parquet",  # seven digits for chunk 1: not a name any writer gives it
    "chunk-0000099.parquet",
    "chunk--00001.parquet",  # chunk -1
    "chunk--000001.parquet",
    "chunk-+00001.parquet",
    "chunk- 00001.parquet",
    "chunk-00000a.parquet",
    "chunk-\u0660\u0660\u0660\u0660\u0660\u0661.parquet",  # six Arabic-Indic digits
    "chunk-.parquet",
    "chunk-000001.parquet.tmp",
    "chunk-000001.tmp",
    "chunk-000001.parq",
    "chunk-000001.PARQUET",
    "chunk-000001.parquet ",
    "chunk-000001.12345.parquet",  # a scratch name of .partial/
    "chunk_000001.parquet",
    "Chunk-000001.parquet",
    "chunk000001.parquet",
    ".chunk-000001.parquet",
    "xchunk-000001.parquet",
]


def test_chunk_names_and_numbers_are_each_others_inverse():
    """``chunk_number`` reads back the number ``chunk_path`` wrote, at every digit boundary
    (0, 9 to 10, 99 999 to 100 000, 999 999 to 1 000 000), as the plain rule does."""
    for n in NUMBERS:
        name = storage.chunk_path(Path("run"), n).name
        assert name == storage.chunk_name(n) == _name(n)
        assert storage.chunk_number(name) == plain_chunk(name) == n


@pytest.mark.parametrize("name", NOT_CHUNKS)
def test_names_that_look_like_chunks_are_not_chunks(name):
    """A name that is not ``chunk_path``'s exact spelling of a number has no chunk number."""
    assert plain_chunk(name) is None
    assert storage.chunk_number(name) is None


def test_a_run_folder_own_names():
    """The manifest, the lock (and a writer's ``.lock.<pid>``), the scratch folder and a manifest
    being replaced are the folder's own; lookalikes are not."""
    own = ["manifest.json", ".lock", ".lock.4242", ".partial", ".manifest.4242.tmp"]
    lookalikes = [
        "manifest.json.bak", "Manifest.json", "manifest.json.tmp", "x.manifest.json",
        ".manifest.tmp", ".manifest..tmp", ".manifest.12a.tmp", ".manifest.4242.json",
        "manifest.4242.tmp", "lock", "partial", ".partial.old", ".DS_Store", "notes.txt",
        _name(1),
    ]  # fmt: skip
    for name in own:
        assert plain_own(name) and storage.own_name(name), name
    for name in lookalikes:
        assert not plain_own(name) and not storage.own_name(name), name


# Stray chunks at the boundaries of the recorded range -------------------------------------------

AROUND = [0, 1, 2, 3, 4, 5, 6, 7, 99, 999_999, 1_000_000]


@pytest.mark.parametrize(
    ("listed", "total", "strays"),
    [
        ([0, 1, 2], 5, [5, 6, 7, 99, 999_999, 1_000_000]),
        ([0, 1, 2, 3, 4], 5, [5, 6, 7, 99, 999_999, 1_000_000]),  # complete: last + 1 = total
        ([0, 1, 2], 3, [3, 4, 5, 6, 7, 99, 999_999, 1_000_000]),
        ([1, 2], 3, [3, 4, 5, 6, 7, 99, 999_999, 1_000_000]),  # 0 unlisted below the total
        ([1, 2], None, [0, 3, 4, 5, 6, 7, 99, 999_999, 1_000_000]),  # no total: 0 is a stray
        ([1, 2], 0, [0, 3, 4, 5, 6, 7, 99, 999_999, 1_000_000]),
        ([], 1, [1, 2, 3, 4, 5, 6, 7, 99, 999_999, 1_000_000]),  # nothing done of one chunk
        ([6], 6, [7, 99, 999_999, 1_000_000]),  # a listed chunk at the total is the run's
        ([], 1_000_000, [1_000_000]),  # the most chunks a run has
    ],
)
def test_every_stray_chunk_around_the_recorded_range_is_named(tmp_path, listed, total, strays):
    """Chunk files at every boundary of the listed chunks and of ``chunks_total``: exactly the
    strays the plain rule names (written out by hand here too) are reported, listed chunks and
    unlisted ones below the total are not."""
    names = [_name(n) for n in AROUND]
    manifest = manifest_2(listed, total)
    want = sorted(_name(n) for n in strays)
    assert plain_strays(names, manifest) == want
    assert _unknown(tmp_path, names, manifest) == want


def test_a_chunk_listed_only_in_another_layouts_field_is_a_stray(tmp_path):
    """Layout 2 lists chunks in ``chunk_files``: its ``chunks_done`` does not make chunk 7 the
    run's. Layout 1 lists them in ``chunks_done``: a ``chunk_files`` entry does not either.
    Chunks 3 (listed by the right field) and 1 (below the total) are the run's in both."""
    names = [_name(n) for n in (1, 3, 7)]
    two = manifest_2([3], total=2, chunks_done=[3, 7])
    one = {"chunks_done": [3], "chunk_files": {"3": {}, "7": {}}, "chunks_total": 2}
    for sub, manifest in (("two", two), ("one", one)):
        assert plain_strays(names, manifest) == [_name(7)]
        assert _unknown(tmp_path, names, manifest, sub) == [_name(7)]
        assert sorted(integrity.recorded_chunks(manifest, tmp_path / sub)) == [3]


def test_layout_1_without_chunks_done_stands_for_every_chunk_file(tmp_path):
    """A layout 1 manifest written by hand lists no chunk: every chunk file in the folder is
    taken as done (as layout 1's readers took them), so none is a stray; other names still are."""
    names = [_name(n) for n in (0, 5, 99)] + ["notes.txt", _name(3) + ".tmp"]
    manifest = {"chunks_total": 2}
    folder = _fill(tmp_path / "run", names)
    assert sorted(integrity.recorded_chunks(manifest, folder)) == [0, 5, 99]
    want = sorted(["notes.txt", _name(3) + ".tmp"])
    assert plain_strays(names, manifest) == want
    assert integrity.unknown_files(folder, manifest) == want


def test_lookalikes_and_hidden_files_are_strays_and_own_names_are_not(tmp_path):
    """Beside chunks 0-1 of 2, listed: every lookalike chunk name and every hidden file that is
    not the run's own is named; the run's own names are not. Without a manifest, the same
    names but for the chunk files (the runner refuses those on its own)."""
    own = ["manifest.json", ".lock", ".lock.77", ".partial", ".manifest.77.tmp"]
    hidden = [".DS_Store", ".manifest.tmp", ".chunk-000002.parquet", ".partial.old", ".x"]
    names = [_name(0), _name(1), *own, *hidden, *NOT_CHUNKS]
    want = sorted([*hidden, *NOT_CHUNKS])
    manifest = manifest_2([0, 1], total=2)
    assert plain_strays(names, manifest) == want
    assert _unknown(tmp_path, names, manifest) == want
    assert plain_strays([*names, _name(5)], None) == want
    assert _unknown(tmp_path, [_name(5)], None) == want  # the same folder, one chunk more


def test_random_folders_against_the_plain_rule(tmp_path):
    """200 folders drawn at random (seeded): manifests of both layouts, with and without
    ``chunks_total`` and ``chunks_done``, and names drawn around the listed chunks and the
    total, lookalikes and own names: ``unknown_files`` names exactly the plain rule's strays."""
    rng = random.Random(20260311)
    for case in range(200):
        total = rng.choice([None, 0, 1, 2, 3, 5, 8])
        listed = sorted(rng.sample(range(10), rng.randint(0, 4)))
        if rng.random() < 0.5:
            manifest = manifest_2(listed, total)
            if rng.random() < 0.3:
                manifest["chunks_done"] = sorted(rng.sample(range(10), 2))
        else:
            manifest = {"config": {}} if total is None else {"config": {}, "chunks_total": total}
            if rng.random() < 0.8:
                manifest["chunks_done"] = listed
        if rng.random() < 0.1:
            manifest = None
        near = {n + d for n in [*listed, total or 0] for d in (-1, 0, 1) if n + d >= 0}
        pool = [_name(n) for n in near] + rng.sample(NOT_CHUNKS, 2) + [".lock", ".x"]
        names = sorted(set(rng.sample(pool, rng.randint(1, len(pool)))))
        got = _unknown(tmp_path, names, manifest, f"case{case}")
        assert got == plain_strays(names, manifest), (manifest, names)


# What readers get ------------------------------------------------------------------------------


def _record(path: Path) -> dict:
    data = path.read_bytes()
    return {"rows": 1, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _run_folder(folder: Path, listed: list[int], unrecorded: list[int], total: int) -> Path:
    """A layout 2 run folder: listed chunks with their records, unrecorded chunk files beside."""
    _fill(folder, [_name(n) for n in [*listed, *unrecorded]])
    manifest = manifest_2([], total=total, chunks_done=listed)
    manifest["chunk_files"] = {str(n): _record(folder / _name(n)) for n in listed}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


def test_readers_get_the_listed_chunks_and_are_refused_each_stray(tmp_path):
    """``checked_chunks`` gives the listed chunks' paths in order, not an interrupted run's
    unrecorded chunk (3, below the total 5), and refuses the folder, naming the file, for each
    stray added in turn: ``chunks_total`` (5), 5 + 1, a lookalike, a hidden file."""
    folder = _run_folder(tmp_path / "run", listed=[2, 0, 1], unrecorded=[3], total=5)
    expected = [folder / _name(n) for n in (0, 1, 2)]
    assert integrity.checked_chunks(folder) == expected
    for stray in [_name(5), _name(6), "chunk-0000002.parquet", "chunk-000004.tmp", ".DS_Store"]:
        (folder / stray).write_bytes(b"x")
        with pytest.raises(storage.StorageError, match="not part of its run") as err:
            integrity.checked_chunks(folder)
        assert stray in str(err.value)
        (folder / stray).unlink()
    assert integrity.checked_chunks(folder) == expected


def test_a_layout_1_folder_is_read_by_its_chunks_done(tmp_path):
    """Layout 1 keeps its manifest beside the folder and lists ``chunks_done``: readers get
    those chunks (not the unlisted chunk 1 below the total), and a chunk at the total is
    refused."""
    folder = _fill(tmp_path / "old", [_name(n) for n in (0, 1, 2)])
    meta = {"chunks_done": [0, 2], "chunks_total": 3, "config": {}}
    (tmp_path / "old.manifest.json").write_text(json.dumps(meta))
    assert integrity.checked_chunks(folder) == [folder / _name(0), folder / _name(2)]
    (folder / _name(3)).write_bytes(b"x")
    with pytest.raises(storage.StorageError, match=r"chunk-000003\.parquet"):
        integrity.checked_chunks(folder)


def test_a_folder_without_a_manifest_is_not_a_run(tmp_path):
    """Chunk files alone are no run: readers refuse the folder."""
    folder = _fill(tmp_path / "bare", [_name(0)])
    with pytest.raises(storage.StorageError, match="is not a scopa-sim run"):
        integrity.checked_chunks(folder)
