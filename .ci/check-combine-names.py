#!/usr/bin/env python3
"""Checks that the modules a Combine port imports declare only Combine's public names.

Run after `swift build --build-tests` (it reads the debug build's modules, so it builds nothing):

    python3 .ci/check-combine-names.py

A library written for Combine declares its own operators and types (`Publishers.WithLatestFrom`,
`Publisher.materialize()`, a `ReplaySubject`), and Swift reports every use of such a name as
ambiguous when an imported module declares it too. So the Combine modules (StreamCore,
SignalOperators, FutureKit, PropertyWrappers, StreamFoundation) may declare a public symbol only
if Combine (with Foundation's Combine extensions) has it. Other libraries' APIs live in modules
of their own (StreamCombineExt, StreamConbini, ...), which a port doesn't import.

For each module the script extracts the public symbol graph and compares each declared symbol's
path (`Publishers.Merge.init(_:_:)`, `Publisher.sink(receiveValue:)`) with
`.ci/combine-names/combine.txt` (generated from OpenCombine, see generate.py there) and
`.ci/combine-names/extra.txt` (kept by hand: names Combine has that neither source lists, and
our declarations that restate a Combine name, each with its reason). Symbols the compiler
synthesises and members inherited from another module's protocol extension are not declared
here and are skipped.

Exit status: 0 when every declared name is Combine's, 1 otherwise (each offender is listed with
its file and line).
"""

import json
import os
import subprocess
import sys
import tempfile
import urllib.parse

MODULES = ["StreamCore", "SignalOperators", "FutureKit", "PropertyWrappers", "StreamFoundation"]
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
LISTS = [os.path.join(ROOT, ".ci", "combine-names", name) for name in ("combine.txt", "extra.txt")]


def allowed_names():
    names = set()
    for path in LISTS:
        with open(path) as handle:
            for line in handle:
                line = line.split("#", 1)[0].strip()
                if line:
                    names.add(line.split()[0])
    return names


def declared_symbols(module, modules_dir, output):
    target = json.loads(subprocess.run(
        ["swiftc", "-print-target-info"], check=True, capture_output=True, text=True
    ).stdout)["target"]["triple"]
    subprocess.run([
        "swift", "symbolgraph-extract", "-module-name", module, "-I", modules_dir,
        "-I", os.path.join(ROOT, "Sources", "StreamCoreShims", "include"),
        "-target", target, "-minimum-access-level", "public", "-output-dir", output,
    ], check=True, capture_output=True, text=True)
    sources = os.path.realpath(os.path.join(ROOT, "Sources", module)) + os.sep
    for name in sorted(os.listdir(output)):
        with open(os.path.join(output, name)) as handle:
            graph = json.load(handle)
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            if symbol["kind"]["identifier"] == "swift.extension":
                continue
            if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
                continue
            uri = urllib.parse.unquote(symbol.get("location", {}).get("uri", "").replace("file://", ""))
            if not uri or not os.path.realpath(uri).startswith(sources):
                continue  # synthesised by the compiler, or inherited
            uri = os.path.realpath(uri)
            line = symbol["location"]["position"]["line"] + 1
            yield ".".join(symbol["pathComponents"]), os.path.relpath(uri, ROOT), line


def main():
    allowed = allowed_names()
    bin_path = subprocess.run(
        ["swift", "build", "--show-bin-path"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    modules_dir = os.path.join(bin_path, "Modules")
    failures = []
    counts = {}
    for module in MODULES:
        with tempfile.TemporaryDirectory() as output:
            symbols = sorted(set(declared_symbols(module, modules_dir, output)))
        counts[module] = len(symbols)
        if not symbols:
            failures.append(f"{module}: no public symbol declared in Sources/{module} was read; "
                            "the check can't tell anything (is the module built?)")
        for path, file, line in symbols:
            if path not in allowed:
                failures.append(f"{file}:{line}: {path} is not a Combine name")
    for failure in failures:
        print(failure)
    summary = ", ".join(f"{module} {count}" for module, count in counts.items())
    if failures:
        print(f"{len(failures)} public names that Combine lacks (symbols checked: {summary}); "
              "move them to the module of the library they come from")
        return 1
    print(f"every public name is Combine's (symbols checked: {summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
