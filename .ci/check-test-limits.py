#!/usr/bin/env python3
"""Checks that every Swift Testing suite in Tests/ has a time limit.

A type (struct, class, enum or actor) in a test file that declares @Test functions directly in
its body must carry `@Suite(.timeLimit(.minutes(N)))`, so that a test that hangs fails the run
instead of stalling it. Extensions with @Test functions count for the type they extend.
Tests/DocSamplesTests/Generated is skipped. Exits 1 and lists the offenders if any.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TESTS = ROOT / "Tests"
SKIPPED = TESTS / "DocSamplesTests" / "Generated"

DECLARATION = re.compile(
    r"^[ \t]*((?:@[\w.]+(?:\([^\n]*\))?[ \t]+)*)"
    r"(?:(?:public|internal|private|fileprivate|final)[ \t]+)*"
    r"(struct|class|enum|actor|extension)[ \t]+([\w.]+)",
    re.MULTILINE,
)


def strip(source):
    """Blanks comments and string literals, keeping offsets and line breaks."""
    out = []
    i, n = 0, len(source)
    while i < n:
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", source[i:j]))
            i = j
        elif source.startswith('"""', i):
            j = source.find('"""', i + 3)
            j = n if j < 0 else j + 3
            out.append(re.sub(r"[^\n]", " ", source[i:j]))
            i = j
        elif source[i] == '"':
            j = i + 1
            while j < n and source[j] not in '"\n':
                j += 2 if source[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(" " * (j - i))
            i = j
        else:
            out.append(source[i])
            i += 1
    return "".join(out)


def body_range(text, start):
    """The offsets of the body's braces for the declaration that starts at `start`."""
    open_brace = text.find("{", start)
    if open_brace < 0:
        return None
    depth = 0
    for index in range(open_brace, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return open_brace, index
    return open_brace, len(text)


def main():
    # name -> (whether a declaration has a time limit, where the @Test functions are)
    limited = {}
    tested = {}
    for path in sorted(TESTS.rglob("*.swift")):
        if SKIPPED in path.parents:
            continue
        text = strip(path.read_text(encoding="utf-8"))
        declarations = []
        for match in DECLARATION.finditer(text):
            span = body_range(text, match.end())
            if span is None:
                continue
            # Attributes may also sit on the lines above the declaration.
            line_start = match.start()
            above = text[:line_start].rstrip("\n").rsplit("\n", 3)[-3:]
            attributes = match.group(1) + " ".join(
                line for line in above if line.strip().startswith("@")
            )
            declarations.append((match.group(2), match.group(3), span, attributes))
        for kind, name, (open_brace, close_brace), attributes in declarations:
            inner = [
                span for _, _, span, _ in declarations
                if open_brace < span[0] and span[1] <= close_brace
            ]
            body = list(text[open_brace + 1 : close_brace])
            for start, end in inner:
                for index in range(start - open_brace - 1, end - open_brace):
                    body[index] = " "
            body = "".join(body)
            key = name.split(".")[-1]
            if kind != "extension":
                if ".timeLimit(" in attributes and "@Suite" in attributes:
                    limited[key] = True
                else:
                    limited.setdefault(key, False)
            if re.search(r"@Test\b", body):
                line = text[: open_brace].count("\n") + 1
                tested.setdefault(key, []).append(f"{path.relative_to(ROOT)}:{line}")
    missing = sorted(
        (places[0], name) for name, places in tested.items() if not limited.get(name, False)
    )
    for place, name in missing:
        print(f"{place}: {name} has @Test functions but no @Suite(.timeLimit(...))")
    if missing:
        print(f"{len(missing)} suite(s) without a time limit", file=sys.stderr)
        return 1
    print(f"every suite with @Test functions has a time limit ({len(tested)} suites)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
