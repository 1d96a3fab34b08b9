"""numba, set up once for the package's compiled kernels: import ``njit`` from here, and the
bit instructions the kernels share (``ctpop``, ``cttz``, ``ctlz``).

Five things are set up.

*The cache is stamped with the whole package.* numba's on-disk cache (``cache=True``) keys a
compiled function by its own source file only, but the kernels inline functions of other
modules (the fused engine inlines the capture search, the players' row policies, the seeding
hashes): after an edit of ``kernels.py``, the fused kernel would load its stale machine code
and play by the old rules without a word. Here every function of this package is stamped with
a hash of all the package's sources instead, so any edit recompiles what is cached (a fresh
clone has no cache, so it changes nothing there). With ``NUMBA_CACHE_DIR`` set, numba's own
per-file stamp applies, as numba documents it, and so it does for compiled players outside the
package (``examples/``, a user's own module).

*The array-math registry loads without scipy.linalg.* The first time a process compiles a
function, numba loads its registries of implementations, and the array-math one
(``numba.np.arraymath``) imports ``scipy.linalg`` (about 0.8 s, and it starts BLAS threads)
only to offer BLAS (``np.dot``, ``np.linalg``) to compiled code. No kernel of this package uses
BLAS, so the registries load with ``scipy.linalg`` hidden: numba then records that BLAS is
unavailable and every process that compiles starts about 0.8 s sooner. ``scipy.linalg`` is
hidden only while the registries load, and only when nothing has imported it yet, so the
analyses (statsmodels, scipy.stats) import it as usual afterwards. A kernel that needs BLAS
would fail to compile with numba's "scipy 0.16+ is required" error: import it from ``numba`` in
a process that imports ``scipy.linalg`` first. (A process that only loads kernels from the
cache loads no registry at all: see the last point.)

*Inlining copies a callee once, not once per block.* The fused kernel inlines the capture
search and every row policy (``inline="always"``, which the kernel's speed needs: numba does not
inline across its functions otherwise). Before it splices a callee in, numba deep-copies the
callee's IR block by block, each block with a fresh memo, so every block drags a copy of the
whole variable scope with it: blocks times variables, nested at each level of inlining (numba
issues 8989 and 9204). That was a third of a cold compile of the fused kernel, about 13 s of
40. Here the blocks of one copy share one memo, which is what one ``deepcopy`` of all the blocks
would do; the inlined code is the same.

*A kernel can index without wrapping negative indices.* numba indexes arrays as Python does:
before each access by a signed integer it adds the axis length to a negative index, which costs
instructions, and registers for every array's shape, on every access. :func:`no_wraparound`
marks a kernel whose indices are never negative (Cython's ``wraparound=False``): its own code,
and the callees inlined into it, index directly. Only code lowered into the marked kernel's
function is affected; whatever numba compiles meanwhile indexes as usual.

*A function loaded from the cache does not wait for numba's registries.* Before numba looks a
function up in its cache, it refreshes its whole target context: it imports some sixty modules
of implementations and installs every typing and lowering registry, 0.11 s of a process's
first call to any kernel (0.16 -> 0.05 s, measured), which every ``scopa-sim`` command, worker
and test process paid; and the array-math registry was imported at start-up to hide
``scipy.linalg`` from it, another 0.06-0.08 s. Machine code loaded from the cache needs none
of it, only numba's runtime, whose functions it links against: so a cache lookup initialises
the runtime alone, and a miss goes on to compile as before, and compiling refreshes the
context itself.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys

from llvmlite import ir
from numba import njit, types
from numba.core import funcdesc, itanium_mangler
from numba.extending import intrinsic

__all__ = ["ctlz", "ctpop", "cttz", "njit", "no_wraparound"]


def _load_registries_without_scipy_linalg() -> None:
    from numba.core import cpu

    load = cpu.CPUContext.load_additional_registries

    def load_additional_registries(self):
        """``CPUContext.load_additional_registries`` with ``scipy.linalg`` hidden while the
        array-math registry is first imported (see the module's docstring)."""
        if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
            return load(self)  # loaded already, or scipy.linalg paid for by someone else
        sys.modules["scipy.linalg"] = None  # type: ignore[assignment]  # makes its import fail
        try:
            return load(self)
        finally:
            del sys.modules["scipy.linalg"]

    if not getattr(load, "_hides_scipy_linalg", False):
        load_additional_registries._hides_scipy_linalg = True  # type: ignore[attr-defined]
        cpu.CPUContext.load_additional_registries = load_additional_registries


_load_registries_without_scipy_linalg()


class _InlineCopy:
    """The ``copy`` module as numba's inliner sees it (``inline_closurecall.copy``): consecutive
    deep copies of blocks of one scope share a memo, so the scope and its variables are copied
    once per callee instead of once per block. The memo is dropped when the inliner starts and
    ends a call (``inline_ir``), so no two inlined copies ever share an object."""

    def __init__(self, module):
        self._module = module
        self._scope = None
        self._memo = None

    def forget(self) -> None:
        self._scope = self._memo = None

    def deepcopy(self, x, memo=None):
        if memo is None and isinstance(x, self._block):
            if x.scope is not self._scope:
                self._scope, self._memo = x.scope, {}
            memo = self._memo
        return self._module.deepcopy(x, memo)

    def __getattr__(self, name):
        return getattr(self._module, name)


def _copy_inlined_callees_once() -> None:
    import copy

    from numba.core import inline_closurecall, ir

    worker = getattr(inline_closurecall, "InlineWorker", None)
    if getattr(inline_closurecall, "copy", None) is not copy or worker is None:
        return  # patched already, or a numba whose inliner is laid out otherwise: leave it
    shim = _InlineCopy(copy)
    shim._block = ir.Block
    inline_ir = worker.inline_ir

    @functools.wraps(inline_ir)
    def inline_ir_copying_once(self, *args, **kwargs):
        shim.forget()
        try:
            return inline_ir(self, *args, **kwargs)
        finally:
            shim.forget()

    inline_closurecall.copy = shim
    worker.inline_ir = inline_ir_copying_once


_copy_inlined_callees_once()

#: Mangled-name prefixes of the kernels marked by :func:`no_wraparound`.
_NO_WRAPAROUND: tuple[str, ...] = ()


def no_wraparound(dispatcher):
    """Mark the njit function ``dispatcher`` (returned) to index its arrays without wrapping
    negative indices, like Cython's ``wraparound=False``; an index below zero then reaches
    outside the array. The mark is by qualified name: it holds for every compilation of that
    Python function. For kernels whose every index is non-negative by construction: the fused
    engine's, for 10 % less time per deal (docs/design.md, "Sixth pass"). Compile it with
    ``boundscheck=True`` to check that no index is negative (tests/test_fused.py does)."""
    global _NO_WRAPAROUND
    py_func = dispatcher.py_func
    name = funcdesc.qualifying_prefix(py_func.__module__, py_func.__qualname__)
    # numba names the function _Z N <length-prefixed parts> B<abi tags> E <argument types>.
    mangled = itanium_mangler.mangle_identifier(name)
    prefix = "_Z" + (mangled[:-1] if mangled.startswith("N") else mangled)
    if prefix not in _NO_WRAPAROUND:
        _NO_WRAPAROUND = (*_NO_WRAPAROUND, prefix)
    return dispatcher


def _index_without_wraparound_where_marked() -> None:
    from numba.np import arrayobj

    fix = arrayobj.fix_integer_index
    if getattr(fix, "__wrapped__", None) is not None:
        return  # patched already

    @functools.wraps(fix)
    def fix_integer_index(context, builder, idxty, idx, size):
        if idxty.signed and builder.function.name.startswith(_NO_WRAPAROUND):
            return context.cast(builder, idx, idxty, types.intp)
        return fix(context, builder, idxty, idx, size)

    arrayobj.fix_integer_index = fix_integer_index


_index_without_wraparound_where_marked()

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


@functools.cache
def package_stamp(package: str = _PACKAGE) -> bytes:
    """SHA-256 of every Python source under ``package`` (this package by default), each with
    its relative path; computed once per process."""
    digest = hashlib.sha256()
    for folder, dirs, files in sorted(os.walk(package)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(folder, name)
            digest.update(os.path.relpath(path, package).encode())
            with open(path, "rb") as f:
                digest.update(hashlib.sha256(f.read()).digest())
    return digest.digest()


def _stamp_cache_with_the_package() -> None:
    from numba.core import caching

    class PackageCacheLocator(caching.InTreeCacheLocator):
        """numba's in-tree cache (``__pycache__`` beside the source) for this package's
        functions, stamped with :func:`package_stamp` instead of the function's own file."""

        @classmethod
        def from_function(cls, py_func, py_file):
            if not os.path.abspath(py_file).startswith(_PACKAGE + os.sep):
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):
            return package_stamp()

    locators = caching.CacheImpl._locator_classes
    if not any(c.__name__ == PackageCacheLocator.__name__ for c in locators):
        # After NUMBA_CACHE_DIR's locator (it applies only when that is set), before the rest.
        at = 1 if locators and locators[0] is caching.UserProvidedCacheLocator else 0
        locators.insert(at, PackageCacheLocator)


_stamp_cache_with_the_package()


def _load_cached_without_refreshing() -> None:
    from numba.core import caching
    from numba.core.runtime import rtsys

    def load_overload(self, sig, target_context):
        """``Cache.load_overload`` with the runtime initialised instead of the whole context
        refreshed (see the module's docstring)."""
        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    caching.Cache.load_overload = load_overload


_load_cached_without_refreshing()


def _bit_intrinsic(name: str, doc: str):
    """LLVM's ``ctpop``, ``cttz`` or ``ctlz`` of an integer as an int64-valued numba intrinsic:
    one instruction (popcnt, tzcnt, lzcnt) where the CPU has it."""

    def typer(typingctx, x):
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            (value,) = args
            if name == "ctpop":
                out = builder.ctpop(value)
            elif name == "cttz":  # defined (the width) on zero
                out = builder.cttz(value, ir.Constant(ir.IntType(1), 0))
            else:
                out = builder.ctlz(value, ir.Constant(ir.IntType(1), 0))
            if value.type.width < 64:
                return builder.zext(out, ir.IntType(64))
            return out

        return types.int64(x), codegen

    typer.__name__ = typer.__qualname__ = name
    typer.__doc__ = doc
    return intrinsic(typer)


ctpop = _bit_intrinsic("ctpop", "Number of set bits.")
cttz = _bit_intrinsic("cttz", "Number of trailing zero bits (the width on zero).")
ctlz = _bit_intrinsic("ctlz", "Number of leading zero bits (the width on zero).")
