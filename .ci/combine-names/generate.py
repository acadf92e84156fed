#!/usr/bin/env python3
"""Writes `.ci/combine-names/combine.txt`, the public names of Apple's Combine (with Foundation's
Combine extensions) that `.ci/check-combine-names.py` allows the Combine modules to declare.

Not run by CI: the list is committed, and this script says where it came from. Its sources:

1. OpenCombine 0.14.0's public symbols (modules OpenCombine, OpenCombineDispatch,
   OpenCombineFoundation), as `swift symbolgraph-extract` reports them. OpenCombine mirrors
   Combine's API; its `X.OCombine` wrappers stand for Combine's extensions of `X` itself, so
   `DispatchQueue.OCombine.SchedulerTimeType` is listed as `DispatchQueue.SchedulerTimeType`, and
   the wrappers' own members (`ocombine`, `OCombine.init(_:)`, `queue`) are dropped.
2. OpenCombine's `RemainingCombineInterface.swift`: the parts of Combine's interface that
   OpenCombine had not implemented when it was written (`merge`, `combineLatest`,
   `collect(.byTime)`, ...), parsed declaration by declaration.
3. `extra.txt` beside this script: names of Combine's interface that neither lists, each with
   the Combine release that added it.

Usage (from the package root, with OpenCombine 0.14.0 built in DIR by `swift build`):

    python3 .ci/combine-names/generate.py DIR
"""

import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def symbol_paths(module, modules_dir, include):
    target = json.loads(subprocess.run(
        ["swiftc", "-print-target-info"], check=True, capture_output=True, text=True
    ).stdout)["target"]["triple"]
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([
            "swift", "symbolgraph-extract", "-module-name", module, "-I", modules_dir,
            "-I", include, "-target", target, "-minimum-access-level", "public",
            "-output-dir", out,
        ], check=True)
        for name in os.listdir(out):
            with open(os.path.join(out, name)) as handle:
                for symbol in json.load(handle)["symbols"]:
                    if symbol.get("accessLevel") not in ("public", "open"):
                        continue
                    if symbol["kind"]["identifier"] == "swift.extension":
                        continue
                    if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
                        continue
                    yield ".".join(symbol["pathComponents"])


def combine_spelling(path):
    """OpenCombine's `X.OCombine.Y` is Combine's `X.Y`; the wrapper itself is not Combine's."""
    if re.match(r"^\w+\.(OCombine|ocombine)$", path):
        return None
    if re.match(r"^\w+\.OCombine\.(init\(_:\)|queue|center|runLoop|operationQueue|session)$", path):
        return None
    return re.sub(r"^(\w+)\.OCombine\.", r"\1.", path)


def labels(parameters):
    """`(_ a: A, with b: B)` -> `_:with:`."""
    result, depth, current = [], 0, ""
    for char in parameters:
        if char in "(<[":
            depth += 1
        elif char in ")>]":
            depth -= 1
        if char == "," and depth == 0:
            result.append(current)
            current = ""
        else:
            current += char
    if current.strip():
        result.append(current)
    names = []
    for parameter in result:
        if ":" not in parameter:
            names.append("_:")  # an enum case's unlabelled associated value
            continue
        head = parameter.split(":")[0].strip().split()
        names.append(head[0] + ":")
    return "".join(names)


def remaining_interface(path):
    """Parses the declarations of OpenCombine's RemainingCombineInterface.swift into paths."""
    stack = []  # (name or None, brace depth at which it opened)
    depth = 0
    names = set()
    with open(path) as handle:
        for raw in handle:
            line = raw.split("//")[0].strip()
            if not line:
                continue
            opened = None
            match = re.match(r"^extension ([\w.]+)", line)
            if match:
                opened = match.group(1)
            match = re.match(r"^(?:@\w+ )*public (?:final )?(?:struct|enum|class|protocol) (\w+)", line)
            if match:
                opened = match.group(1)
                names.add(".".join([n for n, _ in stack if n] + [opened]))
            prefix = ".".join(n for n, _ in stack if n)
            if opened is None:
                member = None
                match = re.match(
                    r"^(?:@\w+ )*public (?:static |final |override |mutating )*func ([^\s<(]+)\s*(?:<[^(]*>)?\s*\((.*?)\)\s*(?:->|where|throws|rethrows|$|\{)",
                    line)
                if match:
                    name, spelled = match.group(1), labels(match.group(2))
                    if not name[0].isalpha() and name[0] != "_":
                        spelled = "_:" * spelled.count(":")  # operators take no labels
                    member = f"{name}({spelled})"
                match = re.match(r"^(?:@\w+ )*public (?:convenience )?init[?!]?\s*(?:<[^(]*>)?\s*\((.*?)\)", line)
                if match:
                    member = f"init({labels(match.group(1))})"
                match = re.match(r"^(?:@\w+ )*public (?:static |final )*(?:let|var) (\w+)", line)
                if match:
                    member = match.group(1)
                match = re.match(r"^(?:@\w+ )*public typealias (\w+)", line)
                if match:
                    member = match.group(1)
                match = re.match(r"^case (\w+)(\((.*)\))?", line)
                if match:
                    member = match.group(1) + (f"({labels(match.group(3))})" if match.group(2) else "")
                if member and prefix:
                    names.add(f"{prefix}.{member}")
            for char in line:
                if char == "{":
                    depth += 1
                    stack.append((opened, depth))
                    opened = None
                elif char == "}":
                    if stack and stack[-1][1] == depth:
                        stack.pop()
                    depth -= 1
    return names


def main():
    opencombine = os.path.abspath(sys.argv[1])
    modules = os.path.join(opencombine, ".build", "debug", "Modules")
    with tempfile.TemporaryDirectory() as include:
        # The C helpers' module, which OpenCombine's module loads.
        header = os.path.join(opencombine, "Sources", "COpenCombineHelpers", "include")
        with open(os.path.join(include, "module.modulemap"), "w") as handle:
            handle.write(f'module COpenCombineHelpers {{\n  header "{header}/COpenCombineHelpers.h"\n  export *\n}}\n')
        names = set()
        for module in ["OpenCombine", "OpenCombineDispatch", "OpenCombineFoundation"]:
            for path in symbol_paths(module, modules, include):
                spelled = combine_spelling(path)
                if spelled:
                    names.add(spelled)
    names |= remaining_interface(os.path.join(opencombine, "RemainingCombineInterface.swift"))
    with open(os.path.join(HERE, "combine.txt"), "w") as handle:
        handle.write("# Combine's public names, one symbol path a line; written by generate.py "
                     "(see there). Hand-kept additions are in extra.txt.\n")
        for name in sorted(names):
            handle.write(name + "\n")
    print(f"{len(names)} names")


if __name__ == "__main__":
    main()
