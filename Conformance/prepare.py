#!/usr/bin/env python3
"""Fetches OpenCombine 0.14.0's test suite into Tests/OpenCombineTests (not committed).

The files are copied unchanged but for what REMOVED.txt lists, each with its reason: a whole
file, or one test method (`File.swift:testName`), that can't compile here. The package compiles
the suite with OPENCOMBINE_COMPATIBILITY_TEST, so it does `import Combine`, which is StreamKit
(Sources/Combine).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

TAG = "0.14.0"
HERE = os.path.dirname(os.path.abspath(__file__))
DEST = os.path.join(HERE, "Tests", "OpenCombineTests")


def removals():
    """(path, test or None, reason) for each line of REMOVED.txt."""
    out = []
    with open(os.path.join(HERE, "REMOVED.txt")) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            what, _, reason = line.partition(" # ")
            path, _, test = what.strip().partition(":")
            out.append((path, test or None, reason.strip()))
    return out


def remove_method(source, name):
    """Removes `func name(` with the attributes above it and its body, by brace matching."""
    match = re.search(r"^([ \t]*@[^\n]*\n)*[ \t]*func " + re.escape(name) + r"\(", source, re.M)
    if not match:
        sys.exit(f"prepare.py: no test method {name}")
    start = match.start()
    depth = 0
    i = source.index("{", match.end())
    while True:
        c = source[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                break
        i += 1
    end = source.index("\n", i) + 1
    return source[:start] + source[end:]


def main():
    with tempfile.TemporaryDirectory() as work:
        checkout = os.path.join(work, "OpenCombine")
        subprocess.run(
            ["git", "-c", "advice.detachedHead=false", "clone", "-q", "--branch", TAG,
             "https://github.com/OpenCombine/OpenCombine", checkout],
            check=True,
        )
        shutil.rmtree(DEST, ignore_errors=True)
        shutil.copytree(os.path.join(checkout, "Tests", "OpenCombineTests"), DEST)
    for path, test, _ in removals():
        full = os.path.join(DEST, path)
        if test is None:
            os.remove(full)
            continue
        with open(full) as f:
            source = f.read()
        with open(full, "w") as f:
            f.write(remove_method(source, test))
    count = sum(len([n for n in files if n.endswith(".swift")]) for _, _, files in os.walk(DEST))
    print(f"prepared: {count} test files from OpenCombine {TAG}")


if __name__ == "__main__":
    main()
