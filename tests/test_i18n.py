"""The Chinese edition: catalogs (i18n/zh_CN/*.po), the generated notebooks (notebooks/zh/) and their checks.

(a) a Chinese notebook's code cells, outputs, metadata and ids are its English notebook's, byte for byte;
(b) the committed Chinese notebooks are what a fresh build gives;
(c) every catalog is complete (no untranslated, fuzzy or obsolete-but-used entry) and current (extract would
    change nothing);
(d) every glossary term of an English cell's prose is rendered with its Chinese term in the cell's translation;
(e) numbers, inline code, LaTeX and link targets survive translation; every link and anchor of a Chinese notebook
    resolves.
(c)-(e) list every offending entry; translators get the same list from ``python scripts/i18n.py check --catalog NAME``.
The machinery itself is tested on copies filled with stand-in translations (never committed into i18n/).
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import polib
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import i18n  # noqa: E402
from helpers._colab import colab_url  # noqa: E402

BOOKS = i18n.english_notebooks()
IDS = [b.stem for b in BOOKS]
ZH = ROOT / "notebooks" / "zh"


def _report(problems) -> str:
    return f"{len(problems)} problem(s):\n- " + "\n- ".join(map(str, problems))


# ----------------------------------------------------------------------------- sandbox with stand-in translations
@pytest.fixture
def sandbox(tmp_path) -> i18n.Paths:
    """A copy of the English notebooks, the catalogs (translations removed) and docs/*.md (link targets) in a temp dir."""
    (tmp_path / "notebooks").mkdir()
    for b in BOOKS:
        shutil.copy(b, tmp_path / "notebooks" / b.name)
    shutil.copytree(i18n.CATALOGS, tmp_path / "i18n" / "zh_CN")
    for path in (tmp_path / "i18n" / "zh_CN").glob("*.po"):  # the mechanics are tested from empty catalogs
        po = i18n.load_catalog(path)
        for e in [e for e in po if e.obsolete]:
            po.remove(e)
        for e in po:
            e.msgstr, e.flags, e.previous_msgid = "", [], None
        po.save(str(path))
    (tmp_path / "docs").mkdir()
    for md in (ROOT / "docs").glob("*.md"):
        shutil.copy(md, tmp_path / "docs" / md.name)
    return i18n.Paths(tmp_path / "notebooks", tmp_path / "i18n" / "zh_CN")


def fill(paths: i18n.Paths, stem: str, translate=lambda s: s) -> polib.POFile:
    """Give every entry of a sandbox catalog a stand-in translation (default: the English text itself)."""
    path = paths.catalogs / f"{stem}.po"
    po = i18n.load_catalog(path)
    for e in po:
        e.msgstr = translate(e.msgid)
    po.save(str(path))
    return po


def edit_notebook(path: Path, change) -> None:
    nb = json.loads(path.read_text(encoding="utf-8"))
    change(nb["cells"])
    path.write_text(i18n.dump_notebook(nb), encoding="utf-8")


def md(text: str, cell_id: str) -> dict:
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": text.splitlines(keepends=True)}


# ----------------------------------------------------------------------------- extract
def test_extract_leaves_the_committed_catalogs_byte_identical():
    fresh = i18n.extract_all(BOOKS, write=False)
    changed = [p.name for p, po in fresh.items() if str(po) != p.read_text(encoding="utf-8")]
    assert not changed, f"extract would rewrite {changed}"


def test_extract_leaves_a_translated_catalog_byte_identical(sandbox):
    fill(sandbox, "01_position_blindness", lambda s: "译文 " + s)
    path = sandbox.catalogs / "01_position_blindness.po"
    po = i18n.load_catalog(path)
    po[0].tcomment = "译者注：保留"
    po.save(str(path))
    before = path.read_bytes()
    i18n.extract_all(i18n.english_notebooks(sandbox), sandbox)
    assert path.read_bytes() == before


def test_extract_has_msgmerge_semantics(sandbox):
    stem = "01_position_blindness"
    fill(sandbox, stem, lambda s: "译文 " + s)
    book = sandbox.notebooks / f"{stem}.ipynb"
    cells = [i for i, _ in i18n.markdown_cells(book)]
    changed, removed = cells[1], cells[2]
    old_changed = i18n.cell_source(json.loads(book.read_text())["cells"][changed])
    old_removed = i18n.cell_source(json.loads(book.read_text())["cells"][removed])

    def change(c):
        c[changed]["source"] = [old_changed.replace("Tick labels", "Axis tick labels", 1)]
        del c[removed]
        c.append(md("A brand-new cell.", "newcell1"))

    edit_notebook(book, change)
    po = i18n.extract(book, sandbox)
    by_id = {e.msgid: e for e in po}
    fuzzy = by_id[old_changed.replace("Tick labels", "Axis tick labels", 1)]
    assert "fuzzy" in fuzzy.flags and fuzzy.previous_msgid == old_changed and fuzzy.msgstr == "译文 " + old_changed
    assert by_id["A brand-new cell."].msgstr == ""
    assert by_id[old_removed].obsolete and by_id[old_removed].msgstr == "译文 " + old_removed
    kinds = {p.what.split(":")[0] for p in i18n.check_catalog(book, sandbox) if p.kind in ("complete", "current")}
    assert kinds == {"untranslated", "fuzzy"}, kinds  # and extract is idempotent: the catalog is current


@pytest.mark.parametrize("translated_first", [True, False], ids=["translated-then-moved", "moved-then-translated"])
def test_extract_carries_translations_of_moved_cells(sandbox, translated_first):
    """A section moved unchanged into a new notebook (05 §8 -> 05b) keeps its translation (compendium), whether
    the translation lands before the move or after it (a translator's branch merged later)."""
    stem = "05_length_extension"
    if translated_first:
        fill(sandbox, stem, lambda s: "译文 " + s)
    translated_05 = (sandbox.catalogs / f"{stem}.po").read_text(encoding="utf-8")
    src = sandbox.notebooks / f"{stem}.ipynb"
    nb = json.loads(src.read_text(encoding="utf-8"))
    moved = nb["cells"][-6:]
    edit_notebook(src, lambda c: c.__delitem__(slice(-6, None)))
    new = sandbox.notebooks / "05b_extension_lab.ipynb"
    new.write_text(i18n.dump_notebook({**nb, "cells": moved}), encoding="utf-8")
    i18n.extract_all(i18n.english_notebooks(sandbox), sandbox)
    if not translated_first:  # the translator's catalog (of the notebook before the move) arrives now
        (sandbox.catalogs / f"{stem}.po").write_text(translated_05, encoding="utf-8")
        po = fill(sandbox, stem, lambda s: "译文 " + s)
        assert any(i18n.markdown_cells(new)[0][1] == e.msgid for e in po)
        i18n.extract_all(i18n.english_notebooks(sandbox), sandbox)
    po_new = i18n.load_catalog(sandbox.catalogs / "05b_extension_lab.po")
    assert len(po_new) and all(e.msgstr == "译文 " + e.msgid and not e.flags for e in po_new)
    po_old = i18n.load_catalog(sandbox.catalogs / f"{stem}.po")
    assert not po_old.obsolete_entries(), "the moved cells' obsolete copies stay behind"
    moved_text = {s for _, s in i18n.markdown_cells(new)}
    assert not [e for e in po_old if e.msgid in moved_text]
    assert not [p for b in (src, new) for p in i18n.check_catalog(b, sandbox) if p.kind in ("complete", "current")]


def test_an_obsolete_entry_still_used_elsewhere_is_reported(sandbox):
    fill(sandbox, "01_position_blindness", lambda s: "译文 " + s)
    path = sandbox.catalogs / "02_sinusoidal.po"
    po = i18n.load_catalog(path)
    used = i18n.markdown_cells(sandbox.notebooks / "01_position_blindness.ipynb")[0][1]
    po.append(polib.POEntry(msgid=used, msgstr="旧译文", obsolete=True))
    po.save(str(path))
    whats = [p.what for p in i18n.check_catalog(sandbox.notebooks / "02_sinusoidal.ipynb", sandbox)]
    assert any(w.startswith("obsolete entry") for w in whats)


# ----------------------------------------------------------------------------- build
def test_build_refuses_incomplete_catalogs_naming_them(sandbox):
    fill(sandbox, "01_position_blindness")
    with pytest.raises(i18n.IncompleteCatalog) as err:
        i18n.build_all(sandbox)
    msg = str(err.value)
    assert "01_position_blindness" not in msg
    n = len(i18n.load_catalog(sandbox.catalogs / "04_rope.po"))
    assert f"04_rope.po: {n} untranslated, 0 fuzzy" in msg


def test_build_with_allow_incomplete_marks_the_english_cells(sandbox):
    out = i18n.build_all(sandbox, allow_incomplete=True, write=False)
    nb = json.loads(out[sandbox.zh / "01_position_blindness.ipynb"])
    first = i18n.cell_source(nb["cells"][0])
    assert first.startswith(i18n.FALLBACK_NOTE["untranslated"] + "\n\n# 01 ·")


def test_build_translates_and_rewrites_links(sandbox):
    """Stand-in translations: headings become Chinese; every kind of link is rewritten and resolves."""
    stem = "01_position_blindness"
    book = sandbox.notebooks / f"{stem}.ipynb"
    first_h2 = next(h for _, s in i18n.markdown_cells(book) for lvl, h in i18n.headings(s) if lvl == 2)
    rope_h2 = next(
        h
        for _, s in i18n.markdown_cells(sandbox.notebooks / "04_rope.ipynb")
        for lvl, h in i18n.headings(s)
        if lvl == 2
    )
    links = (
        f"See [above](#{i18n.anchor_id(first_h2)}), [RoPE](04_rope.ipynb#{i18n.anchor_id(rope_h2)}), "
        "[the benchmarks](../docs/benchmarks.md#benchmark-applying-rope), [README](../README.md) and "
        f"[Colab]({colab_url('notebooks/04_rope.ipynb')}); `[not a link](#x)` stays."
    )
    (sandbox.notebooks.parent / "README.md").write_text("# readme\n")
    edit_notebook(book, lambda c: c.append(md(links, "links001")))
    i18n.extract_all(i18n.english_notebooks(sandbox), sandbox)
    for s in i18n.english_notebooks(sandbox):
        fill(sandbox, s.stem, lambda t: re.sub(r"^(#+ )", r"\1章节 ", t, flags=re.M))
    out = i18n.build_all(sandbox)  # complete: no fallback
    nb = json.loads(out[sandbox.zh / f"{stem}.ipynb"])
    text = i18n.cell_source(nb["cells"][-1])
    assert f"(#章节-{i18n.anchor_id(first_h2)})" in text
    assert f"(04_rope.ipynb#章节-{i18n.anchor_id(rope_h2)})" in text
    assert "(../../docs/benchmarks.md#benchmark-applying-rope)" in text and "(../../README.md)" in text
    assert f"({colab_url('notebooks/zh/04_rope.ipynb')})" in text and "`[not a link](#x)`" in text
    assert i18n.check_links(sandbox) == []
    # a broken anchor is reported with its notebook and cell
    edit_notebook(sandbox.zh / f"{stem}.ipynb", lambda c: c[-1].__setitem__("source", ["[gone](#no-such-heading)"]))
    problems = i18n.check_links(sandbox)
    assert [(p.notebook, p.cell) for p in problems] == [(f"zh/{stem}.ipynb", len(nb["cells"]) - 1)]


def test_build_is_deterministic_and_keeps_code_bytes(sandbox):
    for b in i18n.english_notebooks(sandbox):
        fill(sandbox, b.stem, lambda s: "译文\n" + s)
    first = i18n.build_all(sandbox)
    assert i18n.build_all(sandbox, write=False) == first
    problems = [p for b in i18n.english_notebooks(sandbox) for p in i18n.check_code_identical(b, sandbox.zh / b.name)]
    assert not problems, _report(problems)


# ----------------------------------------------------------------------------- (a), (b): the committed notebooks
@pytest.mark.parametrize("book", BOOKS, ids=IDS)
def test_zh_code_cells_and_outputs_are_the_english_ones(book):
    problems = i18n.check_code_identical(book, ZH / book.name)
    assert not problems, _report(problems)


def test_committed_zh_notebooks_are_a_fresh_build():
    fresh = i18n.build_all(allow_incomplete=True, write=False)
    assert set(fresh) == set(ZH.glob("*.ipynb")), "notebooks/zh/ and the English notebooks differ: run build"
    stale = [p.name for p, text in fresh.items() if p.read_text(encoding="utf-8") != text]
    assert not stale, f"run `python scripts/i18n.py build`: {stale} differ from a fresh build"


# ----------------------------------------------------------------------------- (c), (d), (e): the catalogs
@pytest.fixture(scope="module")
def catalog_problems():
    glossary = i18n.read_glossary(i18n.DEFAULT.glossary())
    return {b.stem: i18n.check_catalog(b, glossary=glossary) for b in BOOKS}


@pytest.mark.parametrize("stem", IDS)
def test_catalog_is_complete_and_current(stem, catalog_problems):
    problems = [p for p in catalog_problems[stem] if p.kind in ("complete", "current")]
    assert not problems, _report(problems)


@pytest.mark.parametrize("stem", IDS)
def test_glossary_terms_are_rendered(stem, catalog_problems):
    problems = [p for p in catalog_problems[stem] if p.kind == "glossary"]
    assert not problems, _report(problems)


@pytest.mark.parametrize("stem", IDS)
def test_one_term_per_glossary_entry(stem, catalog_problems):
    """No catalog uses a variant that the glossary lists for an entry (注意看 for 观察要点, 单元 for 单元格, nats)."""
    problems = [p for p in catalog_problems[stem] if p.kind == "terminology"]
    assert not problems, _report(problems)


@pytest.mark.parametrize("stem", IDS)
def test_no_soft_line_break_between_chinese_characters(stem, catalog_problems):
    problems = [p for p in catalog_problems[stem] if p.kind == "typography"]
    assert not problems, _report(problems)


def test_readme_zh_has_no_soft_line_break_between_chinese_characters():
    assert i18n.soft_breaks((ROOT / "README.zh-CN.md").read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("stem", IDS)
def test_numbers_code_latex_and_links_survive_translation(stem, catalog_problems):
    problems = [p for p in catalog_problems[stem] if p.kind == "invariant"]
    assert not problems, _report(problems)


def test_zh_links_and_anchors_resolve():
    problems = i18n.check_links()
    assert not problems, _report(problems)


# ----------------------------------------------------------------------------- the rules themselves
@pytest.mark.parametrize(
    "text, expected",
    [
        ("1,024 tokens, 0.983 at 2L, 10⁴ and −0.5", ["1,024", "0.983", "2L", "10⁴", "−0.5"]),
        ("1e-4, 3.1, 50%, 16k, 135M, 2×, n-1, 5–10", ["1e-4", "3.1", "50%", "16k", "135M", "2", "1", "5", "10"]),
        ("E9, float32, 1st, SmolLM2 are words", []),
        ("在训练长度的2L处为−0.5，不是１０", ["2L", "−0.5"]),
    ],
)
def test_number_pattern(text, expected):
    assert i18n.numbers(text) == expected


def test_invariants_catch_what_a_translation_changes():
    en = "At $m - n = 4$ the score is 0.983 (`rope_apply`, [docs](../docs/x.md)).\n\n## 2. Two"
    good = "当 $m - n = 4$ 时得分为 0.983（`rope_apply`，[文档](../docs/x.md)）。\n\n## 2. 二"
    assert i18n.check_invariants(en, good) == []
    bad = "当 $m-n=4$ 时得分为 0.98（`apply`，[文档](../docs/y.md)）。\n\n### 2. 二"
    whats = " | ".join(i18n.check_invariants(en, bad))
    for part in ("LaTeX '$m - n = 4$'", "number '0.983'", "inline code '`rope_apply`'", "link target '../docs/x.md'"):
        assert part in whats
    assert "headings" in whats


def test_glossary_rule_whole_words_plurals_longest_match_and_code_excluded():
    glossary = [("embedding", "嵌入"), ("rotary position embedding", "旋转位置编码"), ("token", "词元")]
    prose = i18n.parse("Rotary position embeddings rotate; tokenizer `token` $token$ https://x.org/token").prose
    assert i18n.glossary_terms_used(prose, glossary) == [("rotary position embedding", "旋转位置编码")]
    assert i18n.check_glossary("Two Tokens.", "两个 token。", glossary) == ["glossary: 'token' must be rendered '词元'"]


def test_glossary_file_is_well_formed():
    lines = (i18n.CATALOGS / "glossary.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "english\tchinese\tsource\tvariants"
    rows = [line.split("\t") for line in lines[1:]]
    assert all(len(r) in (3, 4) and all(x.strip() == x and x for x in r) for r in rows), "3 or 4 tab-separated fields"
    english = [r[0].lower() for r in rows]
    assert len(english) == len(set(english)), "an English term twice"
    for en, zh, variants in i18n.read_glossary_variants(i18n.CATALOGS / "glossary.tsv"):
        assert all(v and v != zh for v in variants), f"{en!r}: a variant empty or equal to the term"


def test_variant_rule_term_gloss_code_and_whole_words():
    rows = [("cell", "单元格", ["单元"]), ("nat", "nat", ["nats", "奈特"]), ("scale factor", "缩放因子", ["扩展倍数"])]
    assert i18n.check_variants("下一个单元格，损失 2.1 nat（奈特），natural 的 `nats`、$nats$。", rows) == []
    assert i18n.check_variants("缩放因子 $s$（源章节称「扩展倍数」）", rows) == []
    found = i18n.check_variants("下一个单元计算 2.1 nats；扩展倍数为 4，单位奈特。", rows)
    assert found == [
        "terminology: '单元' is a variant of glossary entry 'cell': write '单元格'",
        "terminology: 'nats' is a variant of glossary entry 'nat': write 'nat'",
        "terminology: '奈特' is a variant of glossary entry 'nat': write 'nat'",
        "terminology: '扩展倍数' is a variant of glossary entry 'scale factor': write '缩放因子'",
    ]


@pytest.mark.parametrize(
    "text, n",
    [
        ("猫吃\n鱼。", 1),  # inside a paragraph: rendered as a space
        ("- 第一项，\n  接着写。", 1),  # a list item's continuation
        ("> 引文，\n> 接着写。", 1),  # a blockquote's continuation
        ("## 标题\n正文。", 0),  # a heading ends at its line
        ("正文：\n> 引文。", 0),  # a line that opens a blockquote
        ("| 表 | 格 |\n|---|---|", 0),
        ("中文\nASCII 起头", 0),
        ("```\nprint('注释，\n代码')\n```", 0),  # inside fenced code
        ("$$甲\n乙$$", 0),  # inside LaTeX
    ],
)
def test_soft_break_rule(text, n):
    assert len(i18n.soft_breaks(text)) == n


@pytest.mark.parametrize(
    "heading, anchor",
    [
        ("## 3. Why order matters", "3.-Why-order-matters"),
        ("## 3. Asking past `max_seq_len`: the hard limit", "3.-Asking-past-max_seq_len:-the-hard-limit"),
        ("## 7. $PE(pos+k)$ is a rotation", None),  # MathJax's rendering: not reproduced, not linkable
        ("### 练习 4（先预测）：**分数**上的偏置", "练习-4（先预测）：分数上的偏置"),
    ],
)
def test_anchor_rule_is_jupyterlabs(heading, anchor):
    """JupyterLab 4 (@jupyterlab/rendermime createHeaderId): textContent with ' ' -> '-' (the browser suite
    compares it with the ids JupyterLab gives the rendered headings of a Chinese notebook)."""
    assert i18n.anchor_id(i18n.headings(heading)[0][1]) == anchor


def test_check_command_lists_every_entry_of_one_catalog():
    res = subprocess.run(
        [sys.executable, "scripts/i18n.py", "check", "--catalog", "nope"], cwd=ROOT, capture_output=True, text=True
    )
    assert res.returncode == 2 and "--catalog: unknown catalog 'nope'; allowed: [" in res.stderr


# ----------------------------------------------------------------------------- README.zh-CN.md
def test_chinese_readme_is_linked_both_ways_and_links_the_chinese_notebooks():
    en = (ROOT / "README.md").read_text(encoding="utf-8")
    zh = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
    assert "(README.zh-CN.md)" in "\n".join(en.splitlines()[:5]), "README.md links README.zh-CN.md in its first lines"
    assert "(README.md)" in "\n".join(zh.splitlines()[:5]), "README.zh-CN.md links back in its first lines"
    assert len(en.splitlines()) <= 200
    for b in BOOKS:
        assert f"(notebooks/zh/{b.name})" in zh, f"README.zh-CN.md: no link to notebooks/zh/{b.name}"
        assert f"({colab_url(f'notebooks/zh/{b.name}')})" in zh, f"README.zh-CN.md: no Colab link for {b.name}"
    for name in ("install-command", "test-command"):
        block = re.compile(rf"<!-- {name} -->\n```\w*\n(.*?)\n```\n<!-- /{name} -->", re.S)
        assert block.search(en).group(1) == block.search(zh).group(1), f"{name} differs from README.md's"


def test_every_chinese_notebook_runs_under_nbval_and_the_english_ones_in_the_shared_run():
    """The default run (testpaths) collects every zh notebook under nbval and no English one (the English notebooks'
    outputs are compared in the run shared with the Colab and re-run tests); a named English notebook is collected."""
    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conftest)
    default = types.SimpleNamespace(args_source=pytest.Config.ArgsSource.TESTPATHS)
    named = types.SimpleNamespace(args_source=pytest.Config.ArgsSource.ARGS)
    assert BOOKS and all(conftest.pytest_ignore_collect(b, default) is True for b in BOOKS)
    assert not any(conftest.pytest_ignore_collect(ZH / b.name, default) for b in BOOKS)
    assert not any(conftest.pytest_ignore_collect(b, named) for b in BOOKS)
    assert conftest.pytest_ignore_collect(ROOT / "tests" / "test_i18n.py", default) is None


# ----------------------------------------------------------------------------- the package's own strings
def test_package_catalog_is_complete_current_and_compiled():
    """helpers.po: every string marked in the code (Babel) is translated, none fuzzy, its fields kept; extract
    would change nothing; the shipped helpers/locale/zh_CN/LC_MESSAGES/helpers.mo is its compilation."""
    problems = i18n.check_package_catalog()
    assert not problems, _report(problems)


@pytest.mark.parametrize("book", BOOKS, ids=IDS)
def test_zh_code_differs_only_by_the_setup_line(book):
    """The one code line a Chinese notebook adds: the last line of its setup cell switches the language."""
    en = [i18n.cell_source(c) for c in i18n.read_notebook(book)["cells"] if c["cell_type"] == "code"]
    zh = [i18n.cell_source(c) for c in i18n.read_notebook(ZH / book.name)["cells"] if c["cell_type"] == "code"]
    assert zh[0] == en[0] + "\n" + i18n.ZH_SETUP_LINE and zh[1:] == en[1:]


# ----------------------------------------------------------------------------- lines that notebook cells print
from helpers import i18n as lang  # noqa: E402


def test_printed_lines_of_the_translated_notebooks_are_all_translated():
    """outputs.po: for every notebook of OUTPUTS_TRANSLATED, current with its stored outputs and every printed
    sentence line's template translated with the same numbers; outputs.mo compiled from it. The other notebooks'
    English lines are reported (``scripts/i18n.py check`` prints a note), not failed."""
    problems, notes = i18n.check_outputs_catalog()
    assert not problems, _report(problems)
    assert all("not in OUTPUTS_TRANSLATED" in n for n in notes)


def test_line_template_numbers_become_placeholders_and_words_keep_their_digits():
    assert lang.line_template("loss 2.08 at 8L on float32, SmolLM2: −0.5, 1,024 and {x} 99.5%") == (
        "loss {0} at {1} on float32, SmolLM2: {2}, {3} and {{x}} {4}",
        ["2.08", "8L", "−0.5", "1,024", "99.5%"],
    )


def test_translate_line_refills_numbers_in_the_translations_order():
    line = "output at t = 15 shorter than at t = 0 in 99.5% of the 2000 sequences"
    assert lang.translate_line(line, "zh_CN") == "在 2000 个序列中的 99.5%，t = 15 处的输出比 t = 0 处的短"
    assert lang.translate_line(line.replace("2000", "7"), "zh_CN").startswith("在 7 个序列中")
    assert lang.translate_line(line, "en") == line
    assert lang.translate_line("no entry covers this line at all, it stays", "zh_CN").endswith("it stays")


def test_in_chinese_stdout_translates_whole_lines_as_they_are_printed(capsys):
    line = "output at t = 15 shorter than at t = 0 in 99.5% of the 2000 sequences"
    lang.set_language("zh_CN")
    try:
        print("output at t = 15 shorter ", end="")  # a partial line waits for the rest
        print("than at t = 0 in 99.5% of the 2000 sequences\nunchanged")
    finally:
        lang.set_language("en")
    assert capsys.readouterr().out == lang.translate_line(line, "zh_CN") + "\nunchanged\n"
    print(line)
    assert capsys.readouterr().out == line + "\n"


@pytest.mark.parametrize(
    "line, is_text",
    [
        ("irope_family (robust, 10 of 10 seeds):", True),  # a name counts as one word
        ("tokens kept after 20: [0, 1, 2, 3]", True),
        ("method                      1×L                2×L", True),  # a table header: one word suffices
        ("PE(10)·PE(13) = 5.5431   PE(10)·PE(7) = 5.5431", True),  # a table row: kept as it is in the catalog
        ("n_kv_heads      3", False),  # a config dump
        ("sliding_window: 512  head_dim: 256", False),
        ("            if self.sliding_window is None or self.is_sliding:", False),  # code
        ("                cos, sin = position_embeddings", False),
        ("layer_types: ['sliding', 'sliding', 'full']", False),  # quoted values are not words
        ("bucket 31: distances 113..∞", True),  # two prose words
        ("Q4_1 d = 0.12683105  m = -0.73046875", False),  # a name and symbols
    ],
)
def test_short_printed_lines_are_extracted_when_they_read_as_text(line, is_text):
    assert i18n.is_text(line) is is_text


def test_displayed_markdown_is_translated_piece_by_piece_at_run_time_as_in_the_build(monkeypatch):
    """A Markdown table is looked up cell by cell (header rule kept, code spans kept); English is unchanged; in
    Chinese, IPython's text/markdown formatter shows a Markdown object translated, and in English again not."""
    from IPython.core.formatters import MarkdownFormatter
    from IPython.display import Markdown

    text = "| claim | `tiny` |\n|---|---|\n| Plain RoPE fails past L | robust (10 of 10 seeds) |"
    assert lang.markdown_pieces(text) == ["claim", "`tiny`", "Plain RoPE fails past L", "robust (10 of 10 seeds)"]
    zh = "| 论断 | `tiny` |\n|---|---|\n| 普通 RoPE 超过 L 即失效 | 稳健（10 个种子中 10 个） |"
    assert lang.translate_markdown(text, "zh_CN") == zh
    assert lang.translate_markdown(text, "en") == text
    formatter = MarkdownFormatter()
    shell = types.SimpleNamespace(display_formatter=types.SimpleNamespace(formatters={"text/markdown": formatter}))
    monkeypatch.setattr(sys.modules["IPython"], "get_ipython", lambda: shell)
    lang.set_language("zh_CN")
    try:
        assert formatter(Markdown(text)) == zh
    finally:
        lang.set_language("en")
    assert formatter(Markdown(text)) == text


# ----------------------------------------------------------------------------- widget labels
#: Control labels that are names or symbols, the same in every language (not marked for translation).
KEPT_LABELS = {"Llama 4 α (attn_scale)", "Ministral 3 β", "SSMax s"}
#: One panel of each widgets module (module, factory, arguments); lab's models are not loaded (see below).
PANELS = [
    ("blindness", "explorer_panel", ()),
    ("extension", "methods_panel", ()),
    ("lab", "lab_panel", ()),
    ("learned", "gradient_panel", ()),
    ("modern", "loss_panel", ({"unused": None},)),
    ("position_2026", "temperature_panel", ()),
    ("real", "try_it_panel", ({"factors": [1.0, 2.0], "lengths": [128]}, ["yarn"])),
    ("rope", "rotation_panel", ()),
    ("score_biases", "bucket_panel", ()),
    ("sinusoidal", "waves_panel", ()),
]
CJK = re.compile(r"[\u4e00-\u9fff]")


def _panel_labels(module: str, factory: str, args: tuple, monkeypatch) -> tuple[list[str], list[str]]:
    """(descriptions, option labels) of a panel's controls as built now (its figure not drawn: the module's
    ``panel`` returns the controls; lab's models are not loaded)."""
    import importlib

    mod = importlib.import_module(f"helpers.widgets.{module}")
    monkeypatch.setattr(mod, "panel", lambda draw, controls, **kw: controls)
    if module == "lab":
        monkeypatch.setattr(mod, "load_model", lambda *a, **k: None)
    controls = getattr(mod, factory)(*args).values()
    return [c.description for c in controls], [str(o) for c in controls for o in getattr(c, "_options_labels", ())]


@pytest.mark.parametrize("module, factory, args", PANELS, ids=[p[0] for p in PANELS])
def test_widget_labels_are_chinese_when_built_in_chinese(module, factory, args, monkeypatch):
    """Built in Chinese, every description and option label that is a marked message is its translation, and every
    description is Chinese unless it is a name (KEPT_LABELS); built in English again, the labels are the English."""
    english = _panel_labels(module, factory, args, monkeypatch)
    lang.set_language("zh_CN")
    try:
        chinese = _panel_labels(module, factory, args, monkeypatch)
    finally:
        lang.set_language("en")
    catalog = lang.translation("zh_CN")  # a marked message, else a figure/widget text of the figures catalog
    assert chinese == tuple([lang.figure_text(catalog.gettext(e), "zh_CN") for e in part] for part in english)
    assert all(CJK.search(d) or d in KEPT_LABELS for d in chinese[0]), chinese[0]
    assert _panel_labels(module, factory, args, monkeypatch) == english


def test_a_zh_figure_stands_only_for_the_english_figure_it_was_drawn_from():
    """Figures are the one output no catalog entry maps: a Chinese run draws them (build --images-from). Each one
    carries the hash of the English image it replaces; the check puts the English image back before comparing, and
    a changed English figure drops the Chinese one at the next build."""

    def cell(png):
        return {"cell_type": "code", "source": [], "metadata": {}, "execution_count": 1,
                "outputs": [{"output_type": "display_data", "metadata": {}, "data": {"image/png": png}}]}  # fmt: skip

    english, executed = cell("AAAA"), cell("BBBB")
    zh = i18n.with_zh_images(i18n.zh_code_cell(english, False), english, executed, None)
    assert zh["outputs"][0]["data"]["image/png"] == "BBBB"
    assert i18n.english_images(zh, english) == i18n.zh_code_cell(english, False)
    assert i18n.with_zh_images(i18n.zh_code_cell(english, False), english, None, zh) == zh  # kept by the next build
    changed = cell("CCCC")
    assert i18n.with_zh_images(i18n.zh_code_cell(changed, False), changed, None, zh) == changed  # dropped
    assert i18n.english_images(zh, changed) != i18n.zh_code_cell(changed, False)  # the check fails on a stale one


# ----------------------------------------------------------------------------- figure and widget text at run time
def test_figure_text_is_translated_when_set_in_chinese_and_english_is_untouched():
    """In Chinese, matplotlib text a notebook's own code sets (a title with numbers, a legend built from a line's
    English label) is drawn from the figures catalog; the line keeps its English label; back in English,
    matplotlib's own Text.set_text is restored and the same calls give the English."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.text as mtext

    from helpers.plots import _style

    title = "tiny (L = 64): zero-shot loss by position at 8L, 10 seeds"
    fig, ax = plt.subplots()
    try:
        (line,) = ax.plot([0, 1], [0, 1], label="PI zero-shot")
        lang.set_language("zh_CN")
        try:
            ax.set_title(title)
            legend = ax.legend()
            assert ax.get_title() == "tiny（L = 64）：8L 处的零样本逐位置损失，10 个种子"
            assert [t.get_text() for t in legend.get_texts()] == ["PI 零样本"] and line.get_label() == "PI zero-shot"
            assert lang.figure_source(ax.get_title()) == title
            assert lang.figure_text("no entry covers this text") == "no entry covers this text"
        finally:
            lang.set_language("en")
        assert mtext.Text.set_text is _style._MPL_SET_TEXT
        ax.set_title(title)
        assert ax.get_title() == title and [t.get_text() for t in ax.legend().get_texts()] == ["PI zero-shot"]
    finally:
        plt.close(fig)


def test_widget_option_labels_are_translated_and_their_values_kept():
    """In Chinese a new widget's description and option labels come from the catalogs (also when its code sets new
    options later); the values, index and value never change; in English no construction callback is left."""
    import ipywidgets as widgets

    lang.set_language("zh_CN")
    try:
        box = widgets.Dropdown(options=["tiny", "small"], value="small", description="dynamic NTK")
        assert box._options_labels == ("tiny（微型）", "small（小型）") and box.description == "动态 NTK"
        assert (box.value, box.index, box.label) == ("small", 1, "small（小型）")
        box.options = ["rope+linear", "rope+ntk"]
        assert box._options_labels == ("rope+linear（PI 零样本）", "rope+ntk（NTK-aware 零样本）")
        box.value = "rope+ntk"
        assert box.label == "rope+ntk（NTK-aware 零样本）"
    finally:
        lang.set_language("en")
    assert widgets.Widget._widget_construction_callback is None
    assert widgets.Dropdown(options=["tiny", "small"])._options_labels == ("tiny", "small")


def test_figures_catalog_is_complete_current_and_compiled():
    """figures.po: current with the record of a Chinese run (i18n/zh_CN/screen_texts.json), every recorded English
    figure or widget text translated (a name kept on purpose has itself as msgstr), figures.mo compiled from it; and
    no string catalog uses a variant the glossary refuses."""
    problems = i18n.check_figures_catalog() + i18n.check_string_catalog_terms()
    assert not problems, _report(problems)


def test_an_untranslated_recorded_figure_text_fails_the_check(tmp_path):
    """A text a Chinese run showed in English with no catalog entry is a problem naming it and its cell; once
    extracted it is still a problem until translated."""
    catalogs = tmp_path / "zh_CN"
    shutil.copytree(i18n.CATALOGS, catalogs)
    record = json.loads((catalogs / i18n.SCREEN_RECORD).read_text(encoding="utf-8"))
    record["07_real_model"]["35"].append({"kind": "figure", "texts": ["a brand-new title at 8 tokens"]})
    (catalogs / i18n.SCREEN_RECORD).write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    paths = i18n.Paths(i18n.NOTEBOOKS, catalogs)
    found = [str(p) for p in i18n.check_figures_catalog(paths)]
    assert any("not current" in p for p in found)
    assert (
        "07_real_model.ipynb cell 35: figure or widget text untranslated or fuzzy: 'a brand-new title at {0} tokens'"
        in found
    )
    i18n.update_figures_catalog(paths)
    found = [str(p) for p in i18n.check_figures_catalog(paths)]
    assert not any("not current" in p for p in found) and any("a brand-new title" in p for p in found)


def test_a_refused_variant_in_a_printed_line_fails_the_check():
    """One term per glossary entry holds for printed lines too: 向前 for 'k steps back' is refused."""
    rows = i18n.read_glossary_variants(i18n.DEFAULT.glossary())
    assert i18n.check_variants("查询 A：RoPE 分数在向前 3 个词元处最大", rows)
    assert not i18n.check_variants("查询 A：RoPE 分数在往回 3 个词元处最大", rows)


def test_answers_accept_the_new_and_the_earlier_chinese_words():
    assert {"above", "高于", "上方"} <= lang.answer_forms("above") and {"below", "低于", "下方"} <= lang.answer_forms(
        "below"
    )


def test_a_wide_label_is_padded_by_display_width():
    """A translated table label pads to the same display width as an English one (two columns per CJK character)."""
    assert lang.display_width(f"{lang.WideText('普通 RoPE'):50s}") == 50 == len(f"{lang.WideText('PI'):50s}")
    assert f"{lang.WideText('PI'):>5}" == "   PI" and f"{lang.WideText('普通'):.1}" == "普"
