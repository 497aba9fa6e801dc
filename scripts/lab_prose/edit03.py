"""Edit notebook 03 section 5 for the keys100 protocol and the ten seeds of records (re-runnable: starts from main's)."""
import json, subprocess, sys
import numpy as np
WT = sys.argv[1]
sys.path.insert(0, WT)
from helpers.lab.records import load_results, seed_values, seeds_of, at_scale

src = subprocess.run(["git", "-C", WT, "show", "main:notebooks/03_learned.ipynb"], capture_output=True, text=True, check=True).stdout
nb = json.loads(src)
RES = next((a for a in sys.argv[2:] if a.endswith(".json")), f"{WT}/helpers/lab/results/results.json")
R = at_scale(load_results(RES), "tiny")
seeds = seeds_of(R, "learned"); n = len(seeds)
acc = lambda m, T: seed_values(R, m, "accuracy", T, seeds_of(R, m))
lL, l2L = acc("learned", 64), acc("learned", 128)
sL, s2L = acc("sinusoidal", 64), acc("sinusoidal", 128)
learned_sin = [s for s, a in zip(seeds_of(R, "sinusoidal"), sL) if a >= 0.5]
k100 = lambda x: int(round(x * 100))
def keys(x):
    k = k100(x); return "none" if k == 0 else ("one key of 100" if k == 1 else f"{k} keys of 100")
facts = dict(n=n, l0=k100(lL[0]), l2L0=k100(l2L[0]), l012=[f"{x:.2f}" for x in lL[:3]], l2L012max=k100(max(l2L[:3])),
             lmin=f"{lL.min():.2f}", lmax=f"{lL.max():.2f}", l2Lmax=k100(l2L.max()), sin_learned=learned_sin,
             sin_vals=[f"{sL[seeds_of(R,'sinusoidal').index(s)]:.2f}" for s in learned_sin], s2Lmax=k100(s2L.max()))
print(facts)
assert n == 10 or "--partial" in sys.argv, n

def rep(i, old, new):
    c = nb["cells"][i]; s = "".join(c["source"])
    assert old in s, (i, old[:60]); s = s.replace(old, new)
    c["source"] = s.splitlines(keepends=True)

def words(k):
    return {0: "none", 1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}[k]

rep(37, "the fraction of 60 keys (at 5 depths in the filler)", "the fraction of 100 keys (20 at each of 5 depths in the filler)")
rep(40, "def passkey_accuracy(net, length, n_per_depth=12, seed=0):", "def passkey_accuracy(net, length, n_per_depth=20, seed=0):")
upto = lambda k: "none" if k == 0 else ("at most one key of 100" if k == 1 else f"at most {k} keys of 100")
sin_txt = (f"Of the lab's {words(n)} sinusoidal seeds, {words(len(learned_sin))} learned it "
           f"({', '.join(f'seed {s}: {v}' for s, v in zip(learned_sin, facts['sin_vals']))} at 64 tokens), and "
           f"{'none of them retrieves a key' if facts['s2Lmax'] == 0 else 'they retrieve ' + upto(facts['s2Lmax'])} at 128")
rep(42, "- **Passkey:** the learned model retrieves 59 of 60 keys at 64 tokens and none at 128 tokens,",
    f"- **Passkey:** the learned model retrieves {facts['l0']} of 100 keys at 64 tokens and {keys(l2L[0]) if facts['l2L0'] else 'none'} at 128 tokens,")
rep(42, """Of the lab's three sinusoidal seeds only seed 1 did (0.967 at 64 tokens), and
  it too retrieves none at 128;""", sin_txt + ";")
rep(42, """- **Three seeds.** The numbers above are seed 0's. The lab ships three seeds of the learned model (0, 1 and 2),
  trained the same way; the collapsed cell below repeats the three measurements on each. At 64 tokens they
  retrieve 0.983, 0.983 and 1.000 of the keys, at 128 tokens none, and none at 64 tokens with their own
  untrained rows in place of rows 0..63: the conclusions hold on every seed.""",
f"""- **Ten seeds.** The numbers above are seed 0's. The lab ships three seeds of the learned model as files (0, 1
  and 2), trained the same way; the collapsed cell below repeats the three measurements on each. At 64 tokens they
  retrieve {facts['l012'][0]}, {facts['l012'][1]} and {facts['l012'][2]} of the keys, at 128 tokens {upto(facts['l2L012max'])}, and none at 64 tokens with their
  own untrained rows in place of rows 0..63. The lab's records cover {words(n)} seeds trained by the same recipe: at
  64 tokens {facts['lmin']}–{facts['lmax']}, at 128 tokens {upto(facts['l2Lmax'])}. The conclusions hold on every seed.""")
