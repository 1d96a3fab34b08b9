"""Throughput benchmark: ``python -m bench`` from the repository root (``make bench``).

A tool beside the package, not part of it: it drives the engine, the runner and the
``scopa-sim`` command from outside, and is not installed with ``scopa_sim``.

Prints one JSON object per line to stdout, one row per case, as each is measured (progress goes
to stderr). Rows come in groups, in this order (``--only GROUP[,GROUP]`` runs a subset):

- ``native``: the native yardstick, ``build/native_scopa`` (``bench/native_scopa.c``, built
  here with ``cc`` when missing or stale): classic random-vs-random deals in plain C. Every
  other row carries ``native_deals_per_second`` and ``share_of_native``: its deals per second
  over the native figure of the same run. Only classic random-vs-random rows play what the C
  program plays; the rest use it as a fixed yardstick. It is always measured, whatever
  ``--only`` says, and gives a ``skipped`` row when there is no C compiler.
- ``engine``: ``play_deals`` and ``play_games`` in this process. The classic random and greedy
  ``play_deals`` rows, which the speed targets compare with native speed, are timed in rounds
  with the native program (native, then the row; ``paired`` in ``bench.cases.Case``), and their
  ``share_of_native`` is the median of each round's share.
- ``memory``: the same deals at two sizes, each in a fresh process (``rss_growth_mb``: peak
  RSS during the run minus RSS after the warm-up). Consumed in slices (each slice's outcomes
  dropped), the growth should not depend on the number of deals, only on the batch size;
  retained (one ``play_deals`` call, which returns every outcome), it grows with the deals.
- ``runner``: whole games through the runner into Parquet, one and two workers.
- ``growth``: how cost grows: 10^4 to 10^7 classic random-vs-random deals, each size in a fresh
  process, consumed in chunks of the runner's size so memory stays flat: deals per second and
  peak RSS (the whole process's, imports included) against the number of deals.
- ``process``: the whole command, ``scopa-sim simulate ... --deals 1000000 --workers 1``,
  ``--deals 2000000 --workers 2``, and the first again confined to one CPU, timed by the wall
  clock from start-up to exit (imports, compilation cache loading, workers, Parquet writing),
  in ``runs`` rounds of the native yardstick (1,000,000 deals) followed by each command: the
  times are medians, and the share of native and the 2-worker row's speed-ups (over one
  worker, and over one worker on one core) are medians of each round's ratios
  (``bench.process.process_rows`` says why).
- ``presets``: every preset in the registry (``scopa_sim.rules.PRESETS``), random vs random and
  greedy vs greedy: deals per second, ``ns_per_card`` (seconds / (deals x plays per deal)) and
  ``per_card_vs_classic``; a preset the engines cannot play gives a ``skipped`` row.
- ``paths``: engine paths compared on the same deals (``bench.cases.PATH_CASES``).
- ``search``: the search players' CPU time a decision (``bench.search``).
- ``instructions``, only when ``--only`` names it: instructions a classic deal, counted by
  valgrind (``bench.instructions``), a figure the machine's drift does not move.

Timing: each in-process case is warmed up first (numba compilation and cache loading are
excluded), then played ``runs`` times; ``seconds`` is the median run. Fresh-process cases
(``fresh``) run once in a new Python process after their own warm-up. Speed is measured with
``make bench`` on an idle machine, never in tests.

Modules: ``cases`` (what is measured), ``timing`` (how a row is timed), ``native`` (the C
yardstick), ``process`` (the whole-command rows), ``search`` (the search players' rows),
``instructions`` (the counted rows), ``output`` (the rows as printed), ``run`` (the jobs in
order, and the command line). To add a row, add a ``Case`` to ``bench.cases.CASES``
(and a runner to ``RUNNERS`` for a new kind).
"""
