"""numba as scopa_sim/jit.py sets it up: the cache is stamped with the whole package (a kernel
that inlines a function of another module must not load stale machine code after that module
changes), a kernel made by a factory over functions is found in the cache by the next process,
inlining copies each callee once, a kernel marked ``no_wraparound`` indexes without wrapping
negative indices while every other function keeps Python's indexing, and a function marked
``always_inline`` is compiled once and inlined by LLVM into its callers."""

from __future__ import annotations

import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba.core import caching

from scopa_sim import jit, seeding
from scopa_sim.engine import fused, kernels
from scopa_sim.players import player


def _locator():
    (found,) = [
        c for c in caching.CacheImpl._locator_classes if c.__name__ == "PackageCacheLocator"
    ]
    return found


def test_the_stamp_changes_with_any_source_of_the_package(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub" / "b.py").write_text("y = 2\n")
    (tmp_path / "notes.txt").write_text("not a source")
    stamp = jit.package_stamp.__wrapped__  # uncached: the files change between calls
    first = stamp(str(tmp_path))
    assert stamp(str(tmp_path)) == first
    (tmp_path / "notes.txt").write_text("still not a source")
    assert stamp(str(tmp_path)) == first
    (tmp_path / "sub" / "b.py").write_text("y = 3\n")
    second = stamp(str(tmp_path))
    assert second != first
    (tmp_path / "sub" / "b.py").rename(tmp_path / "b.py")  # same text, another place
    assert stamp(str(tmp_path)) not in (first, second)


def test_package_functions_are_stamped_with_the_package_and_others_are_not():
    locator = _locator()
    kernel = fused.kernel_for((player("greedy").fused_policy,))
    for dispatcher in (kernel, kernels.legal_actions_into, seeding._shuffle):
        py_func = dispatcher.py_func
        found = locator.from_function(py_func, py_func.__code__.co_filename)
        assert found is not None
        assert found.get_source_stamp() == jit.package_stamp()
        assert found.get_cache_path() == str(
            Path(py_func.__code__.co_filename).parent / "__pycache__"
        )

    def elsewhere():
        return 1

    assert locator.from_function(elsewhere, __file__) is None  # tests/ is not the package


def test_a_cached_kernel_records_the_package_stamp():
    seeding.packs(np.uint64(1), np.arange(2), np.zeros(2, np.int64), np.zeros(2, np.int64), 40)
    cache = seeding._shuffle._cache
    with open(cache._cache_file._index_path, "rb") as f:
        pickle.load(f)  # numba's version
        stamp, _ = pickle.loads(f.read())
    assert stamp == jit.package_stamp()


# Inlining copies each callee once (jit._copy_inlined_callees_once) -----------------------------


def _branchy(x, k):
    total = 0
    for i in range(k):
        if (x >> i) & 1:
            total += i
        else:
            total -= 1
    return total


def test_the_inliner_copies_the_blocks_of_one_callee_with_one_scope():
    from numba.core import inline_closurecall, ir
    from numba.core.compiler import run_frontend

    shim = inline_closurecall.copy
    assert isinstance(shim, jit._InlineCopy)
    blocks = list(run_frontend(_branchy).blocks.values())
    assert len(blocks) > 3 and len({id(b.scope) for b in blocks}) == 1

    def copies():
        out = [shim.deepcopy(b) for b in blocks]
        scopes = {id(b.scope) for b in out} | {
            id(i.target.scope) for b in out for i in b.body if isinstance(i, ir.Assign)
        }
        assert len(scopes) == 1  # one copy of the scope for all the blocks
        assert out[0].scope is not blocks[0].scope
        assert [str(b) for b in out] == [str(b) for b in blocks]
        return out

    shim.forget()  # as the inliner does at the start of each callee
    first = copies()
    shim.forget()
    second = copies()
    assert first[0].scope is not second[0].scope  # two callees share nothing
    assert all(a.body[0] is not b.body[0] for a, b in zip(first, second, strict=True))
    shim.forget()


def test_nested_inlined_functions_compute_what_python_does():
    inner = jit.njit(inline="always")(_branchy)

    @jit.njit(inline="always")
    def middle(x, k):
        return inner(x, k) * 2 + inner(x ^ 5, k)

    @jit.njit
    def outer(xs, k):
        out = np.empty(len(xs), np.int64)
        for j in range(len(xs)):
            out[j] = middle(xs[j], k) - inner(xs[j], k + 1)
        return out

    xs = np.arange(-40, 300, 7, dtype=np.int64)
    expected = [(_branchy(x, 9) * 2 + _branchy(x ^ 5, 9)) - _branchy(x, 10) for x in xs.tolist()]
    assert outer(xs, 9).tolist() == expected


def test_each_fused_kernel_has_a_cache_index_of_its_own():
    """The fused kernels, closures of one factory (``fused.kernel_for``), are cached under names
    of their own: processes compiling two of them at once cannot drop each other's entry from a
    shared index."""
    policies = [player(n).fused_policy for n in ("random", "greedy", "memory")]
    lineups = [(policies[0],), (policies[1],), (policies[1], policies[0]), (policies[2],)]
    indexes = {fused.kernel_for(p)._cache._cache_file._index_path for p in lineups}
    assert len(indexes) == len(lineups)
    assert all(Path(p).parent.name == "__pycache__" for p in indexes)


_POLICY = """
from numba import njit

@njit(inline="always")
def policy(x):
    return x + {step}
"""

_FACTORY = """
import sys
import numpy as np
from numba import njit
import scopa_sim.jit  # the closure keys
from policy import policy

def factory(fn):
    def kernel(xs):
        out = np.empty_like(xs)
        for i in range(len(xs)):
            out[i] = fn(xs[i])
        return out
    return njit(cache=True)(kernel)

k = factory(policy)
print(k(np.arange(3))[-1], sum(k.stats.cache_hits.values()))
"""


def test_a_kernel_made_by_a_factory_over_functions_is_found_in_the_cache_until_they_change(
    tmp_path,
):
    """numba keys a cached closure by the pickle of its cells, and a jitted function pickles with
    an id drawn anew in each process; keyed by what the function is instead
    (``jit._key_closures_by_their_functions``), a second process loads the kernel from the cache,
    and an edit of the function's file compiles it again."""
    (tmp_path / "policy.py").write_text(_POLICY.format(step=1))
    (tmp_path / "factory.py").write_text(_FACTORY)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(Path(jit.__file__).parents[1])])

    def run():
        done = subprocess.run(
            [sys.executable, "factory.py"], cwd=tmp_path, env=env, capture_output=True,
            text=True, check=True,
        )  # fmt: skip
        return done.stdout.split()

    assert run() == ["3", "0"]  # compiled
    assert run() == ["3", "1"]  # from the cache
    (tmp_path / "policy.py").write_text(_POLICY.format(step=2))
    assert run() == ["4", "0"]  # the policy changed: compiled again


