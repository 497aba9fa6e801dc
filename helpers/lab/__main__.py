"""Command line for the lab: ``python -m helpers.lab {list,train,evaluate} --help``.

The one command that rebuilds everything (resumable: finished runs are kept, a cut-off run is redone)::

    nice -n 5 python -m helpers.lab train && python -m helpers.lab evaluate && python scripts/update_lab_results.py

Examples::

    python -m helpers.lab list                         # checkpoints on disk, sizes, training times, commands
    python -m helpers.lab train                        # every model × seeds 0 1 2 that is missing (parents first)
    python -m helpers.lab train rope alibi --seeds 1   # a part of the grid
    python -m helpers.lab train rope --seeds 0 --force # redo a finished run
    python -m helpers.lab evaluate                     # every method × seed × length → results/results.json
    python -m helpers.lab evaluate --methods rope+default rope+linear --lengths 64 128 --no-write   # print a subset
    python -m helpers.lab evaluate --seeds 3 --checkpoints DIR --methods rope+default   # merged into results.json
    python -m helpers.lab evaluate --eval-protocol keys60-20 --out DIR # the first protocol: 60 / 20 passkeys per length
    python -m helpers.lab train hybrid --out DIR       # the hybrid families (not shipped, not in "all")
    python -m helpers.lab evaluate --methods hybrid rope+default --checkpoints DIR --out DIR2   # hybrids vs RoPE

The hybrid families (``irope``, ``irope_temp``, ``local_global``: :data:`helpers.lab.checkpoints.HYBRID_MODELS`) are
trained and evaluated only when named (or with the group name ``hybrid``); ``all`` and the defaults are the shipped
grid, so the shipped results never ask for their checkpoints.

An evaluation of part of the grid (``--seeds``, ``--methods``, ``--lengths`` or ``--scales`` given) is merged into the
results file it writes: its records replace the same ones, every other record is kept; records of another
evaluation sample (protocol or ``--eval-seed``) are refused rather than mixed (write them with ``--out DIR``).

Bad arguments exit with status 2 and a message naming the argument and what is allowed; a missing checkpoint or a
refused merge exits with status 1 and a message saying what to do (no traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

from helpers._cli import Parser, existing_dir, int_at_least, int_between, output_dir
from helpers.lab.checkpoints import (
    CHECKPOINT_DIR,
    HYBRID_MODELS,
    MODELS,
    RECIPES,
    SCALES,
    SEEDS,
    SHIPPED_SEEDS,
    checkpoint_paths,
    is_trained,
    list_checkpoints,
)
from helpers.lab.evaluate import DEFAULT_PROTOCOL, EVAL_PROTOCOLS, EVAL_SEED
from helpers.lab.train_grid import train_all

#: The longest evaluation length the command line accepts: 16 × the small scale's L = 256 (memory: every layer holds
#: the (B, H, T, T) attention scores, which grow with T²).
MAX_LENGTH = 4096

#: argparse types of the flags: an integer >= 1, a seed (>= 0), an evaluation length in tokens (16..MAX_LENGTH).
positive_int = int_at_least(1)
seed_arg = int_at_least(0)
length_arg = int_between(16, MAX_LENGTH, " tokens (16 × the small scale's L = 256: memory grows with T²)")


#: Group names the commands accept besides model / method names: ``hybrid`` = every hybrid family.
HYBRID_GROUP = "hybrid"


def build_parser() -> argparse.ArgumentParser:
    from helpers.lab.methods import ALL_METHODS, HYBRIDS

    parser = Parser(
        prog="python -m helpers.lab",
        description="Tiny-model lab: train small transformers with any positional encoding and measure extrapolation.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="{list,train,evaluate}")

    sub.add_parser("list", help="list the shipped checkpoints (size, training time, reproducing command)")

    train = sub.add_parser("train", help="train the missing checkpoints of models × seeds (resumable)")
    train.add_argument(
        "names",
        nargs="*",
        choices=[*MODELS, *HYBRID_MODELS, "all", HYBRID_GROUP],
        default=["all"],
        metavar="NAME",
        help=f"model(s) to train: {', '.join(MODELS)} or all (default: all, the shipped models); the hybrids "
        f"{', '.join(HYBRID_MODELS)} (or {HYBRID_GROUP} for all of them) only when named",
    )
    train.add_argument(
        "--seeds",
        nargs="+",
        type=seed_arg,
        default=list(SHIPPED_SEEDS),
        help="seeds (default: the shipped ones, 0 1 2; the records cover 0-9: train the others with --out DIR)",
    )
    train.add_argument("--out", type=output_dir, default=CHECKPOINT_DIR, help="checkpoint directory (default: shipped)")
    train.add_argument(
        "--threads",
        type=positive_int,
        default=1,
        help="torch threads (default 1, as the shipped checkpoints were trained)",
    )
    train.add_argument("--steps", type=positive_int, default=None, help="override the recipes' step count (smoke runs)")
    train.add_argument("--force", action="store_true", help="retrain runs that are already finished")
    train.add_argument("--quiet", action="store_true", help="no progress bar")

    ev = sub.add_parser("evaluate", help="evaluate methods × lengths from the checkpoints; write results/")
    ev.add_argument(
        "--methods",
        nargs="+",
        choices=[*ALL_METHODS, HYBRID_GROUP],
        metavar="METHOD",
        default=None,
        help=f"subset of: {', '.join(ALL_METHODS)}, or {HYBRID_GROUP} for {', '.join(HYBRIDS)} (default: every method "
        "but the hybrids)",
    )
    ev.add_argument(
        "--lengths",
        nargs="+",
        type=length_arg,
        default=None,
        help="evaluation lengths in tokens (default: 64 128 256 512)",
    )
    ev.add_argument("--seeds", nargs="+", type=seed_arg, default=None, help="seeds (default: 0 1 2)")
    ev.add_argument(
        "--scales", nargs="+", choices=list(SCALES), default=list(SCALES), help="scales (default: all, tiny first)"
    )
    ev.add_argument("--checkpoints", type=existing_dir, default=CHECKPOINT_DIR, help="checkpoint directory")
    ev.add_argument("--out", type=output_dir, default=None, help="results directory (default: helpers/lab/results)")
    ev.add_argument("--no-write", action="store_true", help="print the table only; write nothing")
    ev.add_argument(
        "--reuse",
        action="store_true",
        help="copy the stored records of checkpoints that have not changed instead of recomputing them",
    )
    ev.add_argument("--threads", type=positive_int, default=1, help="torch threads (default 1)")
    ev.add_argument(
        "--jobs",
        type=positive_int,
        default=2,
        help="processes, each one torch thread, sharing the (scale, seed) parts (default 2: a 2-core laptop's cores)",
    )
    ev.add_argument(
        "--eval-protocol",
        choices=list(EVAL_PROTOCOLS),
        default=DEFAULT_PROTOCOL,
        help=f"documents and passkeys per cell (default {DEFAULT_PROTOCOL}: the shipped records', 100 passkeys per "
        "length; keys60-20: 60 at tiny, 20 at small)",
    )
    ev.add_argument(
        "--eval-seed", type=seed_arg, default=EVAL_SEED, help=f"seed of the evaluation sample (default {EVAL_SEED})"
    )
    return parser


def expand_groups(names: list[str], group: tuple[str, ...], everything: tuple[str, ...] | None = None) -> list[str]:
    """``names`` with ``hybrid`` replaced by ``group`` (and ``all`` by ``everything``), duplicates dropped, order
    kept."""
    out: list[str] = []
    for name in names:
        if name == HYBRID_GROUP:
            out += group
        elif name == "all" and everything is not None:
            out += everything
        else:
            out.append(name)
    return list(dict.fromkeys(out))


def run_train(args: argparse.Namespace) -> None:
    names = expand_groups(args.names, HYBRID_MODELS, MODELS)
    start = time.perf_counter()
    done = train_all(
        names,
        list(dict.fromkeys(args.seeds)),
        directory=args.out,
        progress=not args.quiet,
        force=args.force,
        steps=args.steps,
        log=lambda line: print(line, flush=True),
    )
    print(f"trained {len(done)} run(s) in {(time.perf_counter() - start) / 60:.1f} min", flush=True)


def _plan(args: argparse.Namespace) -> dict[str, list[str] | None]:
    """{scale: methods (None = the shipped grid's)} of the scales that have a trained checkpoint of these methods."""
    from helpers.lab.methods import METHODS as METHODS_
    from helpers.lab.methods import lab_method

    plan = {}
    for scale in dict.fromkeys(args.scales):
        methods = args.methods
        names = [SCALES[scale].model_name(lab_method(m).checkpoint) for m in (methods or METHODS_)]
        names = [n for n in names if n in RECIPES]
        if not any(is_trained(n, s, args.checkpoints) for n in names for s in (args.seeds or SEEDS)):
            print(f"scale {scale}: no trained checkpoint of these methods in {args.checkpoints}: skipped")
            continue
        if methods is not None:  # keep the methods that have a checkpoint at this scale
            methods = [m for m in methods if SCALES[scale].model_name(lab_method(m).checkpoint) in RECIPES]
        plan[scale] = methods
    return plan


def missing_checkpoints(plan: dict[str, list[str] | None], seeds: list[int], directory: Path) -> list[Path]:
    """The metadata files of the (method, seed) checkpoints ``plan`` × ``seeds`` needs that are not in
    ``directory`` (a checkpoint is trained when its JSON, written last, exists)."""
    from helpers.lab.methods import METHODS as METHODS_
    from helpers.lab.methods import lab_method

    missing = []
    for scale, methods in plan.items():
        names = [SCALES[scale].model_name(lab_method(m).checkpoint) for m in (methods or METHODS_)]
        for name in dict.fromkeys(n for n in names if n in RECIPES):
            missing += [checkpoint_paths(name, s, directory)[1] for s in seeds if not is_trained(name, s, directory)]
    return missing


def _fail(message: str) -> int:
    print(f"python -m helpers.lab evaluate: error: {message}", file=sys.stderr)
    return 1


def _missing_message(missing: list[Path], directory: Path) -> str:
    more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
    return (
        f"checkpoint {missing[0]} is missing{more} (looked in {directory}). Point --checkpoints DIR at the directory "
        "that holds the checkpoints (`python -m helpers.lab train NAME --seeds K --out DIR` writes them), or leave "
        "out --seeds to evaluate only the seeds that are trained."
    )


def merge_problem(stored: dict, args: argparse.Namespace, path: Path) -> str | None:
    """Why the records ``args`` asks for could not be merged into ``stored`` (read from ``path``): another evaluation
    protocol or seed, or lengths the stored scale does not have; None if they can. Checked before any work."""
    from helpers.lab.records import at_scale, scales_of

    for scale in dict.fromkeys(args.scales):
        if scale not in scales_of(stored):
            continue
        meta = at_scale(stored, scale)["meta"]
        where = f"to be merged into {path} (scale {scale!r}), got"
        for flag, field in (("--eval-protocol", "eval_protocol"), ("--eval-seed", "eval_seed")):
            asked = getattr(args, field)
            if meta.get(field) != asked:
                return f"argument {flag}: must be the stored results' {meta.get(field)!r} {where} {asked!r}"
        if args.lengths is not None and not set(args.lengths) <= set(meta["lengths"]):
            return f"argument --lengths: must be among the stored results' {meta['lengths']} {where} {args.lengths}"
    return None


def run_evaluate(args: argparse.Namespace) -> int:
    from helpers.lab.grid import evaluate_scales
    from helpers.lab.methods import HYBRIDS
    from helpers.lab.records import RESULTS_DIR, join_scales, load_results, merge_results, save_results
    from helpers.lab.tables import results_tables

    start = time.perf_counter()
    if args.methods is not None:
        args.methods = expand_groups(args.methods, HYBRIDS)
    out = RESULTS_DIR if args.out is None else args.out
    partial = any(x is not None for x in (args.seeds, args.methods, args.lengths)) or set(args.scales) != set(SCALES)
    stored = None
    if (args.reuse or (partial and not args.no_write)) and (out / "results.json").exists():
        try:  # read and checked before any work: a file that cannot take these records is refused now
            stored = load_results(out / "results.json")
            problem = merge_problem(stored, args, out / "results.json")
        except (OSError, ValueError, KeyError, TypeError) as err:
            return _fail(
                f"argument --out: must be a directory without a results.json or with a lab one, got {str(out)!r}: "
                f"its results.json is not ({type(err).__name__}: {err})"
            )
        if problem and not args.no_write:
            return _fail(f"{problem} (or write these records elsewhere with --out DIR)")
    if args.reuse and stored is None:
        return _fail(f"argument --reuse: must have stored results to reuse, got none at {out / 'results.json'}")
    reuse = stored if args.reuse else None
    plan = _plan(args)  # the scales with at least one of these checkpoints trained (the others are skipped)
    if args.seeds is not None:
        wanted = plan or {scale: args.methods for scale in dict.fromkeys(args.scales)}
        if missing := missing_checkpoints(wanted, args.seeds, args.checkpoints):
            return _fail(_missing_message(missing, args.checkpoints))
    if not plan:
        return _fail(
            f"no trained checkpoint to evaluate in {args.checkpoints}; set the directory with --checkpoints DIR"
        )
    try:
        per_scale = evaluate_scales(
            plan,
            args.lengths,
            args.seeds,
            directory=args.checkpoints,
            progress=True,
            reuse=reuse,
            jobs=args.jobs,
            eval_protocol=args.eval_protocol,
            eval_seed=args.eval_seed,
        )
    except FileNotFoundError as err:  # a checkpoint removed meanwhile, or a parent of one missing
        return _fail(f"{err} (the checkpoints were read from {args.checkpoints}; set another with --checkpoints DIR)")
    results = join_scales(*per_scale)
    seconds = time.perf_counter() - start
    reused = sum(r["meta"]["reused_runs"] for r in per_scale)
    if reused and reuse and reuse["meta"].get("wall_seconds"):  # keep the last full evaluation's time
        results["meta"]["wall_seconds"] = reuse["meta"]["wall_seconds"]
    else:
        results["meta"]["wall_seconds"] = {"all_scales": round(seconds, 1), "jobs": args.jobs}
    if partial and not args.no_write and stored is not None:
        try:
            results = merge_results(stored, results)
        except ValueError as err:
            return _fail(
                f"not merged into {out / 'results.json'}: {err}. Write these records elsewhere with --out DIR."
            )
    print(results_tables(results))
    print(f"evaluated in {seconds:.1f} s with {args.jobs} process(es)")
    if not args.no_write:
        print(f"wrote {save_results(results, out)}" + (" (merged: the other records are kept)" if partial else ""))
        where = "" if args.out is None else f" --results {out}"
        print(f"figures and documents from it: python scripts/update_lab_results.py{where}")
    return 0


def run_list() -> None:
    rows = list_checkpoints()
    if not rows:
        print("no checkpoints yet: python -m helpers.lab train")
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
        return run_evaluate(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
