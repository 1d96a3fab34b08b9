"""Measurement of the fused engine path: ``.venv/bin/python bench/fused_paths.py``.

Deals per second of ``api.play_deals``, fused against lockstep, where the fused path's time goes,
and every preset. It drives the engine through the public API, so it lives outside the package
(the engine never imports up).
"""

from __future__ import annotations

from scopa_sim.engine import batch as lockstep


def main() -> None:
    """Deals per second of ``api.play_deals``, fused against lockstep (best of ``--runs`` after a
    warm-up, wall clock and CPU time), where the fused path's time goes, and every preset."""
    import argparse
    import json
    import time
    from contextlib import contextmanager
    from unittest import mock

    from scopa_sim import api
    from scopa_sim.engine import fused as this  # not __main__: the module the engine calls
    from scopa_sim.engine import outcomes
    from scopa_sim.rules import PRESETS

    parser = argparse.ArgumentParser(description=main.__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=400_000, help="deals per fused run")
    parser.add_argument("--lockstep-deals", type=int, default=100_000)
    parser.add_argument("--preset-deals", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    def best(fn, runs):
        fn_warm = min(5_000, args.deals)
        fn(fn_warm)
        wall, cpu = [], []
        for _ in range(runs):
            w, c = time.perf_counter(), time.process_time()
            fn(None)
            wall.append(time.perf_counter() - w)
            cpu.append(time.process_time() - c)
        return min(wall), min(cpu)

    def row(**fields):
        print(json.dumps(fields), flush=True)

    compiled = ("random", "greedy", "defensive", "memory", "chitarrella", "expert")
    pairs = [(p, p) for p in compiled]

    for names in pairs:
        for path, deals in (("fused", args.deals), ("lockstep", args.lockstep_deals)):
            wall, cpu = best(
                lambda n, path=path, deals=deals, names=names: api.play_deals(
                    "classic", names, deals=n or deals, seed=1, path=path
                ),
                args.runs,
            )
            speed = {"deals_per_s_wall": round(deals / wall), "deals_per_s_cpu": round(deals / cpu)}
            row(case="classic", players=names, path=path, deals=deals, **speed)

    # Where the fused path's time goes (CPU time, one run of --deals).
    spent: dict[str, float] = {}

    def timed(inner, label):
        def timed_call(*a, **k):
            start = time.process_time()
            try:
                return inner(*a, **k)
            finally:
                spent[label] = spent.get(label, 0.0) + time.process_time() - start

        return timed_call

    @contextmanager
    def patched(module, name, label):
        inner = getattr(module, name)
        setattr(module, name, timed(inner, label))
        try:
            yield
        finally:
            setattr(module, name, inner)

    kernel_for = this.kernel_for

    def timed_kernel_for(*args, **kwargs):
        return timed(kernel_for(*args, **kwargs), "kernel")

    for names in pairs:
        spent.clear()
        with (
            patched(lockstep, "deal_packs", "packs"),
            patched(lockstep, "first_dealers", "first dealers"),
            mock.patch.object(this, "kernel_for", timed_kernel_for),
            patched(lockstep.scoring, "score", "scoring"),
            patched(lockstep, "_deal_outcomes", "outcomes"),
            patched(outcomes.DealOutcomes, "concat", "concat"),
        ):
            start = time.process_time()
            api.play_deals("classic", names, deals=args.deals, seed=2, path="fused")
            total = time.process_time() - start
        shares = {k: round(v / total, 3) for k, v in spent.items()}
        shares["rest"] = round(1 - sum(spent.values()) / total, 3)
        row(profile="classic fused", players=names, seconds_cpu=round(total, 3), shares=shares)

    for name, rules in PRESETS.items():
        for p in compiled:
            names = [p] * rules.n_sides
            deals = args.preset_deals
            wall, cpu = best(
                lambda n, names=names, name=name, deals=deals: api.play_deals(
                    name, names, deals=n or deals, seed=1, path="fused"
                ),
                args.runs,
            )
            row(case=name, players=p, path="fused", deals=deals,
                deals_per_s_wall=round(deals / wall), deals_per_s_cpu=round(deals / cpu),
                ns_per_play_cpu=round(cpu / (deals * rules.plays) * 1e9, 1))  # fmt: skip


if __name__ == "__main__":
    main()