def _at(a, i):
    return a[i]


_at_wrapping = jit.njit(_at)  # compiled apart: keeps Python's indexing
_at_inlined = jit.njit(inline="always")(_at)  # becomes part of its caller


def _both(a, i):
    return _at_inlined(a, i), _at_wrapping(a, i)


def _both_unmarked(a, i):
    return _at_inlined(a, i), _at_wrapping(a, i)


def test_a_no_wraparound_kernel_indexes_negative_indices_unwrapped_and_nothing_else_does():
    """Index -1 of a view into a larger array: a marked kernel (and a callee inlined into it)
    reads the element before the view, as C would; a callee compiled apart and an unmarked
    kernel of the same source read the view's last element, as Python does; compiled with
    bounds checking, the marked kernel raises IndexError instead."""
    whole = np.arange(10, dtype=np.int64)
    view = whole[5:]
    marked = jit.no_wraparound(jit.njit(_both))
    assert marked(view, -1) == (4, 9)
    assert marked(view, 2) == (7, 7)
    assert jit.njit(_both_unmarked)(view, -1) == (9, 9)
    checked = jit.no_wraparound(jit.njit(boundscheck=True)(_both))
    with pytest.raises(IndexError):
        checked(view, -1)
    assert checked(view, 4) == (9, 9)
    assert all(p.startswith("_ZN") for p in jit._NO_WRAPAROUND)


def _long_sum(a, k):
    """Enough code that LLVM would not inline it of its own accord."""
    total = 0
    for i in range(a.shape[0]):
        x = a[i]
        if x % 3 == 0:
            total += x * k
        elif x % 5 == 1:
            total -= x // (k + 1)
        elif x % 7 == 2:
            total ^= x << 3
        else:
            total += (x * x) % 11
    return total


def _long_sum_marked(a, k):
    return _long_sum(a, k)


_long_sum_marked.__code__ = _long_sum.__code__


def _calls_of(dispatcher) -> list[str]:
    (llvm,) = dispatcher.inspect_llvm().values()
    return re.findall(r"call [^@\n]*@\"?([\w.$]+)", llvm)


def test_a_function_marked_always_inline_is_inlined_into_its_callers_and_others_are_called():
    """The caller of the marked function holds no call to it, and computes what Python does;
    the caller of the same code unmarked calls it (so the mark, not LLVM's own judgement,
    inlined it)."""
    marked = jit.always_inline(jit.njit(_long_sum_marked))
    unmarked = jit.njit(_long_sum)

    @jit.njit
    def through_marked(a, k):
        return marked(a, k) + 1

    @jit.njit
    def through_unmarked(a, k):
        return unmarked(a, k) + 1

    a = np.arange(40, dtype=np.int64)
    expected = _long_sum(a, 2) + 1
    assert through_marked(a, 2) == through_unmarked(a, 2) == expected
    assert not [c for c in _calls_of(through_marked) if "_long_sum_marked" in c]
    assert [c for c in _calls_of(through_unmarked) if "_long_sum" in c]


