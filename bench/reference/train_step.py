#!/usr/bin/env python3
"""Reference training step in plain PyTorch, for bench/bench_vs_reference.cpp (issue 7).

The same model, initialization, loss, optimizer and batch as Fathom's defaults
(methods.md s1-2; core/model, core/train), written with stock PyTorch modules:
  - one [V, d] embedding shared by source, target and the output projection
    (model.share_embeddings and model.tie_decoder_embeddings default to true),
    scaled by sqrt(d), plus fairseq-layout sinusoidal positions, then dropout 0.1;
  - attention: packed [3d, d] Q/K/V for self-attention, [d, d] query and packed
    [2d, d] key/value for encoder attention, queries scaled by 1/sqrt(d/H),
    key padding and causal masks, no attention dropout; with --fused-attention auto
    (as model.fused_attention) F.scaled_dot_product_attention where torch has it (>= 2.0)
    with Fathom's masks; FFN Linear-ReLU-Linear;
  - Post-LN x = LN(x + drop(f(x))) or Pre-LN x + drop(f(LN(x))) with a final LN;
  - init `xavier`: Glorot-uniform Linears (gain 1/sqrt(2) per d x d block of the
    attention input projections), zero biases, embeddings N(0, d^-1/2), pad row 0;
  - label-smoothed cross entropy (eps 0.1) over non-pad targets / target tokens;
  - clip_grad_norm_(1e9) (as bench_train: the norm is computed, nothing is clipped)
    and torch.optim.Adam(betas=(0.9, 0.98), eps=1e-8), lr 1e-4.
--arch decoder_only (model.arch): one causal stack of self-attention + FFN layers reading the
target sequence alone, the embedding tied to the output, no source.
Modules are built and initialized in Fathom's order from the same seeds, so on the
CPU the parameters, the batch and the dropout masks draw the same random numbers
as Fathom's and the first loss should agree to float rounding.

--compile: forward and loss through torch.compile (inductor; backward too, by AOTAutograd);
clipping and Adam stay eager. Inductor draws its own dropout masks, so the first loss then
agrees with Fathom's only roughly.

Standalone:  train_step.py --size tiny --steps 20 --threads 1
Driven:      train_step.py --serve ...  then stdin lines "run N" / "quit".
Prints JSON lines (one object per line) on stdout.
"""
import argparse
import ctypes
import json
import math
import os
import resource
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

# Named sizes: keep in step with bench/train_sizes.h (the driver passes every field
# explicitly anyway, so a stale entry here only affects standalone runs).
SIZES = {
    #         d    H   ff   enc dec  vocab  rows src tgt
    "tiny":  (64, 4, 256, 2, 2, 40, 204, 10, 10),
    "small": (256, 4, 1024, 3, 3, 8000, 256, 16, 16),
    "base":  (512, 8, 2048, 6, 6, 32000, 256, 32, 32),
    "big":   (1024, 16, 4096, 6, 6, 32000, 256, 32, 32),
    "deep18": (512, 8, 2048, 18, 18, 32000, 256, 32, 32),
    "deep60": (512, 8, 2048, 60, 12, 32000, 256, 32, 32),
    # decoder-only language models (--arch decoder_only): no encoder, no source
    "lm-tiny": (64, 4, 256, 0, 4, 40, 102, 0, 20),
    "lm-small": (256, 4, 1024, 0, 6, 8000, 128, 0, 32),
    "lm-base": (512, 8, 2048, 0, 12, 32000, 128, 0, 64),
}
DECODER_ONLY = {"lm-tiny", "lm-small", "lm-base"}
PAD, BOS, EOS = 0, 2, 3


def sinusoidal_positions(max_len, d):
    # As core/model/embedding.cpp: sin on the first d/2 channels, cos on the rest.
    half = d // 2
    step = math.log(10000.0) / max(half - 1, 1)
    freq = torch.exp(torch.arange(half, dtype=torch.float64) * -step)
    angles = torch.arange(max_len, dtype=torch.float64).unsqueeze(1) * freq.unsqueeze(0)
    table = torch.cat([torch.sin(angles), torch.cos(angles)], 1)
    if d % 2 == 1:
        table = torch.cat([table, torch.zeros(max_len, 1, dtype=torch.float64)], 1)
    return table.float()


