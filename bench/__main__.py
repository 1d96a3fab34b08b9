"""``python -m bench``: run the benchmark (``bench.run.main``)."""

from bench.run import main

main()
