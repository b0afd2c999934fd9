"""What logging costs a Python training loop: seconds per run.log() call of six metrics, flushes
(512 rows or 2 s) and heartbeats amortised, on SQLite and PostgreSQL -- the figure
docs/schema.md gives for Fathom's own MetricWriter (bench/bench_store_backends, --step-ms).

    PYTHONPATH=python python3 python/bench_log.py DB [--updates 20000]
"""
import argparse
import math
import statistics
import time

import fathom

NAMES = ["train_loss", "train_ppl", "lr", "grad_norm", "tokens_per_s", "target_tokens"]


def one_run(db, updates):
    run = fathom.init(db, {"train": {"lr": 1e-3}}, name="bench-log")
    start = time.perf_counter()
    for step in range(1, updates + 1):
        loss = 5.0 / math.sqrt(step)
        run.log({"train_loss": loss, "train_ppl": math.exp(loss), "lr": 1e-3,
                 "grad_norm": 1.0, "tokens_per_s": 1e4, "target_tokens": 1000.0 * step}, step)
    run.flush()
    elapsed = time.perf_counter() - start
    run.finish()
    return elapsed / updates


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db")
    parser.add_argument("--updates", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    per_call = [one_run(args.db, args.updates) for _ in range(args.repeats)]
    print(f"{args.updates} log() calls of {len(NAMES)} metrics, {args.repeats} runs: "
          f"median {statistics.median(per_call) * 1e6:.1f} us per call "
          f"(min {min(per_call) * 1e6:.1f}, max {max(per_call) * 1e6:.1f})")


if __name__ == "__main__":
    main()
