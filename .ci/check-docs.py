#!/usr/bin/env python3
"""Checks the API documentation of every StreamKit module.

Run after `swift build --build-tests` (it reads the debug build's modules, so it builds nothing):

    python3 .ci/check-docs.py            # every module
    python3 .ci/check-docs.py StreamCore # one module

For each module it

1. extracts the public symbol graph from the built module (`swift symbolgraph-extract`);
2. checks the doc comments against our rule (below), listing every symbol that breaks it;
3. builds the module's DocC catalog, `Sources/<Module>/<Module>.docc`, with `docc convert
   --warnings-as-errors`, so a broken link or curation fails CI.

The rule. Every public symbol declared in `Sources/` has a doc comment; one that implements a
protocol requirement (`receive(subscriber:)`, `Output`) may inherit the requirement's. Types and protocols, and the operators and functions
declared in extensions of protocols or of other modules' types (`Publisher.map`,
`DispatchQueue.schedule`), also carry a short example (a fenced code block) and a thread-safety
line (`> Thread safety: ...`). Members of a type (properties, cases, initialisers, methods,
typealiases) need a summary; the type's thread-safety line covers them.

Exit status: 0 when every module passes, 1 otherwise.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

MODULES = [
    "StreamCore",
    "StreamTesting",
    "FutureKit",
    "SignalOperators",
    "PropertyWrappers",
    "StreamFoundation",
    "StreamCombineExt",
    "StreamCombineSchedulers",
    "StreamConbini",
    "StreamConcurrency",
    "StreamObservation",
    "StreamPropagate",
    "StreamShuttle",
    "StreamSnail",
    "StreamSwiftySignals",
]
TYPE_KINDS = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.actor"}
FUNCTION_KINDS = {"swift.method", "swift.func", "swift.type.method"}
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def run(command, **kwargs):
    return subprocess.run(command, check=True, text=True, capture_output=True, **kwargs)


def bin_path():
    return run(["swift", "build", "--show-bin-path"], cwd=ROOT).stdout.strip()


def extract(module, modules_dir, output):
    triple = run(["swiftc", "-print-target-info"]).stdout
    target = json.loads(triple)["target"]["triple"]
    run([
        "swift", "symbolgraph-extract", "-module-name", module, "-I", modules_dir,
        # StreamCore's C shims (its lock's futex calls), which StreamCore's module loads.
        "-I", os.path.join(ROOT, "Sources", "StreamCoreShims", "include"),
        "-target", target, "-minimum-access-level", "public", "-output-dir", output,
        # Extension blocks let DocC document (and link) what a module declares on another
        # module's types, such as SignalOperators' `Publisher.map`; without them it drops those.
        "-emit-extension-block-symbols",
    ])


def doc_text(symbol):
    comment = symbol.get("docComment")
    if not comment:
        return None
    return "\n".join(line["text"] for line in comment.get("lines", []))


def needs_example(symbol, graph_file, module):
    """Types, and functions declared on another module's type or on a protocol's extension."""
    kind = symbol["kind"]["identifier"]
    if kind in TYPE_KINDS:
        return True
    if kind not in FUNCTION_KINDS:
        return False
    extended = symbol.get("swiftExtension", {}).get("extendedModule")
    path = symbol["pathComponents"]
    if extended and extended != module and len(path) == 2:
        return True  # e.g. Publisher.map(_:) declared in SignalOperators, DispatchQueue.schedule
    return False


def check_module(module, graphs):
    """Returns a list of problems, one line each."""
    problems = []
    sources = os.path.join(ROOT, "Sources", module) + os.sep
    seen = set()
    for name in sorted(os.listdir(graphs)):
        if not name.startswith(module) or not name.endswith(".symbols.json"):
            continue
        with open(os.path.join(graphs, name)) as handle:
            graph = json.load(handle)
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") != "public":
                continue
            if symbol["kind"]["identifier"] == "swift.extension":
                continue  # an extension block: its members carry the documentation
            uri = symbol.get("location", {}).get("uri", "")
            path = uri.replace("file://", "")
            if not path.startswith(sources):
                continue  # inherited or synthesised
            line = symbol["location"]["position"]["line"] + 1
            key = (path, line, symbol["kind"]["identifier"])
            if key in seen:
                continue
            seen.add(key)
            where = f"{os.path.relpath(path, ROOT)}:{line}: {'.'.join(symbol['pathComponents'])}"
            text = doc_text(symbol)
            if text is None or not text.strip():
                problems.append(f"{where}: no doc comment")
                continue
            if needs_example(symbol, name, module):
                if "```" not in text:
                    problems.append(f"{where}: no example (a fenced code block)")
                if "Thread safety" not in text:
                    problems.append(f"{where}: no '> Thread safety:' line")
    return problems


def build_catalog(module, graphs, output):
    catalog = os.path.join(ROOT, "Sources", module, f"{module}.docc")
    if not os.path.isdir(catalog):
        return [f"Sources/{module}/{module}.docc: missing"]
    only_module = os.path.join(output, "graphs")
    os.makedirs(only_module, exist_ok=True)
    for name in os.listdir(graphs):
        if name.startswith(module + ".") or name.startswith(module + "@"):
            shutil.copy(os.path.join(graphs, name), only_module)
    result = subprocess.run([
        "docc", "convert", catalog,
        "--additional-symbol-graph-dir", only_module,
        "--fallback-display-name", module,
        "--fallback-bundle-identifier", f"org.streamkit.{module}",
        "--output-path", os.path.join(output, f"{module}.doccarchive"),
        "--warnings-as-errors",
    ], text=True, capture_output=True)
    if result.returncode != 0:
        return [f"docc convert {module}.docc failed:", result.stdout + result.stderr]
    return []


def main():
    modules = sys.argv[1:] or MODULES
    modules_dir = os.path.join(bin_path(), "Modules")
    failed = False
    with tempfile.TemporaryDirectory() as scratch:
        for module in modules:
            graphs = os.path.join(scratch, module, "graphs-all")
            os.makedirs(graphs)
            extract(module, modules_dir, graphs)
            problems = check_module(module, graphs)
            problems += build_catalog(module, graphs, os.path.join(scratch, module))
            if problems:
                failed = True
                print(f"{module}: {len(problems)} problem(s)")
                for problem in problems:
                    print("  " + problem)
            else:
                print(f"{module}: documentation complete, catalog builds without warnings")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
