"""numba, set up once for the package's compiled kernels: import ``njit`` from here, and the
bit instructions the kernels share (``ctpop``, ``cttz``, ``ctlz``).

Nine things are set up.

*The cache is stamped with the whole package.* numba keys a cached function by its own source
file, but the kernels inline functions of other modules, so after an edit of ``kernels.py`` the
fused kernel would load stale machine code and play by the old rules without a word. Every
function of this package is stamped with a hash of all its sources instead. With
``NUMBA_CACHE_DIR`` set, numba's own per-file stamp applies, as numba documents it, and so it
does for compiled players outside the package (``examples/``, a user's own module).

*The array-math registry loads without scipy.linalg.* numba's array-math registry imports
``scipy.linalg`` (slow, and it starts BLAS threads) only to offer BLAS to compiled code, which
no kernel here uses; so the registries load with it hidden, and only when nothing has imported
it yet (the analyses import it as usual afterwards). A kernel that needs BLAS would fail with
numba's "scipy 0.16+ is required": compile it in a process that imports ``scipy.linalg`` first.

*Inlining copies a callee once, not once per block.* The fused kernel inlines the capture
search and every row policy (``inline="always"``). numba deep-copies a callee's IR block by
block, each with a fresh memo, which copies the whole scope once per block (numba issues 8989
and 9204) and dominated a cold compile. Here the blocks of one copy share one memo, as one
``deepcopy`` of all the blocks would; the inlined code is the same.

*Inlining translates a callee once per process.* Before each inlining numba translates the
callee's bytecode to IR again, running the untyped passes, its own inlining of its callees
included, so a policy inlined in twenty kernels, and the capture search inlined in each policy,
were translated over and over (about half of a kernel's cold compile). The IR is a function of
the callee alone (and of the compiler flags, part of the key), and numba copies it before it
splices it in, so it is kept and reused; a caller that types its locals is translated as
before.

*A kernel can index without wrapping negative indices.* numba adds the axis length to a
negative index on every access by a signed integer, which costs instructions and registers.
:func:`no_wraparound` marks a kernel whose indices are never negative (Cython's
``wraparound=False``): its own code and its inlined callees index directly; nothing else does.

*A function can be compiled once and still be inlined.* :func:`always_inline` marks a function
for LLVM to inline into its callers: numba types and compiles it once, as a function of its own,
and each caller that links it in inlines it when its module is optimised, so the machine code is
as if numba had inlined it (``inline="always"``), which types the callee again in every caller.
The fused kernels call their lineup's row policies so (a policy in a dozen kernels was typed a
dozen times).

*A function loaded from the cache does not wait for numba's registries.* Before a cache lookup
numba refreshes its whole target context (dozens of modules, every typing and lowering
registry), which every command, worker and test process paid on its first call. Machine code
loaded from the cache needs only numba's runtime, so a lookup initialises that alone; a miss
compiles as before, and compiling refreshes the context itself.

*Two overloads of one function never share a cache file.* numba names a new overload's data
file by the first number its index does not use, and writes the index before the data; two
processes compiling two overloads of one function at once (two test workers, a command and its
workers) can so pick the same file, and the index can end up pointing one signature at the other's
machine code, which runs on the wrong types. Here the data file is named by a digest of its key
and written before the index entry, so an entry only ever names its own overload's code (a race
can still drop an entry: that overload is compiled again).

*A closure over jitted functions has a stable cache key.* numba keys a cached closure by the
pickle of its cells, which for a jitted function differs in every process, so a kernel built by
a factory over policies would never be found in the cache; such cells are keyed by what the
functions are instead (:func:`_key_closures_by_their_functions`).
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

__all__ = ["always_inline", "ctlz", "ctpop", "cttz", "njit", "no_wraparound"]


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


def _translate_inlined_callees_once() -> None:
    from numba.core import inline_closurecall

    worker = getattr(inline_closurecall, "InlineWorker", None)
    inline_function = getattr(worker, "inline_function", None)
    if worker is None or getattr(inline_function, "_translates_once", False):
        return  # a numba whose inliner is laid out otherwise, or patched already
    translated: dict = {}

    @functools.wraps(inline_function)
    def inline_translated_once(self, caller_ir, block, i, function, arg_typs=None):
        if self.locals:  # the caller types some of its locals: translate as numba does
            return inline_function(self, caller_ir, block, i, function, arg_typs)
        key = (function, repr(self.flags))
        callee_ir = translated.get(key)
        if callee_ir is None:
            callee_ir = translated[key] = self.run_untyped_passes(function)
        freevars = function.__code__.co_freevars
        return self.inline_ir(caller_ir, block, i, callee_ir, freevars, arg_typs=arg_typs)

    inline_translated_once._translates_once = True  # type: ignore[attr-defined]
    worker.inline_function = inline_translated_once


_translate_inlined_callees_once()

#: Mangled-name prefixes of the kernels marked by :func:`no_wraparound`.
_NO_WRAPAROUND: tuple[str, ...] = ()


def no_wraparound(dispatcher):
    """Mark the njit function ``dispatcher`` (returned) to index its arrays without wrapping
    negative indices, like Cython's ``wraparound=False``; an index below zero then reaches
    outside the array. The mark is by qualified name: it holds for every compilation of that
    Python function. For kernels whose every index is non-negative by construction, such as
    the fused engine's hot loop. Compile it with ``boundscheck=True`` to check that no index is
    negative (tests/test_fused.py does)."""
    global _NO_WRAPAROUND
    prefix = _mangled_prefix(dispatcher)
    if prefix not in _NO_WRAPAROUND:
        _NO_WRAPAROUND = (*_NO_WRAPAROUND, prefix)
    return dispatcher


def _mangled_prefix(dispatcher) -> str:
    """The start of the mangled name of every compilation of the njit function ``dispatcher``:
    its qualified name, as numba mangles it."""
    py_func = dispatcher.py_func
    name = funcdesc.qualifying_prefix(py_func.__module__, py_func.__qualname__)
    # numba names the function _Z N <length-prefixed parts> B<abi tags> E <argument types>.
    mangled = itanium_mangler.mangle_identifier(name)
    return "_Z" + (mangled[:-1] if mangled.startswith("N") else mangled)


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

#: Mangled-name prefixes of the functions marked by :func:`always_inline`.
_ALWAYS_INLINE: tuple[str, ...] = ()


def always_inline(dispatcher):
    """Mark the njit function ``dispatcher`` (returned) for LLVM to inline wherever it is
    called: it is typed and compiled once, as a function of its own (and cached as one), and
    each caller links it in and inlines it when its module is optimised, as if numba had
    inlined it (``inline="always"``), which would type it again in every caller. The mark is
    by qualified name, as :func:`no_wraparound`'s."""
    global _ALWAYS_INLINE
    prefix = _mangled_prefix(dispatcher)
    if prefix not in _ALWAYS_INLINE:
        _ALWAYS_INLINE = (*_ALWAYS_INLINE, prefix)
    return dispatcher


