"""Which notebooks the suite's nbval run executes: the Chinese edition (``notebooks/zh/``), all ten.

Each notebook runs twice in the suite, once on each of two numerical machines, and both runs compare its outputs
with the committed ones by nbval's rules:

* **this machine's numerics, under nbval itself**: the Chinese notebooks. Their code cells are the English ones byte
  for byte except the setup cell's one line that switches the language, and their outputs are the English outputs
  with only catalog strings translated (``tests/test_i18n.py``), so this run checks the English numbers and the
  Chinese edition's run-time translation at once;
* **another numerical machine** (one thread, narrower SIMD kernels): the English notebooks, in the one run per
  notebook shared with the Colab and re-run tests (``tests/_notebook_runs.py``, ``tests/test_notebook_portability.py``).

So the default ``pytest`` leaves the English notebooks out of its nbval collection (they would be a third run);
naming them (``pytest notebooks/04_rope.ipynb`` or ``pytest notebooks``) runs them under nbval as usual.
"""

from pathlib import Path

import pytest

ENGLISH = Path(__file__).parent / "notebooks"


def pytest_ignore_collect(collection_path: Path, config):
    """The English notebooks, when collected from the configured ``testpaths`` (no path given on the command line)."""
    if collection_path.suffix != ".ipynb" or collection_path.parent != ENGLISH:
        return None
    if config.args_source == pytest.Config.ArgsSource.TESTPATHS:
        return True
    return None
