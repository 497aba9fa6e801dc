"""The project frame: the README's two commands, CI running exactly the test command, pins, lint."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _block(name: str) -> str:
    text = (ROOT / "README.md").read_text()
    m = re.search(rf"<!-- {name} -->\n```\w*\n(.*?)\n```\n<!-- /{name} -->", text, re.S)
    assert m, f"README.md has no {name} block"
    return m.group(1)


def test_readme_has_exactly_two_setup_commands_one_line_each():
    install, test = _block("install-command"), _block("test-command")
    assert "\n" not in install and "\n" not in test
    assert "requirements.txt" in install and "jupyter lab" in install
    assert "requirements-dev.txt" in test and "pytest" in test


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "test-command" in ci and 'bash -c "$cmd"' in ci


def test_pins():
    req = (ROOT / "requirements.txt").read_text()
    assert re.search(r"^torch==2\.13\.0$", req, re.M)
    assert "-e ." in req
    dev = (ROOT / "requirements-dev.txt").read_text()
    assert re.search(r"^transformers==[\d.]+$", dev, re.M)
    assert "ipywidgets>=7.7,<9" in (ROOT / "pyproject.toml").read_text()
    assert "requirements.txt" in (ROOT / "environment.yml").read_text()


@pytest.mark.parametrize("args", [["check", "."], ["format", "--check", "."]])
def test_ruff_is_clean(args):
    res = subprocess.run([sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