def _inline_where_marked() -> None:
    from numba.core import codegen

    add_ir_module = codegen.CPUCodeLibrary.add_ir_module
    if getattr(add_ir_module, "_inlines_marked", False):
        return  # patched already

    @functools.wraps(add_ir_module)
    def add_ir_module_inlining_marked(self, ir_module):
        for function in ir_module.functions:
            if function.blocks and function.name.startswith(_ALWAYS_INLINE):
                function.attributes.add("alwaysinline")
        return add_ir_module(self, ir_module)

    add_ir_module_inlining_marked._inlines_marked = True  # type: ignore[attr-defined]
    codegen.CPUCodeLibrary.add_ir_module = add_ir_module_inlining_marked


_inline_where_marked()

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


def _name_cache_files_by_their_keys() -> None:
    from numba.core import caching

    if getattr(caching.IndexDataCacheFile.save, "_named_by_key", False):
        return

    def save(self, key, data):
        """``IndexDataCacheFile.save``, the data file named by its key and written first (see
        the module's docstring)."""
        number = int.from_bytes(hashlib.sha256(self._dump(key)).digest()[:6], "big")
        name = self._data_name(number)
        self._save_data(name, data)
        overloads = self._load_index()  # read again now: another process may have added one
        if overloads.get(key) != name:
            overloads[key] = name
            self._save_index(overloads)

    save._named_by_key = True  # type: ignore[attr-defined]
    caching.IndexDataCacheFile.save = save


_name_cache_files_by_their_keys()


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


def _closure_token(value, seen: tuple = ()):
    """A stable stand-in for a closure cell in numba's cache key: a jitted function by its
    name, code and source file's digest (and its own closure, recursively), instead of the
    pickle numba takes, which holds a random id per process."""
    from numba.core.dispatcher import Dispatcher

    if isinstance(value, Dispatcher):
        func = value.py_func
        if id(func) in seen:
            return ("recursive", func.__qualname__)
        cells = tuple(
            _closure_token(c.cell_contents, (*seen, id(func))) for c in func.__closure__ or ()
        )
        source = _file_digest(func.__code__.co_filename)
        return ("jit", func.__module__, func.__qualname__, func.__code__.co_code, source, cells)
    if isinstance(value, tuple | list):
        return tuple(_closure_token(v, seen) for v in value)
    return value


@functools.cache
def _file_digest(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return ""


def _key_closures_by_their_functions() -> None:
    """Make numba's cache key of a closure stable across processes.

    numba keys a cached closure by the pickle of its cells; a cell holding a jitted function
    pickles with an id drawn anew in every process, so a kernel built by a factory over
    functions (the fused engine's kernel per lineup of policies) would never be found in the
    cache. Here such cells are keyed by :func:`_closure_token` instead: by what the functions
    are, including their source file, so an edit of a policy outside this package recompiles
    the kernels that inline it."""
    import pickle

    from numba.core import caching

    index_key = caching.Cache._index_key
    if getattr(index_key, "_keys_closures", False):
        return

    def _index_key(self, sig, codegen):
        func = self._py_func
        if func.__closure__ is None:
            return index_key(self, sig, codegen)
        cells = pickle.dumps(_closure_token(tuple(c.cell_contents for c in func.__closure__)))
        code = hashlib.sha256(func.__code__.co_code).hexdigest()
        return (sig, codegen.magic_tuple(), (code, hashlib.sha256(cells).hexdigest()))

    _index_key._keys_closures = True  # type: ignore[attr-defined]
    caching.Cache._index_key = _index_key


_key_closures_by_their_functions()