class Attention(nn.Module):
    fused = False  # Reference sets it from --fused-attention

    def __init__(self, d, heads, self_attention):
        super().__init__()
        self.d, self.heads, self.self_attention = d, heads, self_attention
        if self_attention:
            self.qkv = nn.Linear(d, 3 * d)
        else:
            self.q = nn.Linear(d, d)
            self.kv = nn.Linear(d, 2 * d)
        self.out = nn.Linear(d, d)

    def linears(self):  # (linear, role, blocks) in Fathom's catalog order
        if self.self_attention:
            return [(self.qkv, "attn_in", 3), (self.out, "attn_out", 1)]
        return [(self.q, "attn_in", 1), (self.kv, "attn_in", 2), (self.out, "attn_out", 1)]

    def forward(self, x, memory, key_padding, causal):
        B, T, _ = x.shape  # x [B, T, d], memory [B, S, d]
        if self.self_attention:
            q, k, v = self.qkv(x).chunk(3, -1)
        else:
            q = self.q(x)
            k, v = self.kv(memory).chunk(2, -1)
        S, hd = k.size(1), self.d // self.heads

        def split(t, L):  # [B, L, d] -> [B, H, L, d/H]
            return t.view(B, L, self.heads, hd).transpose(1, 2)

        k, v = split(k, S), split(v, S)
        if self.fused:  # as core/model/attention.cpp: a boolean mask marks the keys taking part
            allowed = None
            if key_padding is not None:
                allowed = key_padding.logical_not().view(B, 1, 1, S)
                if causal:
                    allowed = allowed & torch.ones(T, S, dtype=torch.bool,
                                                   device=x.device).tril()
            context = F.scaled_dot_product_attention(
                split(q, T), k, v, attn_mask=allowed,
                is_causal=causal and key_padding is None)
            return self.out(context.transpose(1, 2).reshape(B, T, self.d))
        q = split(q, T) * (1.0 / math.sqrt(hd))
        scores = torch.matmul(q, k.transpose(-2, -1))  # [B, H, T, S]
        if key_padding is not None:
            scores = scores.masked_fill(key_padding.view(B, 1, 1, S), float("-inf"))
        if causal:
            future = torch.ones(T, S, dtype=torch.bool, device=scores.device).triu(1)
            scores = scores.masked_fill(future, float("-inf"))
        probs = torch.softmax(scores, -1)
        return self.out(torch.matmul(probs, v).transpose(1, 2).reshape(B, T, self.d))


class FeedForward(nn.Module):
    def __init__(self, d, d_ff):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, d_ff), nn.Linear(d_ff, d)

    def linears(self):
        return [(self.fc1, "ffn", 1), (self.fc2, "ffn", 1)]

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Sublayer(nn.Module):
    """Post-LN or Pre-LN wrapper around one branch."""

    def __init__(self, d, norm, dropout):
        super().__init__()
        self.pre, self.dropout, self.ln = norm == "pre", dropout, nn.LayerNorm(d)

    def forward(self, x, branch):
        if self.pre:
            return x + F.dropout(branch(self.ln(x)), self.dropout, self.training)
        return self.ln(x + F.dropout(branch(x), self.dropout, self.training))


