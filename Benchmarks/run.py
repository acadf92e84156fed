#!/usr/bin/env python3
"""Benchmarks StreamKit's StreamCore against OpenCombine and prints one Markdown table.

Steps:
  1. `swift build -c release` in this directory (its own package, its own .build/).
  2. `Bench --json`: every workload for both implementations, interleaved (A B, B A, ...),
     several rounds; median-round ns/op, the ratio of the medians, and steady-state heap
     allocations/op.
  3. Unless --no-callgrind: for each (implementation, workload), `Bench --impl I --workload W --n N`
     under `valgrind --tool=callgrind` at two sizes N1 < N2, and
         instructions/op = (I(N2) - I(N1)) / (N2 - N1)
     where I(N) is the "Collected" total, so process start-up and workload setup cancel out.

Usage: python3 Benchmarks/run.py [--no-callgrind] [--only WORKLOAD] [--rounds R] [--jobs J]
Standard library only.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
IMPLS = ("streamkit", "opencombine")
# Callgrind sizes, as fractions of the workload's default N: N1 = N/10, N2 = 2N/10.
N1_FRACTION = (1, 10)
N2_FRACTION = (2, 10)
# Workloads whose two sides run different operators on purpose, so their results differ:
# OpenCombine has no combineLatest, and its side of combineLatest2 runs zip (the yardstick).
DIFFERENT_ON_PURPOSE = {"combineLatest2"}
# Rows whose OpenCombine side runs another operator (it has no merge or combineLatest); the table
# names that operator in the row itself.
UNLIKE = {
    "combineLatest2": "OpenCombine: zip",
    "merge8": "OpenCombine: flatMap",
    "withLatestFrom": "OpenCombine: map reading the other's value",
    "shareReplay10": "OpenCombine: multicast into a CurrentValueSubject",
}
# Workloads measured in time only: callgrind runs one thread at a time, so their instruction
# counts say nothing about contention.
TIME_ONLY = {"contended4x2", "contendedLocks4x2", "contendedCombining4x2"}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=HERE, text=True, **kwargs)


def machine_info() -> list[str]:
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        cpu = platform.processor() or "unknown"
    try:
        nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    except OSError:
        nproc = str(os.cpu_count())
    try:
        out = subprocess.run(["swift", "--version"], capture_output=True, text=True)
        swift = ((out.stdout or "") + (out.stderr or "")).strip().splitlines()[0]
    except (OSError, IndexError):
        swift = "unknown"
    return [f"nproc: {nproc}", f"CPU: {cpu}", f"swift: {swift}"]


def build() -> str:
    log("building (swift build -c release) ...")
    result = run(["swift", "build", "-c", "release"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        sys.stdout.write(result.stdout)
        sys.exit(f"run.py: build failed (exit {result.returncode})")
    bin_path = run(["swift", "build", "-c", "release", "--show-bin-path"],
                   capture_output=True, check=True).stdout.strip()
    return os.path.join(bin_path, "Bench")


def list_workloads(bench: str) -> list[tuple[str, int, str]]:
    out = run([bench, "--list"], capture_output=True, check=True).stdout
    workloads = []
    for line in out.splitlines():
        name, n, unit = line.split(" ", 2)
        workloads.append((name, int(n), unit))
    return workloads


def measure_times(bench: str, only: str | None, rounds: int) -> dict[tuple[str, str], dict]:
    cmd = [bench, "--json", "--rounds", str(rounds)]
    if only:
        cmd += ["--only", only]
    log(f"timing: {' '.join(os.path.basename(c) if i == 0 else c for i, c in enumerate(cmd))} ...")
    check = run([bench, "--check-malloc-counter"], capture_output=True)
    log("  " + check.stdout.strip())
    result = run(cmd, capture_output=True)
    if result.returncode != 0:
        sys.stdout.write(result.stdout + result.stderr)
        sys.exit(f"run.py: Bench failed (exit {result.returncode})")
    samples = {}
    for line in result.stdout.splitlines():
        if line.startswith("{"):
            sample = json.loads(line)
            samples[(sample["impl"], sample["workload"])] = sample
    return samples


def callgrind_binary(bench: str, tmpdir: str) -> str:
    """A copy of Bench without debug info.

    Valgrind 3.19 (Debian 12) cannot read the DWARF 5 that Swift 6's toolchain emits and gives up;
    dropping the debug sections changes no instruction, so the counts are the same.
    """
    stripped = os.path.join(tmpdir, "Bench")
    objcopy = shutil.which("objcopy")
    if objcopy and subprocess.run([objcopy, "--strip-debug", bench, stripped]).returncode == 0:
        return stripped
    shutil.copy2(bench, stripped)
    return stripped


def collected_instructions(binary: str, impl: str, workload: str, n: int) -> int:
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
           binary, "--impl", impl, "--workload", workload, "--n", str(n)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    match = re.search(r"Collected\s*:\s*(\d+)", result.stderr)
    if result.returncode != 0 or not match:
        raise RuntimeError(f"callgrind failed for {impl} {workload} n={n} (exit {result.returncode}):\n"
                           + result.stderr[-2000:])
    return int(match.group(1))


def measure_instructions(bench: str, workloads: list[tuple[str, int, str]], jobs: int) -> dict:
    """(impl, workload) -> instructions/op, or None where callgrind failed."""
    with tempfile.TemporaryDirectory(prefix="streamkit-bench-") as tmpdir:
        binary = callgrind_binary(bench, tmpdir)
        tasks = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            for name, default_n, _ in workloads:
                if name in TIME_ONLY:
                    continue
                n1 = max(1, default_n * N1_FRACTION[0] // N1_FRACTION[1])
                n2 = max(n1 + 1, default_n * N2_FRACTION[0] // N2_FRACTION[1])
                for impl in IMPLS:
                    for n in (n1, n2):
                        tasks[(impl, name, n)] = pool.submit(collected_instructions, binary, impl, name, n)
            log(f"callgrind: {len(tasks)} runs, {jobs} at a time ...")
            counts = {}
            for key, future in tasks.items():
                try:
                    counts[key] = future.result()
                except RuntimeError as error:
                    log(str(error))
                    counts[key] = None
    result = {}
    for name, default_n, _ in workloads:
        if name in TIME_ONLY:
            continue
        for impl in IMPLS:
            (n1, c1), (n2, c2) = sorted((n, c) for (i, w, n), c in counts.items() if i == impl and w == name)
            result[(impl, name)] = None if c1 is None or c2 is None else (c2 - c1) / (n2 - n1)
    return result


def fmt(value, digits: int) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.{digits}f}"


def ratio(a, b) -> str:
    if a is None or b is None or b == 0:
        return "n/a"
    return f"{a / b:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description="StreamKit vs OpenCombine benchmarks")
    parser.add_argument("--no-callgrind", action="store_true", help="skip the instruction counts")
    parser.add_argument("--only", metavar="WORKLOAD", help="run just this workload")
    parser.add_argument("--rounds", type=int, default=7, help="timing rounds (the median is reported)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="callgrind runs at a time (default: min(2, cores))")
    args = parser.parse_args()

    bench = build()
    workloads = list_workloads(bench)
    if args.only:
        workloads = [w for w in workloads if w[0] == args.only]
        if not workloads:
            sys.exit(f"run.py: unknown workload {args.only}")

    samples = measure_times(bench, args.only, args.rounds)

    instructions = {}
    if not args.no_callgrind:
        if shutil.which("valgrind"):
            instructions = measure_instructions(bench, workloads, args.jobs)
        else:
            log("valgrind not found; skipping instruction counts (apt-get install valgrind)")

    print()
    for line in machine_info():
        print(f"- {line}")
    print()
    print("| workload | StreamKit ns/op | OpenCombine ns/op | time ratio | StreamKit instr/op "
          "| OpenCombine instr/op | instr ratio | StreamKit allocs/op | OpenCombine allocs/op |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    mismatches = []
    for name, _, _ in workloads:
        sk = samples[("streamkit", name)]
        oc = samples[("opencombine", name)]
        if sk["checksum"] != oc["checksum"] and name not in DIFFERENT_ON_PURPOSE:
            mismatches.append(name)
        sk_i = instructions.get(("streamkit", name))
        oc_i = instructions.get(("opencombine", name))
        label = f"{name} ({UNLIKE[name]})" if name in UNLIKE else name
        print(f"| {label} | {fmt(sk['ns_per_op'], 1)} | {fmt(oc['ns_per_op'], 1)} "
              f"| {ratio(sk['ns_per_op'], oc['ns_per_op'])} "
              f"| {fmt(sk_i, 0)} | {fmt(oc_i, 0)} | {ratio(sk_i, oc_i)} "
              f"| {fmt(sk['allocs_per_op'], 2)} | {fmt(oc['allocs_per_op'], 2)} |")
    print()
    print("op = " + "; ".join(f"{name}: one {unit} (N={n:,})" for name, n, unit in workloads) + ".")
    print(f"ns/op: median of {args.rounds} interleaved rounds; time ratio = StreamKit / OpenCombine of "
          "the medians. instr/op: callgrind, (I(N2) - I(N1)) / (N2 - N1) "
          f"with N1 = N*{N1_FRACTION[0]}/{N1_FRACTION[1]}, N2 = N*{N2_FRACTION[0]}/{N2_FRACTION[1]}. "
          "allocs/op: heap allocations in the hot loop / N. Ratio = StreamKit / OpenCombine.")
    if mismatches:
        print()
        print(f"WARNING: StreamKit and OpenCombine delivered different results for: {', '.join(mismatches)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