def test_fused_kernels_compile_each_policy_apart_and_the_checked_kernel_inlines_it():
    """A kernel calls a policy compiled once under a name of its own, marked for LLVM to inline
    and to index as the kernel does; the bounds-checked kernel is handed the policy itself."""
    decide = player("greedy").fused_policy.decide
    apart = fused._compiled_apart(decide)
    assert fused._compiled_apart(decide) is apart
    assert apart.py_func.__qualname__ == decide.py_func.__qualname__ + "_apart"
    assert apart.py_func.__code__ is decide.py_func.__code__
    prefix = jit._mangled_prefix(apart)
    assert prefix in jit._ALWAYS_INLINE and prefix in jit._NO_WRAPAROUND
    assert jit._mangled_prefix(decide) not in jit._ALWAYS_INLINE
    policies = (player("greedy").fused_policy,)
    assert _policies_called(fused.kernel_for(policies)) == [apart.py_func.__qualname__]
    assert _policies_called(fused.kernel_for(policies, checked=True)) == [
        decide.py_func.__qualname__
    ]


def test_a_small_policy_is_inlined_by_numba_and_the_others_beside_it_are_compiled_apart():
    """random's policy is little code (``FusedPolicy.small``): numba inlines it, typed again in
    each kernel, where a policy compiled apart costs a few instructions a decision; greedy's,
    in the same kernel, is still compiled apart."""
    random, greedy = player("random").fused_policy, player("greedy").fused_policy
    assert random.small and not greedy.small
    called = _policies_called(fused.kernel_for((greedy, random)))
    assert called == [
        fused._compiled_apart(greedy.decide).py_func.__qualname__,
        random.decide.py_func.__qualname__,
    ]


def _policies_called(kernel) -> list[str]:
    """The qualified names of the functions a (not yet compiled) kernel's dispatch chain calls:
    the jitted functions in the closures of the chain's links (functions of ``engine.fused``)."""
    found, todo = [], [kernel.py_func]
    while todo:
        for cell in todo.pop().__closure__ or ():
            value = cell.cell_contents
            func = getattr(value, "py_func", None)
            if func is None:
                continue
            if func.__module__ == fused.__name__:  # the chain's links
                todo.append(func)
            else:
                found.append(func.__qualname__)
    return found


_LOADS_FROM_THE_CACHE = """
import sys
import numpy as np
from numba import njit
from scopa_sim import api
api.play_deals("classic", ["random", "greedy"], deals=50, seed=1)
# Two of the modules a refresh imports:
registries = any(m in sys.modules for m in ("numba.np.npyimpl", "numba.np.arraymath"))

@njit
def reversed_sum(a):  # never cached: compiled in this process
    return np.sort(a)[::-1].cumsum()[-1]

print(registries, reversed_sum(np.arange(5.0)), "numba.np.arraymath" in sys.modules,
      "scipy.linalg" in sys.modules)
"""


def test_kernels_load_from_the_cache_without_numba_refreshing_its_registries():
    """A process whose kernels are all in numba's cache never loads numba's implementation
    registries (``jit._load_cached_without_refreshing``), and can still compile a function
    afterwards: compiling loads them, with scipy.linalg hidden from the array-math registry
    (``jit._load_registries_without_scipy_linalg``). The first process fills the cache if it
    is not full."""
    command = [sys.executable, "-c", _LOADS_FROM_THE_CACHE]
    runs = [
        subprocess.run(command, capture_output=True, text=True, check=True, timeout=600).stdout
        for _ in range(2)
    ]
    assert runs[1].split() == ["False", "10.0", "True", "False"]


def _save_two_overloads_at_once(folder: Path) -> caching.IndexDataCacheFile:
    """Two processes save two overloads of one function into one cache, both having read the
    index before either wrote it, the first one's machine code written last."""
    first = caching.IndexDataCacheFile(str(folder), "f-1.py311", b"stamp")
    second = caching.IndexDataCacheFile(str(folder), "f-1.py311", b"stamp")
    second._load_index = lambda: {}  # what it read before the first wrote
    held = []
    first._save_data = lambda name, data: held.append((name, data))
    first.save(("int64", "magic"), "code of int64")
    second.save(("float64", "magic"), "code of float64")
    del first._save_data
    for name, data in held:
        first._save_data(name, data)
    return caching.IndexDataCacheFile(str(folder), "f-1.py311", b"stamp")


def test_two_overloads_saved_at_once_never_share_a_data_file(tmp_path):
    """Each index entry names its own overload's machine code, whatever the order of two
    processes' writes (numba's own save can point one signature at the other's code); a lost
    entry only means a compile. A key's file is named alike in every process, so a new
    compile of it overwrites its file rather than adding one."""
    reader = _save_two_overloads_at_once(tmp_path)
    assert reader.load(("float64", "magic")) == "code of float64"  # the index written last
    assert reader.load(("int64", "magic")) in ("code of int64", None)

    script = (
        "import scopa_sim.jit; from numba.core import caching; "
        f"f = caching.IndexDataCacheFile({str(tmp_path)!r}, 'g', b's'); "
        "f.save(('int64', 'magic'), 1); print(sorted(f._load_index().values()))"
    )
    root = Path(__file__).resolve().parents[1]
    names = {
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=root
        ).stdout
        for _ in range(2)
    }
    assert len(names) == 1 and ".nbc" in names.pop()
