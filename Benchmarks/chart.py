#!/usr/bin/env python3
"""Draws the benchmark picture the README shows, from the table in Docs/Performance.md.

Reads the first table under "## Latest run" (columns `workload`, `StreamKit instr/op` and
`OpenCombine instr/op`) and writes Docs/Images/benchmarks.svg: one bar per workload, how many
times fewer instructions StreamKit runs than OpenCombine 0.14.0 for the same operation, on a
logarithmic axis. `mapFilterLoop` is left out: it is the hand-written loop both sides share, a
control rather than library code. Standard library only. Run it after updating the table:

  python3 Benchmarks/chart.py            write the picture
  python3 Benchmarks/chart.py --check    fail if the picture is not what the table draws (CI)
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "Docs/Performance.md"
OUTPUT = ROOT / "Docs/Images/benchmarks.svg"
CONTROLS = {"mapFilterLoop", "contendedLocks4x2", "contendedCombining4x2"}  # no library code runs in these rows


def rows() -> list[tuple[str, int, int]]:
    lines = TABLE.read_text(encoding="utf-8").split("\n")
    start = lines.index("## Latest run")
    header: list[str] | None = None
    found: list[tuple[str, int, int]] = []
    for line in lines[start:]:
        if not line.startswith("|"):
            if header:
                break
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if header is None:
            header = cells
            continue
        if set(cells[0]) <= set("-: ") or cells[0] in CONTROLS:
            continue
        ours_cell = cells[header.index("StreamKit instr/op")]
        theirs_cell = cells[header.index("OpenCombine instr/op")]
        if "n/a" in (ours_cell, theirs_cell):
            continue  # measured in time only
        ours = int(ours_cell.replace(",", ""))
        theirs = int(theirs_cell.replace(",", ""))
        found.append((cells[header.index("workload")], ours, theirs))
    return found


def svg(data: list[tuple[str, int, int]]) -> str:
    left, right, top, bar, gap = 150, 560, 56, 18, 8
    height = top + len(data) * (bar + gap) + 58
    largest = max(theirs / ours for _, ours, theirs in data)
    decades = math.ceil(math.log10(largest))
    scale = (right - left) / decades

    def x(factor: float) -> float:
        return left + math.log10(max(factor, 1)) * scale

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{right + 90}" height="{height}" '
        f'font-family="Helvetica, Arial, sans-serif" font-size="12">',
        f'<rect width="{right + 90}" height="{height}" fill="white"/>',
        '<text x="10" y="20" font-size="14" font-weight="bold">How many times fewer instructions '
        "StreamKit runs than OpenCombine 0.14.0</text>",
        '<text x="10" y="38" fill="#555">Same workload, same run, callgrind instructions per '
        "operation (Docs/Performance.md); log scale</text>",
    ]
    for decade in range(decades + 1):
        position = left + decade * scale
        out.append(
            f'<line x1="{position:.1f}" y1="{top - 6}" x2="{position:.1f}" '
            f'y2="{height - 48}" stroke="#ddd"/>'
        )
        out.append(
            f'<text x="{position:.1f}" y="{height - 32}" text-anchor="middle" '
            f'fill="#555">{10 ** decade}×</text>'
        )
    unlike = False
    for index, (name, ours, theirs) in enumerate(data):
        if " (" in name:  # the row names the operator OpenCombine's side runs instead
            name = name.split(" (")[0] + "*"
            unlike = True
        y = top + index * (bar + gap)
        factor = theirs / ours
        colour = "#2e7d32" if factor >= 8 else "#f9a825" if factor >= 2 else "#c62828"
        out.append(
            f'<text x="{left - 8}" y="{y + bar - 5}" text-anchor="end">{name}</text>'
        )
        out.append(
            f'<rect x="{left}" y="{y}" width="{max(x(factor) - left, 1):.1f}" height="{bar}" '
            f'fill="{colour}"/>'
        )
        label = f"{factor:.0f}×" if factor >= 10 else f"{factor:.1f}×"
        out.append(
            f'<text x="{x(factor) + 6:.1f}" y="{y + bar - 5}">{label} '
            f'({ours:,} vs {theirs:,})</text>'
        )
    if unlike:
        out.append(
            f'<text x="10" y="{height - 10}" fill="#555">* OpenCombine has no merge or '
            "combineLatest: its side runs flatMap or zip (Docs/Performance.md)</text>"
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> int:
    picture = svg(rows())
    if "--check" in sys.argv[1:]:
        if not OUTPUT.exists() or OUTPUT.read_text(encoding="utf-8") != picture:
            print(
                f"chart.py --check: {OUTPUT.relative_to(ROOT)} is not what Docs/Performance.md "
                "draws; run python3 Benchmarks/chart.py and commit it",
                file=sys.stderr,
            )
            return 1
        print(f"chart.py --check: {OUTPUT.relative_to(ROOT)} is up to date")
        return 0
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(picture, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
