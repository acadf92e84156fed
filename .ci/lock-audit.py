#!/usr/bin/env python3
"""Lists `withLock` bodies in Sources/ that may release something whose deinit runs user code.

The `next` closure of `SerialDrain.run(lock) { next } perform: { ... }` runs under the lock too,
so it is checked as a `withLock` body. (`DeliveryGate.pass` holds a lock across a subscriber's
call by design; its body is not a `withLock` body.)

STYLE.md section 4: inside `withLock`, only read and write state; a closure, subscriber, value or
subscription that a transition drops is returned out of the lock and dropped after it, because a
deinit run under the (non-recursive) lock can re-enter it and trap. This script finds the
statements inside `withLock { ... }` bodies that can drop such a thing:

  nil       `x = nil` (also inside a `defer`) where `x` is not of a plain type (Bool, Int, ...)
  empty     `x = []` / `x = [:]`: the elements go
  remove    `removeAll`, `removeFirst(n)`, `removeSubrange`, ... whose removed elements go
            (not when the statement returns or stores what it removes)
  discard   `_ = expr`: a value made under the lock and dropped there
  replace   `x = expr` where `x` is a stored property of a type that can carry a closure,
            subscriber, subscription or value (anything but plain types and payload-free enums)
            and the body never reads `x` (so the old value can't have been moved out)

It is a text heuristic (no type checker): each finding needs a look. A finding that is safe gets
a line in .ci/lock-audit-allow.txt (`path | rule | statement  # why`); the script exits 1 while
any finding is neither fixed nor allowed. Output is sorted, so runs are deterministic.

Usage: python3 .ci/lock-audit.py [--all]   (--all also prints allowed findings)
"""

import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
ALLOW_FILE = os.path.join(ROOT, ".ci", "lock-audit-allow.txt")

PLAIN_TYPES = {
    "Bool", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32",
    "UInt64", "Double", "Float", "String", "Character", "Subscribers.Demand", "Demand",
    "ObjectIdentifier", "Duration", "ContinuousClock.Instant", "ThreadID",
}
PLAIN_SUFFIXES = ("Time", "Stride", "SchedulerTimeType", "Instant")


def blank(text):
    """Replaces comments and string literals with spaces, keeping offsets and newlines."""
    out = list(text)
    i, n = 0, len(text)

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            wipe(i, j)
            i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j + 3
            wipe(i + 1, j - 1)
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            wipe(i + 1, min(j, n))
            i = j + 1
        else:
            i += 1
    return "".join(out)


def matching(text, start, open_char, close_char):
    """Index of the bracket closing the one at `start`."""
    depth = 0
    for k in range(start, len(text)):
        c = text[k]
        if c == open_char:
            depth += 1
        elif c == close_char:
            depth -= 1
            if depth == 0:
                return k
    return len(text) - 1


def enum_kinds(code):
    """Maps each enum declared in the file to whether any case carries a payload."""
    kinds = {}
    for m in re.finditer(r"\benum\s+(\w+)[^{]*\{", code):
        body = code[m.end(): matching(code, m.end() - 1, "{", "}")]
        # only the enum's own level: drop nested braces
        flat = re.sub(r"\{[^{}]*\}", "", body)
        kinds[m.group(1)] = bool(re.search(r"\bcase\s+[^\n]*\w\s*\(", flat))
    return kinds


def function_bodies(code):
    """(start, end) offsets of every func, init, deinit and accessor body."""
    spans = []
    for m in re.finditer(r"\b(?:func\s+\w+|init|deinit|get|set|didSet|willSet)\b[^{};]*?\{",
                         code):
        spans.append((m.end(), matching(code, m.end() - 1, "{", "}")))
    return spans