rep(43, "# The three measurements above, on every seed of the learned model that the lab ships",
    "# The three measurements above, on every seed of the learned model that the lab ships as a file")
rep(43, "    assert at_L > 0.5 and at_2L == 0.0 and own_untrained == 0.0", f"    assert at_L > 0.5 and at_2L <= {facts['l2L012max']} / 100 and own_untrained == 0.0")
rep(43, "assert seeds[0] == 0\n", """assert seeds[0] == 0
records = lab.load_results()  # the lab's stored records: every seed trained by the same recipe
all_seeds = lab.report.seeds_of(records, "learned")
rec_L, rec_2L = (lab.seed_values(records, "learned", "accuracy", n, all_seeds) for n in (L, 2 * L))
print(f"records of {len(all_seeds)} seeds: passkey {rec_L.min():.2f}-{rec_L.max():.2f} at 64 tokens, at most {rec_2L.max():.2f} at 128")
""")
rep(44, "# Checks for this section: section 5 (0.6-0.7 nats, 59 of 60 keys, 0.983 / 0.983 / 1.000 on three seeds, ln 107, about 4.5)",
    f"# Checks for this section: section 5 (0.6-0.7 nats, {facts['l0']} of 100 keys, {' / '.join(facts['l012'])} on three seeds, {words(n)} seeds of records, ln 107, about 4.5)")
rep(44, "assert abs(passkey[L][\"accuracy\"] * 60 - 59) < 1e-9  # 59 of 60 keys at 64 tokens ...",
    f"assert round(passkey[L][\"accuracy\"] * 100) == {facts['l0']}  # {facts['l0']} of 100 keys at 64 tokens ...")
rep(44, '# "three seeds (0, 1 and 2) ... 0.983, 0.983 and 1.000": the shipped checkpoints and results\nassert seeds == [0, 1, 2]\n',
    f'# "three seeds as files (0, 1 and 2) ... {", ".join(facts["l012"])}": the shipped checkpoints\nassert seeds == [0, 1, 2]\n')
rep(44, """assert [f"{at_L:.3f}" for at_L, _ in sin_passkey] == ["0.000", "0.967", "0.000"]  # "only seed 1 did (0.967)"
assert all(at_2L == 0.0 for _, at_2L in sin_passkey)  # "it too retrieves none at 128"
assert [f"{lab.evaluate_passkey('learned', L, seed=s)['accuracy']:.3f}" for s in seeds] == ["0.983", "0.983", "1.000"]""",
f"""assert [at_L >= 0.5 for at_L, _ in sin_passkey] == [s in {learned_sin} for s in seeds]  # live = records on the shipped seeds
sin_rec = lab.seed_values(records, "sinusoidal", "accuracy", L, all_seeds)
assert lab.report.seeds_of(records, "sinusoidal") == all_seeds and len(all_seeds) == {n}  # "{words(n)} seeds"
assert [s for s, a in zip(all_seeds, sin_rec) if a >= 0.5] == {learned_sin}  # the sinusoidal seeds that learned the task
assert [f"{{a:.2f}}" for s, a in zip(all_seeds, sin_rec) if a >= 0.5] == {facts['sin_vals']}
assert round(lab.seed_values(records, "sinusoidal", "accuracy", 2 * L, all_seeds).max() * 100) == {facts['s2Lmax']}  # at 128
assert [f"{{lab.evaluate_passkey('learned', L, seed=s)['accuracy']:.2f}}" for s in seeds] == {facts['l012']}
assert (f"{{rec_L.min():.2f}}", f"{{rec_L.max():.2f}}", round(rec_2L.max() * 100)) == ("{facts['lmin']}", "{facts['lmax']}", {facts['l2Lmax']})""")
rep(50, "(passkey 0.98–1.00 → 0.00 on three seeds) | sections 3–5 (three seeds);",
    f"(passkey {facts['lmin']}–{facts['lmax']} → at most {facts['l2Lmax'] / 100:.2f} on {words(n)} seeds) | sections 3–5 ({words(n)} seeds of records);")
open(f"{WT}/notebooks/03_learned.ipynb", "w").write(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
print("03 edited")
