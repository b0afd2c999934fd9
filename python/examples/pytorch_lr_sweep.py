"""A PyTorch training loop logged into a Fathom store: a learning-rate sweep of a small MLP.

    PYTHONPATH=python python3 python/examples/pytorch_lr_sweep.py runs.db
    fathom --db runs.db export lr-sensitivity --sweep mlp-lr
    fathom-gui --db runs.db

Regression of y = sin(3 x1) + x2^2 / 2 on 8 inputs (the other six are noise) with Adam, warmup
then constant rate; five rates, one run each. A rate whose loss is no longer finite ends its run
diverged, as Fathom's trainer does. Deterministic given the seed on the CPU.
"""
import math
import sys

import torch

import fathom


def batch(generator, size=64):
    x = torch.randn(size, 8, generator=generator)
    y = torch.sin(3 * x[:, 0]) + x[:, 1] ** 2 / 2
    return x, y.unsqueeze(1)


def train(db, lr, seed=1, updates=300, sweep="mlp-lr"):
    config = {"name": f"{sweep}/lr={lr:g}", "model": {"layers": 3, "width": 64},
              "train": {"lr": lr, "max_updates": updates, "warmup": 20, "seed": seed}}
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(8, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64),
                                torch.nn.ReLU(), torch.nn.Linear(64, 1))
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    schedule = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 20))
    data = torch.Generator().manual_seed(seed)
    valid = batch(torch.Generator().manual_seed(1000), size=512)

    def valid_loss():
        with torch.no_grad():
            return torch.nn.functional.mse_loss(model(valid[0]), valid[1])

    with fathom.init(db, config, sweep=sweep, axes=["train.lr"]) as run:
        run.log({"valid_loss": valid_loss()}, step=0)  # the loss at initialization
        for step in range(1, updates + 1):
            x, y = batch(data)
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
            if not (math.isfinite(loss.item()) and math.isfinite(norm.item())):
                run.log({"train_loss": loss, "grad_norm": norm}, step)
                run.finish("diverged", error=f"non-finite loss or gradient at update {step}")
                return run.id
            rate = opt.param_groups[0]["lr"]
            opt.step()
            schedule.step()
            if step % 10 == 0:
                run.log({"train_loss": loss, "lr": rate, "grad_norm": norm}, step)
            if step % 50 == 0:
                run.log({"valid_loss": valid_loss()}, step)
        return run.id


def main(argv):
    if len(argv) != 2:
        print("usage: pytorch_lr_sweep.py DB", file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    for lr in (1e-3, 3e-3, 1e-2, 3e-2, 1e-1):
        run_id = train(argv[1], lr)
        print(f"lr {lr:g}: run {run_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
