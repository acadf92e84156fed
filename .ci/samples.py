#!/usr/bin/env python3
"""Turns the Swift samples in the Markdown docs into a test target, so that a sample can't rot.

Reads README.md, Docs/*.md, Docs/Migration/*.md and the DocC catalogs' pages
(Sources/*/*.docc/*.md) and writes Swift files into
Tests/DocSamplesTests/Generated/: one per document that has samples, plus one per plain sample
that shows its imports. `swift build --build-tests` compiles them with warnings as errors, so
CI fails when a sample breaks. The generated files are committed; CI runs `--check`.

The code-fence convention:

  ```swift          compiled as the body of a function (`async throws`, nonisolated), so
                    statements, local types and `try`/`await` work. Make the block
                    self-contained: declare the subject, scheduler and values it uses.
  ```swift file     compiled at file scope, for extensions, protocols, `@Test` functions and
                    types shared by later blocks of the same document. Top-level declarations
                    start at column 0; the script makes them `fileprivate` (except classes
                    inheriting from XCTestCase, and extensions that add a conformance), so
                    two documents may use the same names. `@Test`s and XCTestCases in these
                    blocks run with `swift test`.
  ```swift ignore   not compiled: Combine, OpenCombine or seed-library code, Package.swift
                    fragments. Say in the text around it why.

What a sample prints is part of the sample. A `// prints …` comment on a line of a plain
`swift` block says what that line prints, and the script checks it by running the sample:

  x.send(2)  // prints 20
  board.show()  // prints "score: 2", then "score: 3"
  task.cancel()  // prints nothing

After `prints` come the printed lines, each a quoted string ("…", with \" and \\ escapes) a
bare word (`20`, `finished`) or a bracketed list as Swift prints arrays (`["a", "b"]`), separated by `,`, `, then`, `then` or `and`; anything after the
last one (`prints 42 when it arrives`) is commentary. `prints nothing` declares no line. A plain
block that calls `print` must declare every line it prints, in order: the script generates a
Swift Testing test that runs the sample in a child process (an exit test) and compares its
standard output, line by line with trailing spaces ignored, to the lines the comments declare.
Output printed after the sample returns (from another thread, later) is not seen, so a sample
whose output comes later must wait for it, as a script would have to.

Every block is compiled with Dispatch, Foundation, the Combine modules and StreamTesting imported,
in one file per document. Another library's module (StreamCombineExt, StreamSnail, ...) is imported
only where a block of the document imports it or the document has a line
`<!-- samples import: StreamSnail StreamCombineExt -->`: those modules' names may clash with each
other, as the libraries' do. `import X` lines in a block are moved to the top of that file, so a sample
may show its imports; a plain `swift` block that shows imports is also compiled alone in a file
of its own with only those imports (and must then need nothing from other blocks), so the
imports it shows are all a reader needs. Each generated function and file-scope block starts
with a comment naming the Markdown file and line, and a `#sourceLocation` directive makes
compiler messages point at the Markdown line itself.

Usage:
  python3 .ci/samples.py            regenerate Tests/DocSamplesTests/Generated (commit the result)
  python3 .ci/samples.py --check    fail if those files are not what the docs generate
  python3 .ci/samples.py Docs/X.md  regenerate only the files of the documents named (a quick
                                    look while editing; run it without arguments before committing)
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT_DIR = Path("Tests/DocSamplesTests/Generated")
DOCUMENT_GLOBS = ["README.md", "Docs/*.md", "Docs/Migration/*.md", "Sources/*/*.docc/*.md"]
DEFAULT_IMPORTS = [
    "Dispatch",
    "Foundation",
    "FutureKit",
    "PropertyWrappers",
    "SignalOperators",
    "StreamCore",
    "StreamFoundation",
    "StreamTesting",
    "Testing",
]
KINDS = {"": "function", "file": "file", "ignore": "ignore"}

# A fence may be indented (inside a list item); its code lines lose the same indentation.
FENCE_OPEN = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})\s*(?P<info>.*?)\s*$")
IMPORT_LINE = re.compile(
    r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+"
    r"(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?(?P<module>[A-Za-z_]\w*)"
    r"(?:\.[\w.]+)?\s*(?://.*)?$"
)
# Declarations a function body can't hold: a plain block with one of these must be `swift file`.
FILE_SCOPE_ONLY = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?"
    r"(?P<what>extension|protocol|precedencegroup|(?:infix|prefix|postfix)\s+operator|@main\b|"
    r"@Test\b|@Suite\b)"
)
ACCESS = re.compile(r"\b(?:public|package|internal|private|fileprivate|open)\b")
# A top-level declaration, with its leading attributes and modifiers.
TOP_LEVEL_DECL = re.compile(
    r"^(?P<attributes>(?:@\w+(?:\([^)]*\))?\s+)*)"
    r"(?P<rest>(?:(?:final|indirect|nonisolated(?:\(unsafe\))?|dynamic|static)\s+)*"
    r"(?P<keyword>struct|class|enum|protocol|actor|func|typealias|let|var|extension)\b.*)$"
)


@dataclass
class Block:
    kind: str  # "function" or "file"
    document: str  # path relative to the repository root, with forward slashes
    fence_line: int  # 1-based line of the opening fence
    lines: list[str]  # the code, indentation of the fence removed

    @property
    def first_line(self) -> int:
        return self.fence_line + 1


# A `// prints …` comment: what the line it ends (or stands on) prints.
PRINTS_COMMENT = re.compile(r"//\s*prints\b(?P<rest>.*)$")
PRINTED_ITEM = re.compile(
    r'\s*(?:"(?P<quoted>(?:[^"\\]|\\.)*)"|(?P<bare>\[[^\]]*\]|[^\s,"\[:;()]+))'
)
ITEM_SEPARATOR = re.compile(r"\s*(?:,\s*then\b|,|\s+then\b|\s+and\b)")
CALLS_PRINT = re.compile(r"(?<![\w.])print\(")


def comment_start(line: str) -> int | None:
    """Where the line's `//` comment starts, outside string literals; None if it has none."""
    in_string = False
    index = 0
    while index < len(line):
        character = line[index]
        if in_string and character == "\\":
            index += 2
            continue
        if character == '"':
            in_string = not in_string
        elif not in_string and line.startswith("//", index):
            return index
        index += 1
    return None


