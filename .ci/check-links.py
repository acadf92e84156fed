#!/usr/bin/env python3
"""Checks the relative links of the Markdown docs, so that a moved or renamed file fails CI.

Reads README.md, CHANGELOG.md, CONTRIBUTING.md, Benchmarks/README.md, Differential/*.md,
Docs/**/*.md and the DocC catalogs' pages (Sources/*/*.docc/**/*.md). For every inline link or image, `[text](target)` or
`![alt](target)`, outside code fences and code spans:

- a web or mail address (`https:`, `http:`, `mailto:`) is not checked (CI has no network);
- a relative path must name a file or folder that exists, relative to the document;
- an anchor (`#heading`, alone or after a path to a Markdown file) must be the slug of a heading
  of that file, as GitHub makes it: lower case, punctuation other than `-` and `_` removed,
  spaces turned into `-`, and `-1`, `-2`, … added to repeated headings.

DocC's own links (``Symbol`` and <doc:Article>) are checked by `docc convert
--warnings-as-errors` in .ci/check-docs.py.

Usage: python3 .ci/check-links.py   (exit 1 and one line per broken link when any is broken)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT_GLOBS = [
    "README.md",
    "CHANGELOG.md",
    "CONTRIBUTING.md",
    "Benchmarks/README.md",
    "Differential/*.md",
    "Docs/**/*.md",
    "Sources/*/*.docc/**/*.md",
]
FENCE = re.compile(r"^ *(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+).*?\1")
# `[text](target "title")` or `![alt](target)`; the text may hold code spans and brackets one deep.
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?(?P<target>[^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(?P<text>.*?)\s*#*\s*$")
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)", re.IGNORECASE)


def documents() -> list[Path]:
    found: set[Path] = set()
    for pattern in DOCUMENT_GLOBS:
        found.update(p for p in ROOT.glob(pattern) if p.is_file())
    return sorted(found)


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """The document's lines outside code fences, numbered from 1, with code spans blanked."""
    lines: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        opening = FENCE.match(line)
        if opening and opening.group(1)[0] == "`" and "`" in line[opening.end() :]:
            opening = None  # a code span at the start of a line, not a fence
        if fence is None and opening:
            fence = opening.group(1)
            continue
        if fence is not None:
            if line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
                fence = None
            continue
        lines.append((number, CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)))
    return lines


def slug(heading: str) -> str:
    text = re.sub(r"`([^`]*)`", r"\1", heading)  # code spans keep their text
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links keep their text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path, cache: dict[Path, set[str]]) -> set[str]:
    if path not in cache:
        seen: dict[str, int] = {}
        found: set[str] = set()
        for _, line in prose_lines(path):
            heading = HEADING.match(line)
            if not heading:
                continue
            base = slug(heading["text"])
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        # Explicit anchors: <a name="x"></a> or <a id="x"></a>.
        text = path.read_text(encoding="utf-8")
        found.update(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", text))
        cache[path] = found
    return cache[path]


def check(path: Path, cache: dict[Path, set[str]]) -> list[str]:
    errors: list[str] = []
    document = path.relative_to(ROOT).as_posix()
    for number, line in prose_lines(path):
        for link in LINK.finditer(line):
            target = link["target"]
            if EXTERNAL.match(target):
                continue
            file_part, _, anchor = target.partition("#")
            file_part = unquote(file_part)
            destination = (path.parent / file_part).resolve() if file_part else path
            where = f"{document}:{number}: "
            if not destination.exists():
                errors.append(f"{where}broken link '{target}': {file_part} does not exist")
                continue
            try:
                destination.relative_to(ROOT)
            except ValueError:
                errors.append(f"{where}link '{target}' leaves the repository")
                continue
            if anchor:
                if destination.is_dir() or destination.suffix != ".md":
                    errors.append(f"{where}link '{target}' has an anchor but no Markdown file")
                elif unquote(anchor) not in anchors(destination, cache):
                    name = destination.relative_to(ROOT).as_posix()
                    errors.append(f"{where}broken anchor '{target}': {name} has no heading '#{anchor}'")
    return errors


def main() -> int:
    cache: dict[Path, set[str]] = {}
    paths = documents()
    errors = [error for path in paths for error in check(path, cache)]
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        print(f"check-links.py: {len(errors)} broken link(s)", file=sys.stderr)
        return 1
    print(f"check-links.py: every relative link and anchor in {len(paths)} documents resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
