"""Command line for the lab: ``python -m helpers.lab {list,train,evaluate} --help``.

Examples::

    python -m helpers.lab list                       # shipped checkpoints, sizes, training times, commands
    python -m helpers.lab train rope                 # re-train one shipped checkpoint (writes checkpoints/rope.*)
    python -m helpers.lab train all                  # all six, fine-tunes after their parent
    python -m helpers.lab evaluate                   # every method × length → results/ (JSON, PNGs, RESULTS.md table)
    python -m helpers.lab evaluate --methods rope pi --lengths 64 128 --no-write   # print a subset

Bad arguments exit with status 2 and a message naming the argument and what is allowed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

from helpers.lab.train import (
    CHECKPOINT_DIR,
    CHECKPOINT_NAMES,
    RECIPES,
    list_checkpoints,
    save_checkpoint,
    train_recipe,
    write_checkpoint_index,
)


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {value}")
    return value


def length_arg(text: str) -> int:
    """argparse type: an evaluation length in tokens, an integer >= 16."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 16 (tokens), got {text!r}") from None
    if value < 16:
        raise argparse.ArgumentTypeError(f"must be an integer >= 16 (tokens), got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    from helpers.lab.evaluate import METHODS

    parser = argparse.ArgumentParser(
        prog="python -m helpers.lab",
        description="Tiny-model lab: train small transformers with any positional encoding and measure extrapolation.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="{list,train,evaluate}")

    sub.add_parser("list", help="list the shipped checkpoints (size, training time, reproducing command)")

    train = sub.add_parser("train", help="train shipped checkpoints from their recipes")
    train.add_argument(
        "names",
        nargs="+",
        choices=[*CHECKPOINT_NAMES, "all"],
        metavar="NAME",
        help=f"checkpoint(s) to train: {', '.join(CHECKPOINT_NAMES)} or all",
    )
    train.add_argument("--out", type=Path, default=CHECKPOINT_DIR, help="checkpoint directory (default: shipped)")
    train.add_argument(
        "--threads",
        type=positive_int,
        default=1,
        help="torch threads (default 1: on a shared 2-core machine 2 threads ran ~10x slower)",
    )
    train.add_argument("--steps", type=positive_int, default=None, help="override the recipe's step count (smoke runs)")
    train.add_argument("--quiet", action="store_true", help="no progress bar")

    ev = sub.add_parser("evaluate", help="evaluate methods × lengths from the checkpoints; write results/")
    ev.add_argument(
        "--methods",
        nargs="+",
        choices=list(METHODS),
        metavar="METHOD",
        default=None,
        help=f"subset of: {', '.join(METHODS)} (default: all)",
    )
    ev.add_argument(
        "--lengths",
        nargs="+",
        type=length_arg,
        default=None,
        help="evaluation lengths in tokens (default: 64 128 256 512)",
    )
    ev.add_argument("--checkpoints", type=Path, default=CHECKPOINT_DIR, help="checkpoint directory")
    ev.add_argument("--out", type=Path, default=None, help="results directory (default: helpers/lab/results)")
    ev.add_argument("--no-write", action="store_true", help="print the table only; write nothing")
    ev.add_argument("--threads", type=positive_int, default=1, help="torch threads (default 1)")
    return parser


def run_train(args: argparse.Namespace) -> None:
    import dataclasses

    names = list(CHECKPOINT_NAMES) if "all" in args.names else list(dict.fromkeys(args.names))
    for name in names:
        recipe = RECIPES[name]
        if args.steps is not None:
            RECIPES[name] = dataclasses.replace(recipe, steps=args.steps)
        try:
            print(f"training {name}: {recipe.description}", flush=True)
            model, log = train_recipe(name, directory=args.out, progress=not args.quiet)
        finally:
            RECIPES[name] = recipe
        command = recipe.command + (f" --steps {args.steps}" if args.steps is not None else "")
        if args.out != CHECKPOINT_DIR:
            command += f" --out {args.out}"
        path = save_checkpoint(model, name, log, directory=args.out, command=command)
        print(
            f"{name}: {log.steps} steps in {log.seconds:.1f} s, final loss {log.final_loss:.3f} -> {path}", flush=True
        )
        write_checkpoint_index(args.out)


def run_evaluate(args: argparse.Namespace) -> None:
    from helpers.lab.evaluate import RESULTS_DIR, evaluate_all, results_table, write_results

    start = time.perf_counter()
    results = evaluate_all(args.methods, args.lengths, directory=args.checkpoints, progress=True)
    print(results_table(results))
    print(f"evaluated in {time.perf_counter() - start:.1f} s")
    if not args.no_write:
        out = RESULTS_DIR if args.out is None else args.out
        for path in write_results(results, out):
            print(f"wrote {path}")


def run_list() -> None:
    rows = list_checkpoints()
    if not rows:
        print("no checkpoints yet: python -m helpers.lab train all")
    for row in rows:
        print(json.dumps(row))


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    torch.set_num_threads(getattr(args, "threads", 1))
    if args.command == "list":
        run_list()
    elif args.command == "train":
        run_train(args)
    else:
        run_evaluate(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
