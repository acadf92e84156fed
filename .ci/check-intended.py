#!/usr/bin/env python3
"""Checks that the line references into the migration guides hold, in Differential/INTENDED.md
and in Conformance/EXCLUDED.md.

Every intended difference ends with the line of Docs/Migration/FromCombine.md (or
FromOpenCombine.md) that tells users. A reference is written `line N, "quoted text"` or
`"quoted text" (line N)`; a quote may leave words out with `…`. The check fails when the quoted
text does not start on line N of the guide named last before it. With `--fix`, it rewrites N to
the line where the quote starts, when the quote is found exactly once; edits that move lines in
a guide are then one command away from being right again.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LISTS = [ROOT / "Differential" / "INTENDED.md", ROOT / "Conformance" / "EXCLUDED.md"]
GUIDES = {
    "FromCombine.md": ROOT / "Docs" / "Migration" / "FromCombine.md",
    "FromOpenCombine.md": ROOT / "Docs" / "Migration" / "FromOpenCombine.md",
}

QUOTE = r'"([^"]+)"'
AFTER = re.compile(r"line\s+(\d+),\s*" + QUOTE)  # line N, "quote"
BEFORE = re.compile(QUOTE + r"\s*\(line\s+(\d+)\)")  # "quote" (line N)
GUIDE_NAME = re.compile(r"(FromCombine\.md|FromOpenCombine\.md)")
BARE = re.compile(r"line\s+(\d+)")


def squash(text):
    """Whitespace runs become one space; bold markers go (quotes leave them out)."""
    return " ".join(text.replace("**", "").split())


def starts_at(lines, index, quote):
    """Whether `quote` (fragments split at …) starts on lines[index], read with what follows."""
    window = squash(" ".join(lines[index : index + 8]))
    fragments = [squash(f) for f in quote.split("…") if f.strip()]
    if not fragments:
        return False
    first = fragments[0]
    head = squash(lines[index])
    # The first fragment starts on this line: its opening words are on it.
    opening = " ".join(first.split()[:4])
    if opening not in head:
        return False
    position = window.find(first)
    if position < 0:
        return False
    position += len(first)
    for fragment in fragments[1:]:
        found = window.find(fragment, position)
        if found < 0:
            return False
        position = found + len(fragment)
    return True


def main():
    fix = "--fix" in sys.argv[1:]
    guides = {name: path.read_text().splitlines() for name, path in GUIDES.items() if path.exists()}
    problems = []
    for path in LISTS:
        problems += check(path, guides, fix)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-intended: {len(problems)} reference(s) to fix")
        return 1
    print("check-intended: every line reference in INTENDED.md and EXCLUDED.md holds")
    return 0


def check(path, guides, fix):
    """The problems of `path`'s references; with `fix`, rewrites those found exactly once."""
    text = path.read_text()
    name = path.name
    problems = []
    replacements = []  # (start, end, new text)

    covered = []
    for pattern, line_group, quote_group in ((AFTER, 1, 2), (BEFORE, 2, 1)):
        for match in pattern.finditer(text):
            covered.append((match.start(), match.end()))
            names = GUIDE_NAME.findall(text[: match.start()])
            guide = names[-1] if names else "FromCombine.md"
            lines = guides.get(guide)
            number = int(match.group(line_group))
            quote = match.group(quote_group)
            where = text.count("\n", 0, match.start()) + 1
            if lines is None:
                problems.append(f"{name}:{where}: no guide {guide}")
                continue
            if 1 <= number <= len(lines) and starts_at(lines, number - 1, quote):
                continue
            hits = [i + 1 for i in range(len(lines)) if starts_at(lines, i, quote)]
            if fix and len(hits) == 1:
                span = match.span(line_group)
                replacements.append((span[0], span[1], str(hits[0])))
                continue
            found = f"found on line(s) {hits}" if hits else "not found"
            problems.append(f'{name}:{where}: {guide} line {number} does not start "{quote}" ({found})')

    for match in BARE.finditer(text):
        if not any(start <= match.start() < end for start, end in covered):
            where = text.count("\n", 0, match.start()) + 1
            problems.append(f"{name}:{where}: 'line {match.group(1)}' has no quoted text to check")

    if replacements:
        for start, end, new in sorted(replacements, reverse=True):
            text = text[:start] + new + text[end:]
        path.write_text(text)
        print(f"check-intended: rewrote {len(replacements)} line reference(s) in {name}")
    return problems


if __name__ == "__main__":
    sys.exit(main())
