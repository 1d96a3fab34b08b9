"""One question per module, each answered from the Parquet data of ``make simulate``.

Every module exposes ``build(data: Path) -> scopa_sim.reporting.Page`` and runs on its own
(``python -m analyses.ace_value``); ``python -m analyses`` builds every page and the index.
"""
