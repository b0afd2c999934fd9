#!/usr/bin/env python3
"""Sums a Chrome trace by operator: self time (an event's duration less its children's), calls.

For bench_train's FATHOM_BENCH_PROFILE trace (LibTorch's legacy profiler), or any trace of
complete ("X") events nested per thread. Prints the ROWS operators with most self time.
  bench/profile_summary.py TRACE.json [ROWS] [STEPS]   # STEPS: per-step figures
"""
import collections
import json
import sys


def main(argv):
    trace = json.load(open(argv[1]))
    rows = int(argv[2]) if len(argv) > 2 else 20
    steps = int(argv[3]) if len(argv) > 3 else 1
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    by_thread = collections.defaultdict(list)
    for e in events:
        if e.get("ph") == "X":
            by_thread[e.get("tid")].append((float(e["ts"]), float(e["dur"]), e["name"]))
    self_us, calls = collections.Counter(), collections.Counter()
    for evs in by_thread.values():
        evs.sort(key=lambda e: (e[0], -e[1]))  # parents before the children they contain
        stack = []  # [end, name, child time]
        def close(frame):
            end, name, dur, children = frame
            self_us[name] += dur - children
            if stack:
                stack[-1][3] += dur
        for ts, dur, name in evs:
            while stack and stack[-1][0] <= ts:
                close(stack.pop())
            stack.append([ts + dur, name, dur, 0.0])
            calls[name] += 1
        while stack:
            close(stack.pop())
    total = sum(self_us.values())
    print(f"{'operator':<48} {'self ms/step':>12} {'%':>6} {'calls/step':>10}")
    for name, us in self_us.most_common(rows):
        print(f"{name[:48]:<48} {us / 1e3 / steps:12.2f} {100 * us / total:6.1f} "
              f"{calls[name] / steps:10.1f}")
    print(f"{'all':<48} {total / 1e3 / steps:12.2f} {100.0:6.1f} "
          f"{sum(calls.values()) / steps:10.1f}")


if __name__ == "__main__":
    main(sys.argv)
