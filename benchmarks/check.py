"""`rulecheck check` end to end: wall clock and CPU of the whole command, as a user runs it.

Run: python benchmarks/check.py [--repeat N] [--proposal P]

Two configurations, alternated within one run of this script so that both see the same machine:
`check` as shipped (the small-bounds guards and the Spacer proofs each in a forked process beside
the main search, issue 33's budget of 10 s on 2 cores) and `check --jobs 1` (everything in one
process, one after the other). Prints the median of each and their ratio. Every run must report the
same verdict and state count (the benchmark stops otherwise: a faster wrong answer is no answer).
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

CONFIGS = {"beside (default)": [], "in sequence (--jobs 1)": ["--jobs", "1"]}


def once(proposal: str, extra: list[str]) -> tuple[float, float, dict]:
    """(wall seconds, CPU seconds of the command and its children, the report's summary)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "checks.cli", "check", "--proposal", proposal, "--format", "json",
                          *extra], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if out.returncode not in (0, 1):
        raise SystemExit(f"check exited {out.returncode}: {out.stderr[-2000:]}")
    summary = json.loads(out.stdout)["summary"]
    return wall, cpu, {"verdict": summary["verdict"], "states": summary["states"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--proposal", default="default")
    args = ap.parse_args()
    walls: dict = {k: [] for k in CONFIGS}
    cpus: dict = {k: [] for k in CONFIGS}
    seen = None
    for _ in range(args.repeat):
        for name, extra in CONFIGS.items():
            wall, cpu, summary = once(args.proposal, extra)
            if seen is not None and summary != seen:
                raise SystemExit(f"{name}: {summary}, where an earlier run gave {seen}")
            seen = summary
            walls[name].append(wall)
            cpus[name].append(cpu)
    print(f"rulecheck check --proposal {args.proposal}: {seen['verdict']}, {seen['states']:,} states; "
          f"median of {args.repeat} runs")
    print(f"{'configuration':<24} {'wall s':>8} {'CPU s':>8}")
    for name in CONFIGS:
        print(f"{name:<24} {statistics.median(walls[name]):>8.2f} {statistics.median(cpus[name]):>8.2f}")
    a, b = (statistics.median(walls[k]) for k in CONFIGS)
    print(f"wall ratio beside / in sequence: {a / b:.2f}")


if __name__ == "__main__":
    main()
