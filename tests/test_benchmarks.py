"""The benchmark scripts still run (on a tiny shape) and check correctness before timing."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bench_rope_runs_and_prints_a_table(capsys):
    _load("bench_rope").main(["--shape", "1", "2", "16", "8", "--repeats", "2", "--warmup", "1"])
    out = capsys.readouterr().out
    assert "| helpers.apply_rope half_split |" in out and "| copy (x.clone()) | " in out


def test_panel_redraw_times_every_control_of_a_chapter(capsys):
    rows = _load("panel_redraw").main(["--chapters", "04", "--repeats", "1"])
    assert {(chapter, panel) for chapter, panel, *_ in rows} == {
        ("04", "rotation"),
        ("04", "wavelength"),
        ("04", "decay"),
    }
    assert len(rows) == 8 and all(wall > 0 and cpu >= 0 for *_, wall, cpu in rows)
    assert "| 04 | decay | peak of chosen k (positions) |" in capsys.readouterr().out


def test_bench_panels_06_runs_and_prints_a_table(capsys):
    _load("bench_panels_06").main(["--repeats", "1"])
    out = capsys.readouterr().out
    assert "| 02 waves: dimension b (reference) |" in out and "| 06 ALiBi: threshold |" in out


def test_bench_lab_eval_checks_each_shortcut_then_times_it(capsys):
    rows = _load("bench_lab_eval").main(["--repeats", "1", "--scales", "tiny", "--length-multiple", "2"])
    assert [name.split(",")[0] for name, *_ in rows] == [
        "tiny: passkey",
        "tiny: previous-token weights",
        "tiny: ALiBi attention",
    ]
    assert all(slow > 0 and fast > 0 for _, slow, fast in rows)
    assert "| computation | replaced (ms) | shortcut (ms) | replaced ÷ shortcut |" in capsys.readouterr().out
