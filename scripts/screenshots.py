"""Regenerate the README pictures and latency figures from a real-browser run of every notebook.

    python scripts/screenshots.py                # all notebooks
    python scripts/screenshots.py -k 04_rope     # some of them (pytest -k expression); others keep their figures
    python scripts/screenshots.py --modes before,after   # also compare the panels' code paths in the same run

Runs ``pytest tests/browser`` with ``PE_BROWSER_UPDATE_DOCS=1``: besides the usual checks, it writes
docs/img/<notebook>.png (the main interactive figure of each chapter, at its default values, < 150 KB),
docs/browser-report.md (the latency table) and docs/browser-report.json. Needs Debian's ``chromium``
(``apt-get install chromium``; ``fonts-wqy-microhei`` for the Chinese labels) and ``playwright`` from
requirements-dev.txt; no ``playwright install``. Run it on a quiet machine: the latencies are real
timings. Exit status is pytest's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", dest="expr", help="pytest -k expression selecting notebooks (e.g. 04_rope)")
    parser.add_argument(
        "--modes",
        default="",
        help="panel code paths to measure side by side, e.g. before,output,after "
        "(tests/browser/browser_config.py MODE_ENV; default: the installed one; the -ipyw7 modes need a front end "
        "that loads ipywidgets 7 models, jupyterlab_widgets 1.x, and are refused otherwise)",
    )
    args = parser.parse_args(argv)
    env = {**os.environ, "PE_BROWSER_UPDATE_DOCS": "1", "PE_REQUIRE_BROWSER": "1", "PE_BROWSER_MODES": args.modes}
    cmd = [sys.executable, "-m", "pytest", "tests/browser", "-p", "no:cacheprovider", "-q", "-rs"]
    if args.expr:
        cmd += ["-k", args.expr]
    rc = subprocess.call(cmd, cwd=ROOT, env=env)
    print(f"docs/browser-report.md and docs/img/*.png updated (pytest exit status {rc})")
    return rc


if __name__ == "__main__":
    sys.exit(main())
