"""Carry translations of fuzzy entries over when only numbers and verdict tags changed (lead's tool, not shipped).

usage: python fix_fuzzy.py WORKTREE [CATALOG ...]
For each fuzzy entry with a previous_msgid: if the old and new English differ only in number tokens and verdict
tags, substitute the numbers (old -> new, when each old number maps to one new number) and re-render the verdict
tags in order, then clear the fuzzy flag. Entries that differ in words are listed and left fuzzy.
"""

import re
import sys
from pathlib import Path

import polib

WT = Path(sys.argv[1])
NUM = re.compile(r"\d+(?:[.,]\d+)*")
EN_TAG = re.compile(r"\((?:\*\*)?(robust|mixed|does not hold): (\d+) of (\d+) seeds(?:\*\*)?\)")
ZH_TAG = re.compile(r"（(?:\*\*)?(稳健|不一致|不成立)：(\d+) 个种子中 (\d+) 个(?:\*\*)?）")
ZH_WORD = {"robust": "稳健", "mixed": "不一致", "does not hold": "不成立"}


def zh_tag(m: re.Match) -> str:
    word, k, n = m.group(1), m.group(2), m.group(3)
    body = f"{ZH_WORD[word]}：{n} 个种子中 {k} 个"
    return f"（{body}）" if word == "robust" else f"（**{body}**）"


def skeleton(text: str) -> str:
    return NUM.sub("#", EN_TAG.sub("<TAG>", text))


def carry(old: str, new: str, zh: str) -> str | None:
    if skeleton(old) != skeleton(new):
        return None
    en_new_tags = list(EN_TAG.finditer(new))
    zh_tags = list(ZH_TAG.finditer(zh))
    if len(en_new_tags) != len(list(EN_TAG.finditer(old))) or len(zh_tags) != len(en_new_tags):
        return None
    # tags first (positions from the end so the spans stay valid)
    out = zh
    for zm, em in reversed(list(zip(zh_tags, en_new_tags))):
        out = out[: zm.start()] + zh_tag(em) + out[zm.end():]
    old_nums = NUM.findall(EN_TAG.sub("", old))
    new_nums = NUM.findall(EN_TAG.sub("", new))
    if len(old_nums) != len(new_nums):
        return None
    mapping: dict[str, set[str]] = {}
    for a, b in zip(old_nums, new_nums):
        mapping.setdefault(a, set()).add(b)
    changes = {a: next(iter(bs)) for a, bs in mapping.items() if bs != {a}}
    if any(len(mapping[a]) > 1 for a in changes):
        return None
    if not changes:
        return out
    # replace whole number tokens outside the tags in one pass
    tag_spans = [(m.start(), m.end()) for m in ZH_TAG.finditer(out)]

    def sub(m: re.Match) -> str:
        if any(s <= m.start() < e for s, e in tag_spans):
            return m.group(0)
        return changes.get(m.group(0), m.group(0))

    return NUM.sub(sub, out)


names = sys.argv[2:] or [p.stem for p in sorted((WT / "i18n" / "zh_CN").glob("*.po"))]
left = []
for name in names:
    path = WT / "i18n" / "zh_CN" / f"{name}.po"
    po = polib.pofile(str(path), wrapwidth=0)
    fixed = 0
    for e in po:
        if "fuzzy" in e.flags and e.previous_msgid and e.msgstr:
            new = carry(e.previous_msgid, e.msgid, e.msgstr)
            if new is None:
                left.append((name, e.msgid[:90]))
                continue
            e.msgstr = new
            e.flags.remove("fuzzy")
            e.previous_msgid = None
            fixed += 1
    po.save(str(path))
    print(f"{name}: {fixed} carried over")
for name, m in left:
    print(f"LEFT fuzzy in {name}: {m!r}")