class Reference(nn.Module):
    checkpoint = False  # Runner sets it from --checkpoint
    def __init__(self, a):
        super().__init__()
        d, self.d, self.dropout = a.d_model, a.d_model, a.dropout
        self.embedding = nn.Parameter(torch.empty(a.vocab, d))  # shared and tied
        self.register_buffer("positions", sinusoidal_positions(max(256, a.src_len, a.tgt_len), d))
        self.enc, self.dec = nn.ModuleList(), nn.ModuleList()
        for _ in range(a.encoder_layers):  # construction order = Fathom's (RNG draws)
            self.enc.append(nn.ModuleDict({
                "attn": Attention(d, a.heads, True), "attn_c": Sublayer(d, a.norm, a.dropout),
                "ffn": FeedForward(d, a.d_ff), "ffn_c": Sublayer(d, a.norm, a.dropout)}))
        self.decoder_only = a.arch == "decoder_only"
        for _ in range(a.decoder_layers):
            layer = {"self": Attention(d, a.heads, True), "self_c": Sublayer(d, a.norm, a.dropout)}
            if not self.decoder_only:
                layer.update({"cross": Attention(d, a.heads, False),
                              "cross_c": Sublayer(d, a.norm, a.dropout)})
            layer.update({"ffn": FeedForward(d, a.d_ff), "ffn_c": Sublayer(d, a.norm, a.dropout)})
            self.dec.append(nn.ModuleDict(layer))
        pre = a.norm == "pre"
        self.enc_final = nn.LayerNorm(d) if pre else None
        self.dec_final = nn.LayerNorm(d) if pre else None
        fused = a.fused_attention == "auto" and hasattr(F, "scaled_dot_product_attention")
        for m in self.modules():
            if isinstance(m, Attention):
                m.fused = fused
        self.xavier_init()

    def linears(self):
        out = []
        for layer in self.enc:
            out += layer["attn"].linears() + layer["ffn"].linears()
        for layer in self.dec:
            out += layer["self"].linears()
            if "cross" in layer:
                out += layer["cross"].linears()
            out += layer["ffn"].linears()
        return out

    @torch.no_grad()
    def xavier_init(self):
        # core/model/xavier_init.cpp + init_helpers.cpp, in the same order.
        for linear, role, blocks in self.linears():
            fan_out, fan_in = linear.weight.shape
            gain = 1 / math.sqrt(2) if role == "attn_in" else 1.0
            block_out = fan_out // blocks if role == "attn_in" else fan_out
            bound = gain * math.sqrt(6.0 / (fan_in + block_out))
            linear.weight.uniform_(-bound, bound)
        for linear, _, _ in self.linears():
            linear.bias.zero_()
        self.embedding.normal_(0.0, self.d ** -0.5)
        self.embedding[PAD].zero_()
        # nn.LayerNorm starts at weight 1, bias 0 already.

    def parameter_counts(self):  # the kinds of TransformerImpl::parameter_counts()
        counts = {"embeddings": self.embedding.numel(), "attention": 0, "ffn_lstm": 0,
                  "norms": 0, "omega": 0, "other": 0}
        for linear, role, _ in self.linears():
            kind = "ffn_lstm" if role == "ffn" else "attention"
            counts[kind] += linear.weight.numel() + linear.bias.numel()
        for m in self.modules():
            if isinstance(m, nn.LayerNorm):
                counts["norms"] += m.weight.numel() + m.bias.numel()
        counts["total"] = sum(counts.values())
        assert counts["total"] == sum(p.numel() for p in self.parameters())
        return counts

    def embed(self, tokens):
        x = F.embedding(tokens, self.embedding, padding_idx=PAD) * math.sqrt(self.d)
        x = x + self.positions[: tokens.size(1)].unsqueeze(0)
        return F.dropout(x, self.dropout, self.training)

    @staticmethod
    def enc_layer(l, x, pad):
        x = l["attn_c"](x, lambda h: l["attn"](h, h, pad, False))
        return l["ffn_c"](x, l["ffn"])

    @staticmethod
    def dec_layer(l, y, memory, pad):
        y = l["self_c"](y, lambda h: l["self"](h, h, None, True))
        y = l["cross_c"](y, lambda h: l["cross"](h, memory, pad, False))
        return l["ffn_c"](y, l["ffn"])

    @staticmethod
    def lm_layer(l, y):
        y = l["self_c"](y, lambda h: l["self"](h, h, None, True))
        return l["ffn_c"](y, l["ffn"])

    def forward(self, src, tgt_in):
        pad = src.eq(PAD)
        # --checkpoint: torch.utils.checkpoint per layer, as train.checkpoint_activations
        # (the reentrant variant, which Fathom's C++ version follows; it restores the RNG).
        def run(fn, *args):
            if self.checkpoint and self.training:
                return checkpoint(fn, *args, use_reentrant=True)
            return fn(*args)
        if self.decoder_only:  # the source is empty; the one stack reads the sequence
            y = self.embed(tgt_in)
            for l in self.dec:
                y = run(lambda y_, l=l: self.lm_layer(l, y_), y)
            if self.dec_final is not None:
                y = self.dec_final(y)
            return torch.matmul(y, self.embedding.t())
        x = self.embed(src)
        for l in self.enc:
            x = run(lambda x_, l=l: self.enc_layer(l, x_, pad), x)
        memory = self.enc_final(x) if self.enc_final is not None else x
        y = self.embed(tgt_in)
        for l in self.dec:
            y = run(lambda y_, m_, l=l: self.dec_layer(l, y_, m_, pad), y, memory)
        if self.dec_final is not None:
            y = self.dec_final(y)
        return torch.matmul(y, self.embedding.t())  # [B, T, V]