def property_types(code, enums):
    """Maps each stored `var` (not a local of a function) to its declared or evident types."""
    types = {}
    bodies = function_bodies(code)
    for m in re.finditer(r"\bvar\s+(\w+)\s*(?::\s*([^=\n{]+?))?\s*(?:=\s*([^\n]+))?$", code,
                         re.M):
        name, annotated, initial = m.group(1), m.group(2), m.group(3)
        if any(a <= m.start() < b for a, b in bodies):
            continue
        if annotated:
            kind = annotated.strip()
        elif initial:
            initial = initial.strip()
            if initial in ("true", "false"):
                kind = "Bool"
            elif re.fullmatch(r"-?\d+", initial):
                kind = "Int"
            elif initial.startswith("Subscribers.Demand"):
                kind = "Subscribers.Demand"
            else:
                head = re.match(r"(\w+)\.", initial)
                kind = head.group(1) if head and head.group(1) in enums else "?"
        else:
            kind = "?"
        types.setdefault(name, set()).add(kind)
    return types


def is_plain(kind, enums):
    kind = kind.strip().rstrip("?").strip()
    if kind in PLAIN_TYPES or kind.endswith(PLAIN_SUFFIXES):
        return True
    if kind in enums:
        return not enums[kind]
    return False


def lock_bodies(code):
    """Yields (start, end) offsets of each `withLock` closure body."""
    for m in re.finditer(r"\bwithLock\b", code):
        k = m.end()
        while k < len(code) and code[k] in " \t\n":
            k += 1
        if k < len(code) and code[k] == "(":
            close = matching(code, k, "(", ")")
            brace = code.find("{", k, close)
            if brace < 0:
                continue
        elif k < len(code) and code[k] == "{":
            brace = k
        else:
            continue
        yield brace + 1, matching(code, brace, "{", "}")
    # `SerialDrain.run(lock) { next } perform: { ... }` calls its first closure under the lock.
    for m in re.finditer(r"\bSerialDrain\.run\s*\(", code):
        close = matching(code, m.end() - 1, "(", ")")
        k = close + 1
        while k < len(code) and code[k] in " \t\n":
            k += 1
        if k < len(code) and code[k] == "{":
            yield k + 1, matching(code, k, "{", "}")


ASSIGN = re.compile(r"(?<![\w.$])((?:self\.)?[\w$]+(?:\.\w+)*)\s*=(?!=)\s*([^\n;]*)")
REMOVE = re.compile(r"\.(removeAll|removeSubrange|removeFirst\(\s*\w|removeLast\(\s*\w|"
                    r"removeValue|remove\(at:)")


def read_before(body, at, name):
    """Whether `name` is read (so its value may have been moved out) before the store at `at`.

    A store inside `defer { }` runs at the end of its scope, so reads after the `defer` up to the
    end of that scope (or the next `case` of a switch) count too.
    """
    pattern = re.compile(r"(?<![\w$])" + re.escape(name) + r"\b(?!\s*=(?!=))")
    defer = None
    for m in re.finditer(r"\bdefer\s*\{", body[:at]):
        if matching(body, m.end() - 1, "{", "}") > at:
            defer = m
    if defer is None:
        return bool(pattern.search(body, 0, at))
    close = matching(body, defer.end() - 1, "{", "}")
    depth, k = 0, close + 1
    while k < len(body):
        c = body[k]
        if c in "{(":
            depth += 1
        elif c in "})":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and re.match(r"\n\s*(case\b|default\s*:)", body[k:]):
            break
        k += 1
    return bool(pattern.search(body, 0, defer.start()) or pattern.search(body, close + 1, k))


