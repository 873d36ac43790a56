"""Benchmark: what a process pays to touch memory the first time, on this machine, against touching it again.

On a virtual machine whose guest returns its free memory to the host (virtio-balloon free page reporting, as on
the 2-core machines here), a page the kernel hands out may no longer be backed by the host: the first write to it
waits for the host to back it again. Every benchmark here that starts a process pays that for each megabyte it
allocates afresh, and how much of its memory is fresh depends on what ran just before: the same floor process
reads a 10,000,000-run file in 1.6 s or 3.4 s. This script prints the figure behind that, and the machine's
page-reporting settings where the kernel shows them.

Each round is a fresh process that allocates ``--megabytes`` with numpy and writes one byte of every 4 KiB page
(the first touch), then writes every page again (memory the process already holds). Nothing is asserted.

    python bench/bench_fresh_memory.py [--megabytes 1024] [--rounds 5] [--pause 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

CHILD = """
import time, numpy as np
t0 = time.perf_counter()
a = np.empty({size}, dtype=np.uint8)
a[::4096] = 1
first = time.perf_counter() - t0
t0 = time.perf_counter()
a[::4096] = 2
print(first, time.perf_counter() - t0)
"""
REPORTING = Path("/sys/module/page_reporting/parameters")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pause", type=float, default=3.0, help="seconds between rounds (the host takes freed "
                                                                   "memory back meanwhile)")
    args = parser.parse_args()
    print(f"bench_fresh_memory: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {args.megabytes} MB a round, "
          f"{args.rounds} rounds, {args.pause:g} s apart")
    if REPORTING.is_dir():
        found = {p.name: p.read_text().strip() for p in sorted(REPORTING.iterdir()) if p.is_file()}
        print("free page reporting: " + ", ".join(f"{k}={v}" for k, v in found.items()))
    else:
        print("free page reporting: not in this kernel (/sys/module/page_reporting absent)")
    firsts, agains = [], []
    for _ in range(args.rounds):
        out = subprocess.run([sys.executable, "-c", CHILD.format(size=args.megabytes * 10**6)], check=True,
                             capture_output=True, text=True).stdout.split()
        firsts.append(float(out[0]))
        agains.append(float(out[1]))
        time.sleep(args.pause)
    gb = args.megabytes / 1000
    print(f"first touch: median {statistics.median(firsts) / gb:.2f} s a GB "
          f"({', '.join(f'{s:.2f}' for s in firsts)} s for {args.megabytes} MB)")
    print(f"touched again: median {statistics.median(agains) / gb:.2f} s a GB "
          f"({', '.join(f'{s:.2f}' for s in agains)} s)")


if __name__ == "__main__":
    main()