def label_smoothed_loss(logits, target, eps):
    """core/train/loss.cpp: (1-eps) nll + eps/V sum_v -log p_v, summed over non-pad."""
    lp = torch.log_softmax(logits.float(), -1)
    keep = target.ne(PAD)
    nll = -lp.gather(-1, target.unsqueeze(-1)).squeeze(-1)
    per_token = (1.0 - eps) * nll + (eps / logits.size(-1)) * (-lp.sum(-1))
    # where() rather than masked_select: the same sum, with a static shape for torch.compile.
    return torch.where(keep, per_token, torch.zeros_like(per_token)).sum()


def make_batch(a):
    # As bench/train_sizes.h: seed 0, per row randint(4, V) source then target ids, + eos.
    torch.manual_seed(0)
    # Decoder-only: no source ids drawn, an empty [rows, 0] source.
    src, tgt = [], []
    for _ in range(a.rows):
        if a.arch != "decoder_only":
            src.append(torch.randint(4, a.vocab, (a.src_len - 1,), dtype=torch.int64))
        tgt.append(torch.randint(4, a.vocab, (a.tgt_len - 1,), dtype=torch.int64))
    eos, bos = torch.tensor([EOS]), torch.tensor([BOS])
    src = (torch.stack([torch.cat([s, eos]) for s in src]) if src
           else torch.zeros(a.rows, 0, dtype=torch.int64))
    tgt_out = torch.stack([torch.cat([t, eos]) for t in tgt])
    tgt_in = torch.stack([torch.cat([bos, t]) for t in tgt])
    return src, tgt_in, tgt_out


OLD_CORES = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Sandybridge", "Atom",
             "Katmai"}


def ensure_fast_blas():
    """As base/util/blas_setup.cpp: OpenBLAS may misread a virtual CPU and pick SSE3
    kernels; re-execute once with OPENBLAS_CORETYPE so both sides use the same kernels
    (the C++ driver passes its own choice down in the environment)."""
    if os.environ.get("OPENBLAS_CORETYPE") or os.environ.get("FATHOM_KEEP_BLAS"):
        return
    blas = openblas()
    if blas is None or blas.openblas_get_corename().decode() not in OLD_CORES:
        return
    flags = set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    wanted = None
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        wanted = "SkylakeX"
    elif {"avx2", "fma"} <= flags:
        wanted = "Haswell"
    if wanted:
        os.environ["OPENBLAS_CORETYPE"] = wanted
        os.execv(sys.executable, [sys.executable] + sys.argv)


def openblas():
    try:
        lib = ctypes.CDLL("libopenblas.so.0")
        lib.openblas_get_corename.restype = ctypes.c_char_p
        return lib
    except OSError:
        return None


