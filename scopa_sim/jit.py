"""numba, set up once for the package's compiled kernels: import ``njit`` from here.

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

from numba import njit

__all__ = ["njit"]


def _load_array_math_without_scipy() -> None:
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return  # loaded already (nothing to save), or scipy.linalg paid for by someone else
    sys.modules["scipy.linalg"] = None  # type: ignore[assignment]  # makes its import fail
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        del sys.modules["scipy.linalg"]


_load_array_math_without_scipy()
