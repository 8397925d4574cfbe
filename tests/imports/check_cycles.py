#!/usr/bin/env python3
"""Import circles between the files of a Rust crate's src/ folder.

A file depends on another when it names it in a `use` (braces expanded) or in a `crate::`/`super::`
path, outside its `#[cfg(test)] mod tests`. A child's use of its parent module's own items is not
counted: a module tree's parent declares its children and they may use it. A circle is a strongly connected set of two or more files. Usage: check_cycles.py SRC_DIR...
Exit status 0 when no folder has one, 1 otherwise (each circle printed).
"""
import collections
import os
import re
import sys


def modules(src):
    files = {}
    for root, _, names in os.walk(src):
        for name in names:
            if name.endswith(".rs"):
                rel = os.path.relpath(os.path.join(root, name), src)
                path = rel[:-3].split(os.sep)
                if path[-1] in ("mod", "lib", "main"):
                    path = path[:-1]
                files[tuple(path)] = rel
    return files


def expand(path):
    """`a::{b, c::{d}}` -> ['a::b', 'a::c::d']."""
    m = re.match(r"^(.*?)::\{(.*)\}$", path, re.S)
    if not m:
        return [path]
    prefix, inner = m.group(1), m.group(2)
    parts, depth, cur = [], 0, ""
    for ch in inner:
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return [prefix + "::" + e for p in parts for e in expand(p)]


def target(files, current, segs):
    if segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs[0] == "super":
        base = list(current)
        while segs and segs[0] == "super":
            base, segs = base[:-1], segs[1:]
    elif segs[0] == "self":
        base, segs = list(current), segs[1:]
    else:
        base = list(current)  # a child module named from its parent
    for i in range(len(segs), 0, -1):
        m = tuple(base + segs[:i])
        if m in files:
            return m
    return None


def circles(src):
    files = modules(src)
    edges = collections.defaultdict(set)
    for mod, rel in files.items():
        text = re.sub(r"//[^\n]*", "", open(os.path.join(src, rel), encoding="utf-8").read())
        # A file's own unit tests (its last item, by this project's layout) may use anything.
        text = re.split(r"#\[cfg\(test\)\]\s*mod tests\s*\{", text)[0]
        paths = [p for u in re.finditer(r"\buse\s+([^;]+);", text) for p in expand(re.sub(r"\s+", "", u.group(1)))]
        paths += [m.group(1) for m in re.finditer(r"\b((?:crate|super)(?:::\w+)+)", text)]
        for path in paths:
            segs = [s.split(" as ")[0] for s in path.split("::") if s]
            if segs[0] not in ("crate", "super", "self") and tuple(list(mod) + [segs[0]]) not in files:
                continue
            t = target(files, mod, segs)
            if t is not None and t != mod:
                edges[mod].add(t)
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(files[c] for c in comp))

    sys.setrecursionlimit(10000)
    for v in list(files):
        if v not in index:
            visit(v)
    return found


def main(dirs):
    bad = False
    for src in dirs:
        found = circles(src)
        for circle in found:
            print(f"{src}: import circle between {', '.join(circle)}")
        if not found:
            print(f"{src}: no import circle")
        bad = bad or bool(found)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