def printed_lines(block: Block, code: list[str], errors: list[str]) -> list[str] | None:
    """The lines a plain block's `// prints` comments declare, in order, or None when the block
    neither prints nor declares anything (it is then compiled but not run)."""
    declared: list[str] = []
    any_comment = False
    for offset, line in enumerate(code):
        start = comment_start(line)
        comment = PRINTS_COMMENT.match(line, start) if start is not None else None
        if not comment:
            continue
        any_comment = True
        rest = comment["rest"]
        if rest.strip().startswith("nothing"):
            continue
        items: list[str] = []
        position = 0
        while True:
            item = PRINTED_ITEM.match(rest, position)
            if not item:
                break
            if item["quoted"] is not None:
                items.append(re.sub(r"\\(.)", r"\1", item["quoted"]))
            else:
                items.append(item["bare"])
            position = item.end()
            separator = ITEM_SEPARATOR.match(rest, position)
            if not separator:
                break
            position = separator.end()
        if not items:
            errors.append(
                f"{block.document}:{block.first_line + offset}: error: a `// prints` comment "
                f'names no line; write `// prints "text"` (or `// prints nothing`)'
            )
        declared.extend(items)
    calls_print = any(CALLS_PRINT.search(line[: comment_start(line)]) for line in code)
    if calls_print and not any_comment:
        errors.append(
            f"{block.document}:{block.fence_line}: error: this sample calls `print` but declares "
            f"no output; end the lines that print with `// prints \"…\"` comments (or "
            f"`// prints nothing` where the output comes only later)"
        )
    if not calls_print and not any_comment:
        return None
    return declared


