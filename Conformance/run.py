#!/usr/bin/env python3
"""Runs OpenCombine's test suite (prepared by prepare.py) against StreamKit.

    python3 run.py [--build] [--jobs N] [--timeout S] [--only CLASS] [--results FILE]

Each test class runs in a process of its own, so a crash or a hang (a test that prints nothing for
`--timeout` seconds) fails only the test it happened in; the class's other tests run again in a
new process. One line per test:
`pass`, `fail`, `crash` or `hang`, then the test's name, then, for a test listed in EXCLUDED.md
or KNOWN.md, the list it is in.

A test listed in WALLCLOCK.md waits on the wall clock with a race that a loaded machine can lose
under OpenCombine too; it runs up to three times and passes when one run passes (its line then
says how many runs it took).

Exit status 1 when a test fails that neither list names, or when a listed test passes (its entry
goes, so the lists stay exact); 0 otherwise.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLE = os.path.join(HERE, ".build", "debug", "StreamKitConformancePackageTests.xctest")
MODULE = "OpenCombineTests"
RESULT = re.compile(r"^Test Case '(\w+)\.(\w+)' (started|passed|failed)")


def listed(name):
    """The tests a list file names: `Class.test`, the first word of each entry line."""
    tests = {}
    path = os.path.join(HERE, name)
    if not os.path.exists(path):
        return tests
    with open(path) as f:
        for line in f:
            m = re.match(r"^- `(\w+\.\w+)`", line)
            if m:
                tests[m.group(1)] = line.strip()
    return tests


def all_tests():
    out = subprocess.run([BUNDLE, "--list-tests"], capture_output=True, text=True).stdout
    classes = {}
    for line in out.splitlines():
        m = re.match(rf"^{MODULE}\.(\w+)/(\w+)$", line.strip())
        if m:
            classes.setdefault(m.group(1), []).append(m.group(2))
    return classes


def run_tests(spec, timeout):
    """Runs the bundle on `spec`; returns (output lines, hung). A test that prints nothing for
    `timeout` seconds is taken to hang, and the process is killed."""
    proc = subprocess.Popen(
        [BUNDLE, spec], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=HERE,
        text=True, errors="replace",
    )
    lines = []
    done = threading.Event()
    last = [time.monotonic()]

    def read():
        for line in proc.stdout:
            lines.append(line)
            last[0] = time.monotonic()
        done.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    hung = False
    while not done.wait(1):
        if time.monotonic() - last[0] > timeout:
            hung = True
            proc.kill()
            break
    reader.join(5)
    proc.wait()
    return lines, hung


def run_class(cls, tests, timeout, retried=frozenset()):
    """Runs `tests` of `cls` until each has a result; returns {test: result}. A test in
    `retried` that does not pass runs again, alone, up to `ATTEMPTS` times in all."""
    results = run_once(cls, tests, timeout)
    for test in tests:
        attempt = 1
        while results[test] != "pass" and test in retried and attempt < ATTEMPTS:
            attempt += 1
            results[test] = run_once(cls, [test], timeout)[test]
            if results[test] == "pass":
                results[test] = f"pass (run {attempt} of {ATTEMPTS})"
    return results


ATTEMPTS = 3


def run_once(cls, tests, timeout):
    """Runs `tests` of `cls` until each has a result; returns {test: result}."""
    results = {}
    remaining = list(tests)
    while remaining:
        spec = ",".join(f"{MODULE}.{cls}/{t}" for t in remaining)
        output, hung = run_tests(spec, timeout)
        current = None
        for line in output:
            m = RESULT.match(line)
            if not m or m.group(1) != cls:
                continue
            test, event = m.group(2), m.group(3)
            if event == "started":
                current = test
            else:
                results[test] = "pass" if event == "passed" else "fail"
                current = None
        if current is not None and current not in results:
            results[current] = "hang" if hung else "crash"
        remaining = [t for t in remaining if t not in results]
        if remaining and current is None:
            # Nothing was in progress and nothing more ran: the process ended before them.
            for t in remaining:
                results[t] = "hang" if hung else "crash"
            remaining = []
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", action="store_true", help="swift build --build-tests first")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--only", help="one test class")
    parser.add_argument("--results", help="also write the lines to this file")
    parser.add_argument(
        "--prune-known",
        action="store_true",
        help="drop the KNOWN.md entries of tests that pass (a full run only)",
    )
    args = parser.parse_args()
    if args.build:
        subprocess.run(["swift", "build", "--build-tests"], cwd=HERE, check=True)
    classes = all_tests()
    if args.only:
        classes = {args.only: classes[args.only]}
    excluded, known = listed("EXCLUDED.md"), listed("KNOWN.md")
    wallclock = frozenset(listed("WALLCLOCK.md"))
    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {
            pool.submit(run_class, c, t, args.timeout, wallclock): c for c, t in classes.items()
        }
        for future in concurrent.futures.as_completed(futures):
            cls = futures[future]
            for test, result in future.result().items():
                results[f"{cls}.{test}"] = result
    lines, unexpected, stale = [], [], []
    for name in sorted(results):
        result = results[name]
        where = "excluded" if name in excluded else "known" if name in known else ""
        lines.append(f"{result:5} {name}" + (f"  ({where})" if where else ""))
        passed = result.startswith("pass")
        if not passed and not where:
            unexpected.append(name)
        if passed and where:
            stale.append(name)
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.results:
        with open(args.results, "w") as f:
            f.write(text)
    counts = {}
    for r in results.values():
        r = r.split(" ")[0]
        counts[r] = counts.get(r, 0) + 1
    summary = ", ".join(f"{counts[k]} {k}" for k in sorted(counts))
    print(f"\n{len(results)} tests: {summary}; {len(excluded)} excluded, {len(known)} known")
    for name in unexpected:
        print(f"FAILED, in no list: {name}")
    if args.prune_known and not args.only:
        prune_known([name for name in stale if name in known], counts, len(results))
        stale = [name for name in stale if name not in known]
    for name in stale:
        print(f"PASSES, but listed (remove its entry): {name}")
    sys.exit(1 if unexpected or stale else 0)


def prune_known(passing, counts, total):
    """Removes the entries of `passing` from KNOWN.md, and the sections left empty, and
    records the run's counts on its `Latest run` line."""
    path = os.path.join(HERE, "KNOWN.md")
    with open(path) as f:
        lines = f.read().split("\n")
    gone = set(passing)
    kept = [l for l in lines if not (re.match(r"^- `(\w+\.\w+)`", l) and l[3:].split("`")[0] in gone)]
    out = []
    for i, line in enumerate(kept):
        if line.startswith("## "):
            rest = kept[i + 1:]
            following = next((l for l in rest if l.startswith("## ") or l.startswith("- ")), "")
            if not following.startswith("- "):
                continue  # an empty section
        out.append(line)
    text = "\n".join(out)
    text = re.sub(r"\n{3,}", "\n\n", text)
    listed_now = len(re.findall(r"(?m)^- `", text))
    latest = (f"Latest run: {total} tests, {counts.get('pass', 0)} pass, "
              f"{listed_now} listed here.")
    if re.search(r"(?m)^Latest run: .*$", text):
        text = re.sub(r"(?m)^Latest run: .*$", latest, text)
    else:
        text = re.sub(r"(?m)^(Baseline .*)$", "\\1\n" + latest, text, count=1)
    with open(path, "w") as f:
        f.write(text)
    print(f"KNOWN.md: {len(gone)} entries removed, {listed_now} left")


if __name__ == "__main__":
    main()
