"""numba, set up once for the package's compiled kernels: import ``njit`` from here, and the
bit instructions the kernels share (``ctpop``, ``cttz``, ``ctlz``).

Why: the first time a process compiles a kernel or loads one from numba's cache, numba loads its
array-math registry (``numba.np.arraymath``), and that registry imports ``scipy.linalg`` (about
0.8 s, and it starts BLAS threads) only to offer BLAS (``np.dot``, ``np.linalg``) to compiled
code. No kernel of this package uses BLAS, so the registry is loaded here, before any kernel,
with ``scipy.linalg`` hidden: numba then records that BLAS is unavailable and every process that
plays starts about 0.8 s sooner (``scopa-sim`` itself, each worker, each test subprocess).
``scipy.linalg`` is hidden only while the registry loads, and only when nothing has imported it
yet, so the analyses (statsmodels, scipy.stats) import it as usual afterwards. A kernel that
needs BLAS would fail to compile with numba's "scipy 0.16+ is required" error: import it from
``numba`` in a process that imports ``scipy.linalg`` first.
"""

from __future__ import annotations

import sys

from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

__all__ = ["ctlz", "ctpop", "cttz", "njit"]


def _load_array_math_without_scipy() -> None:
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return  # loaded already (nothing to save), or scipy.linalg paid for by someone else
    sys.modules["scipy.linalg"] = None  # type: ignore[assignment]  # makes its import fail
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        del sys.modules["scipy.linalg"]


_load_array_math_without_scipy()


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
