#!/usr/bin/env python3
"""Checks psxanim against the public .panim files of Llennpie/Pluto (`dynos/anims/`), for local runs
only (fetch the repository; nothing of it is committed).

    python3 tests/corpus/pluto_panim_check.py PATH/TO/dynos/anims [PATH/TO/psxanim]

For every file: `inspect`, `validate`, `convert` to ANIMBIN (then `validate --profile large` of the
result) and a `.panim` rewrite that must be byte-identical. Then the values: the file is read again
here the way Pluto reads and plays it (its loader `LoadPAnim` in src/saturn/saturn_animations.cpp:
the value table up to the first "indices" tag at an even offset from 0x6A, the index table up to a
"translations" tag or the end, bone count = indices / 6 - 1, the node byte and the length as stored;
its player: axis value at frame f = values[offset + f] while f < count, else values[offset + count - 1],
for frames 0 .. length - 1), and every angle and root translation of every frame is compared with
`inspect --json`'s `euler_s16` and `translation`; no key may lie at or past the length.
"""

import json
import os
import struct
import subprocess
import sys


def pluto_tables(b):
    length = (b[0x61] << 8) | b[0x62]
    v, values = 0x6A, []
    indices_at = None
    while v < len(b):
        if b[v:v + 7] == b"indices":
            indices_at = v + 7
            break
        values.append(struct.unpack(">h", b[v:v + 2])[0])
        v += 2
    indices = []
    i = indices_at
    while i is not None and i < len(b):
        if b[i:i + 12] == b"translations":
            break
        indices.append(struct.unpack(">H", b[i:i + 2])[0])
        i += 2
    return length, values, indices


def run(args):
    return subprocess.run(args, capture_output=True)


def main():
    folder = sys.argv[1]
    psxanim = sys.argv[2] if len(sys.argv) > 2 else "target/release/psxanim"
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(folder) for f in fs if f.endswith(".panim"))
    failures, frames, values_checked = [], 0, 0
    tmp = "/tmp/pluto_panim_check"
    os.makedirs(tmp, exist_ok=True)
    for path in files:
        steps = [
            ("inspect", [psxanim, "inspect", path]),
            ("validate", [psxanim, "validate", path]),
            ("convert", [psxanim, "convert", path, f"{tmp}/out.animbin"]),
            ("validate animbin", [psxanim, "validate", f"{tmp}/out.animbin", "--profile", "large"]),
            ("rewrite", [psxanim, "convert", path, f"{tmp}/out.panim"]),
        ]
        for name, cmd in steps:
            r = run(cmd)
            if r.returncode != 0:
                failures.append(f"{path}: {name}: {r.stderr.decode(errors='replace').strip()}")
        if open(path, "rb").read() != open(f"{tmp}/out.panim", "rb").read():
            failures.append(f"{path}: the rewrite is not byte-identical")
        b = open(path, "rb").read()
        length, values, idx = pluto_tables(b)
        bones = len(idx) // 6 - 1

        def at(axis, f):
            count, offset = idx[axis * 2], idx[axis * 2 + 1]
            return values[offset + f] if f < count else values[offset + count - 1]

        doc = json.loads(run([psxanim, "inspect", path, "--json"]).stdout)
        clip = doc["clips"][0]
        if len(clip["tracks"]) != bones or clip["frame_rate"] != 30.0 or clip["length"] != length:
            failures.append(f"{path}: {len(clip['tracks'])} tracks at {clip['frame_rate']} Hz, length {clip['length']}; Pluto: {bones} bones, length {length}")
            continue
        for f in range(length):
            frames += 1
            for bone in range(bones):
                keys = clip["tracks"][bone]["euler_s16"]
                ours = keys[min(f, len(keys) - 1)][1:]
                want = [at(3 + bone * 3 + a, f) for a in range(3)]
                values_checked += 3
                if ours != want:
                    failures.append(f"{path}: frame {f} bone {bone}: {ours} != Pluto's {want}")
            keys = clip["tracks"][0]["translation"]
            ours = [int(x) for x in keys[min(f, len(keys) - 1)][1:]]
            values_checked += 3
            if ours != [at(a, f) for a in range(3)]:
                failures.append(f"{path}: frame {f} root translation {ours}")
        for t in clip["tracks"]:
            for k in t["euler_s16"] + t["translation"]:
                if k[0] >= max(length, 1):
                    failures.append(f"{path}: a key at frame {k[0]}, at or past the length {length}")
    for f in failures:
        print(f)
    print(f"{len(files)} files, {frames} frames, {values_checked} values compared with Pluto's reading; {len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