def findings_in(path, text):
    code = blank(text)
    enums = enum_kinds(code)
    props = property_types(code, enums)
    lines = text.split("\n")
    line_starts = [0]
    for line in lines:
        line_starts.append(line_starts[-1] + len(line) + 1)

    def line_of(offset):
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo

    found = set()
    for start, end in lock_bodies(code):
        body = code[start:end]
        # parameters of the closure (`state in`, `{ () -> T in`) are the locked state itself
        header = re.match(r"\s*(?:\(([^()]*)\)|([\w\s,]+))?\s*(?:->[^{}]*?)?\bin\b", body)
        params = set()
        if header:
            params = set(re.findall(r"\w+", (header.group(1) or "") + (header.group(2) or "")))
            params -= {"inout"}

        def add(offset, rule):
            number = line_of(start + offset)
            found.add((number + 1, rule, lines[number].strip()))

        declared = set(re.findall(r"\b(?:let|var)\s+(\w+)", body))
        declared |= set(re.findall(r"\b(?:let|var)\s*\(([^)]*)\)", body))
        for m in ASSIGN.finditer(body):
            target, value = m.group(1), m.group(2).strip()
            before = body[max(0, m.start() - 12): m.start()]
            if re.search(r"\b(let|var|case|guard|if|while)\s+[^\n]*$", before) or \
                    re.search(r"\b(let|var)\s*$", before):
                continue  # a declaration or pattern, not a store
            line_text = body[body.rfind("\n", 0, m.start()) + 1: m.start()]
            if re.search(r"\b(let|var|case)\b", line_text):
                continue
            root = target.split(".")[0]
            if root == "self":
                root = target.split(".")[1]
            name = target.split(".")[-1]
            if root == "_" or (root in declared and root not in params):
                continue  # a discard (its own rule) or a local of the body
            kinds = props.get(name, {"?"}) if root not in params or target != root else {"?"}
            plain = all(is_plain(k, enums) for k in kinds) and kinds != {"?"}
            if value == "nil":
                if not plain and not read_before(body, m.start(), name):
                    add(m.start(), "nil")
            elif value in ("[]", "[:]"):
                add(m.start(), "empty")
            elif not plain and root not in params and name in props:
                reads = [r for r in re.finditer(r"(?<![\w$])" + re.escape(name) + r"\b", body)
                         if r.start() != m.start() + target.rfind(name)]
                if not reads:
                    add(m.start(), "replace")
        for m in REMOVE.finditer(body):
            line_text = body[body.rfind("\n", 0, m.start()) + 1: m.start()]
            if re.search(r"\breturn\b|(?<![=!<>])=(?!=)", line_text):
                continue  # the removed element is returned or stored: it outlives the lock
            add(m.start(), "remove")
        for m in re.finditer(r"(?<![\w.])_\s*=(?!=)", body):
            add(m.start(), "discard")
    return [(path, line, rule, stmt) for line, rule, stmt in found]


def load_allow():
    allowed = {}
    if not os.path.exists(ALLOW_FILE):
        return allowed
    with open(ALLOW_FILE) as handle:
        for raw in handle:
            entry = raw.split("  #", 1)[0].strip()
            if not entry or entry.startswith("#"):
                continue
            path, rule, stmt = (part.strip() for part in entry.split("|", 2))
            allowed[(path, rule, stmt)] = False
    return allowed


def main():
    show_all = "--all" in sys.argv[1:]
    results = []
    for folder, dirs, files in os.walk(os.path.join(ROOT, "Sources")):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".swift"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as handle:
                    results += findings_in(os.path.relpath(path, ROOT), handle.read())
    allowed = load_allow()
    open_count = 0
    for path, line, rule, stmt in sorted(results):
        key = (path, rule, stmt)
        is_allowed = key in allowed
        if is_allowed:
            allowed[key] = True
        else:
            open_count += 1
        if show_all or not is_allowed:
            mark = "allowed " if is_allowed else ""
            print(f"{path}:{line}: {mark}[{rule}] {stmt}")
    for (path, rule, stmt), used in sorted(allowed.items()):
        if not used:
            print(f"{ALLOW_FILE}: stale entry: {path} | {rule} | {stmt}")
    print(f"{len(results)} finding(s), {open_count} not allowed", file=sys.stderr)
    return 1 if open_count else 0


if __name__ == "__main__":
    sys.exit(main())
