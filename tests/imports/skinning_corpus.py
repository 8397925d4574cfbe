#!/usr/bin/env python3
"""Distance from true skinning of rigid-gte's two-influence blend on a folder of FBX files.

Usage: python3 tests/imports/skinning_corpus.py CORPUS_DIR [PSXANIM]

Runs `psxanim import --storage rigid-gte --json` (two influences, the default) on every .fbx under
CORPUS_DIR (for example a local copy of ufbx's public test corpus; it stays out of the repo) and
prints, for each character whose vertices have at most two influences and that blends, the largest
distance from ufbx's true skinning against issue 23's limit, max(10 GTE units, 1% of the model's
height); files with more influences are listed apart. Exit status 1 when a two-influence character
is over the limit. Files psxanim refuses (no skin, dual-quaternion skinning, scaled bones, damaged
files) are counted by their first message.
"""
import collections, json, os, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

corpus = sys.argv[1]
tool = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "../../target/release/psxanim")
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(corpus) for f in fs if f.lower().endswith(".fbx"))

def run(path):
    with tempfile.TemporaryDirectory() as out:
        try:
            p = subprocess.run([tool, "import", path, "--storage", "rigid-gte", "--max-error", "inf", "-o", out, "--json"],
                               capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            return path, None, "timed out after 60 s"
    if p.returncode != 0:
        return path, None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[0]
    return path, json.loads(p.stdout), None

with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
    results = list(pool.map(run, files))

refused = collections.Counter()
two, more = [], []
for path, d, err in results:
    if d is None:
        refused[err.split(": ", 2)[-1][:60]] += 1
        continue
    a = d["accuracy"]
    row = (os.path.relpath(path, corpus), d["blended_vertices"], d["vertices"], a["versus_skinned"]["max"], a["model_height"],
           a["one_bone_versus_skinned"]["max"])
    if d["blended_vertices"] > 0 and d["beyond_two_vertices"] == 0:
        two.append(row)
    elif d["beyond_two_vertices"] > 0:
        more.append(row)

limit = lambda r: max(10.0, 0.01 * r[4])
print(f"{len(files)} files: {len(files) - sum(refused.values())} imported, {len(two)} two-influence characters that blend")
for r in sorted(two, key=lambda r: r[3] / limit(r), reverse=True):
    print(f"  {r[3]:9.2f} units (limit {limit(r):8.2f}, height {r[4]:7.0f}; one bone {r[5]:9.2f}) {r[1]}/{r[2]} blended  {r[0]}")
print(f"more than two influences (reduced to two, outside the limit's scope): {len(more)}")
for r in sorted(more, key=lambda r: r[3] / max(r[4], 1), reverse=True):
    print(f"  {r[3]:9.2f} units ({100 * r[3] / max(r[4], 1):.2f}% of {r[4]:.0f}; one bone {r[5]:9.2f})  {r[0]}")
print("refused:")
for msg, n in refused.most_common(8):
    print(f"  {n:5}  {msg}")
sys.exit(1 if any(r[3] > limit(r) for r in two) else 0)