class Runner:
    def __init__(self, a):
        self.a, self.device = a, torch.device(a.device)
        # --precision tf32: float32 throughout, cuBLAS's and cuDNN's products in TF32, as
        # train.precision: tf32 (PyTorch's own switches, the ones Fathom's run sets).
        if a.precision == "tf32":
            if self.device.type != "cuda":
                raise SystemExit("--precision tf32 needs --device cuda")
            torch.backends.cuda.matmul.allow_tf32 = True
            torch.backends.cudnn.allow_tf32 = True
        torch.manual_seed(a.seed)
        self.model = Reference(a).to(self.device)
        self.model.checkpoint = a.checkpoint
        self.model.train()
        self.params = list(self.model.parameters())
        self.opt = torch.optim.Adam(self.params, lr=a.lr, betas=(0.9, 0.98), eps=1e-8)
        self.batch = [t.to(self.device) for t in make_batch(a)]
        self.target_tokens = int(self.batch[2].ne(PAD).sum().item())
        self.first_loss = None
        self.forward_loss = self.eager_forward_loss
        if a.compile:
            if a.checkpoint:
                raise SystemExit("--compile with --checkpoint is not supported")
            self.forward_loss = torch.compile(self.eager_forward_loss)

    def eager_forward_loss(self, src, tgt_in, tgt_out):
        # --precision bf16: the forward under autocast, as train.precision: bf16 (the loss
        # casts the logits to float32 itself).
        with torch.autocast(device_type=self.device.type, dtype=torch.bfloat16,
                            enabled=self.a.precision == "bf16"):
            logits = self.model(src, tgt_in)
        return label_smoothed_loss(logits, tgt_out, self.a.smoothing) / self.target_tokens

    def sync(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize()

    def run(self, steps):
        fwd = bwd = upd = 0.0
        tokens, loss = 0, float("nan")
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        src, tgt_in, tgt_out = self.batch
        for _ in range(steps):
            self.sync()
            t0 = time.perf_counter()
            self.opt.zero_grad(set_to_none=False)  # Fathom zeroes gradients in place
            loss_t = self.forward_loss(src, tgt_in, tgt_out)
            n = self.target_tokens
            self.sync()
            t1 = time.perf_counter()
            loss_t.backward()
            self.sync()
            t2 = time.perf_counter()
            nn.utils.clip_grad_norm_(self.params, 1e9)
            self.opt.step()
            self.sync()
            t3 = time.perf_counter()
            fwd, bwd, upd = fwd + t1 - t0, bwd + t2 - t1, upd + t3 - t2
            tokens += n
            loss = loss_t.item()
            if self.first_loss is None:
                self.first_loss = loss
        total_s = fwd + bwd + upd
        out = {"event": "result", "steps": steps, "tokens": tokens,
               "tokens_per_s": tokens / total_s if total_s > 0 else 0.0,
               "step_ms": 1000 * total_s / max(steps, 1), "forward_ms": 1000 * fwd / max(steps, 1),
               "backward_ms": 1000 * bwd / max(steps, 1), "update_ms": 1000 * upd / max(steps, 1),
               "loss": loss, "first_loss": self.first_loss,
               "minor_faults": resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults,
               "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}
        if self.device.type == "cuda":
            out["peak_cuda_bytes"] = torch.cuda.max_memory_allocated()
        return out


def emit(obj):
    print(json.dumps(obj), flush=True)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", default="tiny", choices=sorted(SIZES))
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--threads", type=int, default=1, help="torch.set_num_threads and OpenBLAS")
    p.add_argument("--torch-threads", type=int, default=0,
                   help="override torch's intra-op threads only (0: = --threads)")
    p.add_argument("--device", default="cpu")
    p.add_argument("--norm", default="post", choices=["post", "pre"])
    p.add_argument("--arch", default="", choices=["", "encoder_decoder", "decoder_only"],
                   help="as model.arch (default: the size's)")
    for name in ["d-model", "heads", "d-ff", "encoder-layers", "decoder-layers", "vocab",
                 "rows", "src-len", "tgt-len"]:
        p.add_argument("--" + name, type=int, default=0, help="override the size's value")
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--smoothing", type=float, default=0.1)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--seed", type=int, default=1, help="parameters (build_model's seed)")
    p.add_argument("--serve", action="store_true", help="read 'run N' / 'quit' from stdin")
    p.add_argument("--precision", default="fp32", choices=["fp32", "bf16", "tf32"],
                   help="bf16: forward under torch.autocast(bfloat16); tf32: float32 with the "
                        "products in TF32; as train.precision")
    p.add_argument("--checkpoint", action="store_true",
                   help="recompute each layer in backward, as train.checkpoint_activations")
    p.add_argument("--fused-attention", default="auto", choices=["auto", "off"],
                   help="auto: F.scaled_dot_product_attention where torch has it, as "
                        "model.fused_attention")
    p.add_argument("--compile", action="store_true",
                   help="forward + loss through torch.compile (inductor)")
    p.add_argument("--profile", type=int, default=0, metavar="ROWS",
                   help="standalone: print the ROWS operators (on a GPU: kernels too) with most "
                        "self time, CPU or GPU (stderr)")
    a = p.parse_args(argv)
    keys = ["d_model", "heads", "d_ff", "encoder_layers", "decoder_layers", "vocab", "rows",
            "src_len", "tgt_len"]
    decoder_only = a.arch == "decoder_only" or (not a.arch and a.size in DECODER_ONLY)
    for key, value in zip(keys, SIZES[a.size]):
        if not getattr(a, key) and not (decoder_only and key in ("encoder_layers", "src_len")):
            setattr(a, key, value)
    a.arch = "decoder_only" if decoder_only else "encoder_decoder"
    return a


def main(argv):
    a = parse_args(argv)
    ensure_fast_blas()
    torch.set_num_threads(a.torch_threads or a.threads)
    blas = openblas()
    if blas is not None:
        blas.openblas_set_num_threads(a.threads)
    runner = Runner(a)
    emit({"event": "config", "torch": torch.__version__, "size": a.size, "device": a.device,
          "compile": a.compile, "fused_attention": runner.model.dec[0]["self"].fused,
          "arch": a.arch,
          "norm": a.norm, "torch_threads": torch.get_num_threads(),
          "blas_threads": blas.openblas_get_num_threads() if blas else None,
          "blas_core": blas.openblas_get_corename().decode() if blas else "",
          "d_model": a.d_model, "heads": a.heads, "d_ff": a.d_ff,
          "encoder_layers": a.encoder_layers, "decoder_layers": a.decoder_layers,
          "vocab": a.vocab, "rows": a.rows, "src_len": a.src_len, "tgt_len": a.tgt_len,
          "smoothing": a.smoothing, "ln_vocab": math.log(a.vocab)})
    emit(dict(event="params", **runner.model.parameter_counts()))
    warm = runner.run(a.warmup)  # first_loss: the loss of the very first step
    ready = {"event": "ready"}
    if warm["first_loss"] is not None:  # None with --warmup 0
        ready["first_loss"] = warm["first_loss"]
    emit(ready)
    if a.profile:  # where the time goes: torch's profiler over the timed steps, by operator
        # On a GPU by kernel time (the kernels are rows of their own): what a fused kernel
        # would have to take over (docs/gpu.md).
        activities = [torch.profiler.ProfilerActivity.CPU]
        sort_by = "self_cpu_time_total"
        if a.device.startswith("cuda"):
            activities.append(torch.profiler.ProfilerActivity.CUDA)
            sort_by = "self_cuda_time_total"
        with torch.profiler.profile(activities=activities) as prof:
            result = runner.run(a.steps)
        averages = prof.key_averages()
        if sort_by == "self_cuda_time_total" and averages and hasattr(averages[0],
                                                                       "self_device_time_total"):
            sort_by = "self_device_time_total"  # torch 2.4's name
        print(averages.table(sort_by=sort_by, row_limit=a.profile, max_name_column_width=90),
              file=sys.stderr)
        emit(result)
        return 0
    if not a.serve:
        emit(runner.run(a.steps))
        return 0
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["run"] and len(words) == 2:
            emit(runner.run(int(words[1])))
        elif words[:1] == ["quit"]:
            break
        else:
            emit({"event": "error", "message": "expected 'run N' or 'quit', got " + line.strip()})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
