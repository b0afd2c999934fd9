#pragma once
// Muon's update direction (Jordan et al. 2024, "Muon: an optimizer for hidden layers";
// Liu et al. 2025, "Muon is Scalable for LLM Training", arXiv 2502.16982): the momentum of a
// weight matrix, orthogonalized -- its singular values pushed towards 1 -- by a few
// Newton-Schulz iterations of the quintic X <- a X + b (X X^T) X + c (X X^T)^2 X, with
// (a, b, c) = (3.4445, -4.7750, 2.0315), after dividing by the Frobenius norm. The quintic is
// tuned to be fast, not exact: singular values end roughly in [0.7, 1.2]. core/train/optimizer.h
// applies it to the hidden layers' matrices and Adam to everything else.
#include <torch/torch.h>

namespace fathom {

inline constexpr double kMuonA = 3.4445, kMuonB = -4.7750, kMuonC = 2.0315;
inline constexpr int kMuonNewtonSchulzSteps = 5;

// The orthogonalized `matrix` (2-D), by `steps` iterations; computed on its transpose when it
// has more rows than columns (the smaller Gram matrix).
torch::Tensor newton_schulz(const torch::Tensor& matrix, int steps = kMuonNewtonSchulzSteps);

// A weight stacking `blocks` equal [rows / blocks, cols] matrices (self-attention's packed
// Q, K, V): each block orthogonalized on its own, as if the projections were separate.
torch::Tensor orthogonalized_blocks(const torch::Tensor& matrix, int blocks);

// The factor Liu et al. 2025 give the orthogonalized update, 0.2 sqrt(max(rows, cols)) of one
// block, so its RMS matches AdamW's (~0.2): Muon then shares train.lr and train.weight_decay
// with the Adam-updated parameters.
double muon_update_scale(const torch::Tensor& matrix, int blocks);

}  // namespace fathom
