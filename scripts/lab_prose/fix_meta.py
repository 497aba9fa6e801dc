"""Set the evaluation times in the merged ten-seed results from the evaluation log (the first merges, made by code
that kept only the first part's time). usage: fix_meta.py RESULTS_JSON EVAL_LOG"""
import json, re, sys
res, log = sys.argv[1], open(sys.argv[2]).read()
parts = re.findall(r"=== eval --scales (\w+) --seeds ([\d ]+?)(?: --methods.*?)? \d\d:\d\d:\d\d\n(?:.*\n)*?evaluated in ([\d.]+) s with 1", log)
tot = {}
for scale, seeds, sec in parts:
    tot[scale] = tot.get(scale, 0.0) + float(sec)
print(parts, tot)
r = json.load(open(res))
r["meta"]["full_eval_seconds"] = round(tot["tiny"], 1)
r["scales"]["small"]["meta"]["full_eval_seconds"] = round(tot["small"], 1)
r["meta"]["wall_seconds"] = {"all_scales": round(tot["tiny"] + tot["small"], 1), "jobs": 1}
r["scales"]["small"]["meta"].pop("wall_seconds", None)
open(res, "w").write(json.dumps(r, indent=1) + "\n")