def swift_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def output_test(name: str, block: Block, lines: list[str]) -> str:
    """A test that runs `name` in a child process and compares what it prints."""
    expected = ", ".join(swift_string(line) for line in lines)
    return "\n".join(
        [
            f"// What {block.document}:{block.fence_line} prints, as its `// prints` comments say",
            f'@Test("{block.document}:{block.fence_line} prints what its comments say")',
            f"func output_{name}() async {{",
            "  let result = await #expect(",
            "    processExitsWith: .success, observing: [\\.standardOutputContent]",
            "  ) {",
            f"    try await {name}()",
            "  }",
            "  expectPrinted(",
            f"    result, [{expected}],",
            f'    sample: "{block.document}", line: {block.fence_line})',
            "}",
        ]
    )


def documents(root: Path) -> list[Path]:
    found: list[Path] = []
    for pattern in DOCUMENT_GLOBS:
        found.extend(sorted(p for p in root.glob(pattern) if p.is_file()))
    return found


def read_blocks(root: Path, path: Path, errors: list[str]) -> list[Block]:
    """Returns the `swift` and `swift file` blocks of one document, in order."""
    document = path.relative_to(root).as_posix()
    blocks: list[Block] = []
    lines = path.read_text(encoding="utf-8").split("\n")
    index = 0
    while index < len(lines):
        opening = FENCE_OPEN.match(lines[index])
        if not opening:
            index += 1
            continue
        fence, indent, info = opening["fence"], len(opening["indent"]), opening["info"]
        fence_line = index + 1
        if fence[0] == "`" and "`" in info:
            index += 1  # not a fence: an inline code span at the start of a line
            continue
        closing = re.compile(r"^ *" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        body: list[str] = []
        index += 1
        while index < len(lines) and not closing.match(lines[index]):
            body.append(lines[index])
            index += 1
        if index == len(lines):
            errors.append(f"{document}:{fence_line}: error: this code fence is never closed")
            break
        index += 1  # the closing fence
        words = info.split()
        if not words or words[0].lower() != "swift":
            continue  # sh, text, an info-less fence: not ours
        option = " ".join(words[1:])
        if option not in KINDS:
            errors.append(
                f"{document}:{fence_line}: error: unknown Swift fence '{fence}{info}'; use "
                f"'{fence}swift' (compiled as a function body), '{fence}swift file' (compiled "
                f"at file scope) or '{fence}swift ignore' (not compiled)"
            )
            continue
        if KINDS[option] == "ignore":
            continue
        code = [strip_indent(line, indent) for line in body]
        if not any(line.strip() for line in code):
            errors.append(f"{document}:{fence_line}: error: this Swift block is empty")
            continue
        blocks.append(Block(KINDS[option], document, fence_line, code))
    return blocks


def strip_indent(line: str, indent: int) -> str:
    """Removes up to `indent` leading spaces, as CommonMark does inside an indented fence."""
    removable = len(line) - len(line.lstrip(" "))
    return line[min(indent, removable) :]


def identifier(document: str) -> str:
    """`Docs/Migration/FromCombine.md` -> `Docs_Migration_FromCombine`."""
    return re.sub(r"\W", "_", document.removesuffix(".md"))


def make_file_private(line: str) -> str:
    """Makes a top-level declaration `fileprivate` unless it has an access level already, adds a
    conformance (`extension X: P`, which can't be `fileprivate`) or is an XCTestCase subclass
    (XCTest's test discovery on Linux needs it internal)."""
    match = TOP_LEVEL_DECL.match(line)
    if not match or ACCESS.search(match["attributes"] + match["rest"].split("{")[0]):
        return line
    if match["keyword"] == "extension":
        header = re.split(r"\{|\bwhere\b", match["rest"])[0]
        if ":" in header:
            return line
    if match["keyword"] == "class" and "XCTestCase" in match["rest"]:
        return line
    return f"{match['attributes']}fileprivate {match['rest']}"


SAMPLES_IMPORT = re.compile(r"^<!-- samples import: (?P<modules>[\w ]+) -->$", re.M)


def document_imports(document: str) -> set[str]:
    """The modules a document's samples need beyond the defaults, from its
    `<!-- samples import: StreamSnail StreamCombineExt -->` line (a guide to another library's
    module, whose plain samples don't repeat the import)."""
    text = (ROOT / document).read_text(encoding="utf-8")
    found = SAMPLES_IMPORT.search(text)
    return set(found["modules"].split()) if found else set()


def hoist_imports(block: Block, imports: set[str]) -> list[str]:
    """Moves `import X` lines out of the block (their lines become comments)."""
    code = []
    for line in block.lines:
        found = IMPORT_LINE.match(line)
        if found:
            imports.add(found["module"])
            code.append(f"// {line.strip()}  (moved to the top of this file)")
        else:
            code.append(line)
    return code


def check_function_block(block: Block, code: list[str], errors: list[str]) -> None:
    for offset, line in enumerate(code):
        found = FILE_SCOPE_ONLY.match(line)
        if found:
            what = found["what"]
            errors.append(
                f"{block.document}:{block.first_line + offset}: error: `{what}` is only valid at "
                f"file scope, and a plain 'swift' block is compiled as a function body; mark "
                f"the block '```swift file'"
            )
            return


def located(block: Block, code: list[str]) -> list[str]:
    """`code` between `#sourceLocation` directives naming the Markdown line.

    A DocC landing page shares its file name with a guide (`SignalOperators.md`), and two paths
    with one file name would give the same `#fileID`, which Swift rejects; so DocC pages keep
    only the comment above each sample.
    """
    if ".docc/" in block.document:
        return code
    return [
        f'#sourceLocation(file: "{block.document}", line: {block.first_line})',
        *code,
        "#sourceLocation()",
    ]


def function(name: str, block: Block, code: list[str]) -> str:
    return "\n".join(
        [
            f"// {block.document}:{block.fence_line}",
            f"func {name}() async throws {{",
            *located(block, code),
            "}",
        ]
    )


def file_scope(block: Block, code: list[str]) -> str:
    return "\n".join(
        [
            f"// {block.document}:{block.fence_line} (file scope)",
            *located(block, [make_file_private(line) for line in code]),
        ]
    )


def swift_file(header: list[str], imports: set[str], parts: list[str]) -> str:
    lines = ["// swift-format-ignore-file", *header, "", *(f"import {m}" for m in sorted(imports))]
    if "Foundation" in imports:
        # URLSession lives in FoundationNetworking on Linux.
        lines += ["#if canImport(FoundationNetworking)", "  import FoundationNetworking", "#endif"]
    return "\n".join(lines) + "\n\n" + "\n\n".join(parts) + "\n"


def generate(document: str, blocks: list[Block], errors: list[str]) -> dict[str, str]:
    """Returns the files generated from one document, by name: one with every block, and one per
    plain block that shows imports, compiled with only those imports."""
    name = identifier(document)
    imports = set(DEFAULT_IMPORTS) | document_imports(document)
    parts: list[str] = []
    outputs: list[str] = []
    files: dict[str, str] = {}
    for block in blocks:
        shown: set[str] = set()
        code = hoist_imports(block, shown)
        imports |= shown
        if block.kind == "file":
            parts.append(file_scope(block, code))
            continue
        check_function_block(block, code, errors)
        parts.append(function(f"sample_{name}_line{block.fence_line}", block, code))
        printed = printed_lines(block, code, errors)
        if printed is not None:
            outputs.append(output_test(f"sample_{name}_line{block.fence_line}", block, printed))
        if shown:
            number = len(files) + 1
            files[f"{name}_imports{number}.swift"] = swift_file(
                [
                    f"// Generated by `python3 .ci/samples.py` from {document}:{block.fence_line}.",
                    "// Don't edit this file: edit the Markdown and run the script again. This",
                    "// sample shows its imports, so it is compiled here again with only those, to",
                    "// check that they are all a reader needs.",
                ],
                shown,
                [function(f"sample_{name}_line{block.fence_line}_imports", block, code)],
            )
    files[f"{name}.swift"] = swift_file(
        [
            f"// Generated by `python3 .ci/samples.py` from {document}. Don't edit this file:",
            "// edit the Markdown and run the script again. Each plain ```swift block is the body",
            "// of a function below, each ```swift file block is copied at file scope, and",
            "// `#sourceLocation` makes compiler messages name the Markdown line.",
        ],
        imports,
        parts + outputs,
    )
    return files


def generate_all(
    root: Path, errors: list[str], only: set[str]
) -> tuple[dict[str, str], int, int]:
    """Returns the generated files by name, the number of samples and that of documents."""
    files: dict[str, str] = {}
    count = 0
    with_samples = 0
    paths = documents(root)
    unknown = only - {path.relative_to(root).as_posix() for path in paths}
    for document in sorted(unknown):
        errors.append(f"{document}: error: not one of the documents ({', '.join(DOCUMENT_GLOBS)})")
    owners: dict[str, str] = {}
    for path in paths:
        document = path.relative_to(root).as_posix()
        if identifier(document) in owners:
            errors.append(
                f"{document}: error: its generated name {identifier(document)} is also that of "
                f"{owners[identifier(document)]}; rename one of them"
            )
        owners[identifier(document)] = document
        if only and document not in only:
            continue
        blocks = read_blocks(root, path, errors)
        if blocks:
            files.update(generate(document, blocks, errors))
            count += len(blocks)
            with_samples += 1
    return files, count, with_samples


def existing(directory: Path) -> dict[str, str]:
    if not directory.is_dir():
        return {}
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(directory.glob("*.swift"))}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="regenerate into a temporary directory and fail if the committed files differ",
    )
    parser.add_argument(
        "documents",
        nargs="*",
        metavar="DOCUMENT",
        help="regenerate only these documents' files (leaves the others alone)",
    )
    arguments = parser.parse_args()
    only = set()
    for document in arguments.documents:
        try:
            only.add(Path(document).resolve().relative_to(ROOT).as_posix())
        except ValueError:
            parser.error(f"{document} is not in the repository ({ROOT})")
    if only and arguments.check:
        parser.error("--check always checks every document")

    errors: list[str] = []
    files, count, with_samples = generate_all(ROOT, errors, only)
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        print(f"samples.py: {len(errors)} error(s) in the docs; nothing written", file=sys.stderr)
        return 1

    output = ROOT / OUTPUT_DIR
    if arguments.check:
        with tempfile.TemporaryDirectory() as temporary:
            fresh = Path(temporary)
            for name, text in files.items():
                (fresh / name).write_text(text, encoding="utf-8")
            return compare(existing(output), existing(fresh))

    output.mkdir(parents=True, exist_ok=True)
    considered = set(existing(output))
    if only:
        names = {identifier(d) for d in only}
        considered = {n for n in considered if re.sub(r"(_imports\d+)?\.swift$", "", n) in names}
    for stale in considered & set(existing(output)) - set(files):
        (output / stale).unlink()
        print(f"removed {OUTPUT_DIR / stale}")
    for name, text in files.items():
        target = output / name
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            print(f"wrote {OUTPUT_DIR / name}")
    print(f"{count} samples from {with_samples} documents in {len(files)} files in {OUTPUT_DIR}")
    return 0


def compare(committed: dict[str, str], fresh: dict[str, str]) -> int:
    stale = False
    for name in sorted(set(committed) | set(fresh)):
        old, new = committed.get(name), fresh.get(name)
        if old == new:
            continue
        stale = True
        path = (OUTPUT_DIR / name).as_posix()
        if old is None:
            print(f"{path}: missing (a document has new samples)", file=sys.stderr)
        elif new is None:
            print(f"{path}: left over (no sample generates it now)", file=sys.stderr)
        else:
            diff = list(
                difflib.unified_diff(
                    old.splitlines(),
                    new.splitlines(),
                    f"{path} (in the tree)",
                    f"{path} (from the docs)",
                    lineterm="",
                )
            )
            print("\n".join(diff[:60]), file=sys.stderr)
            if len(diff) > 60:
                print(f"... ({len(diff) - 60} more diff lines)", file=sys.stderr)
    if stale:
        print(
            "samples.py --check: the generated samples are stale. Run `python3 .ci/samples.py` "
            f"and commit {OUTPUT_DIR.as_posix()}/.",
            file=sys.stderr,
        )
        return 1
    print(f"samples.py --check: {OUTPUT_DIR.as_posix()} is up to date ({len(fresh)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
