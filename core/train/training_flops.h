#pragma once
// The compute a training update costs, in floating-point operations: the curves' x axis
// "training compute" (plot/curve_x.h) and the final metric train_flops. Model FLOPs, counted as
// Kaplan et al. 2020 (arXiv 2001.08361, section 2.1) and Chowdhery et al. 2022 (PaLM, appendix
// B) count them: a multiply-add is 2 FLOPs; the forward pass's matrix products over the
// batch's non-pad tokens -- each linear of the model's catalog, 2 x in x out per token it
// reads (a source token for the encoder's and the cross-attention's keys and values, a target
// token for the rest), attention's score and value products, 4 d_attn per query-key pair, and
// the output projection, 2 d V per target token, and the products a sub-layer declares beyond
// its linears (ParameterCatalog::products: hyper-connections' stream reading, mixing and
// writing) -- and training = 3 x forward (the backward computes two products for each forward
// one: the input's and the weight's gradients). Left out, as there: embedding lookups, norms,
// softmax, dropout, the loss and the optimizer; and what the hardware does that the model does
// not ask for: pad positions, activation checkpointing's recomputation. A causal
// self-attention counts its whole T x T score matrix, as computed.
#include "core/data/batch.h"
#include "core/model/transformer.h"

namespace fathom {

// Forward FLOPs per non-pad source and target token, and per query-key pair of a row: (source,
// source) pairs in the encoder's self-attention, (target, target) in the decoder's, (target,
// source) in its cross-attention. A decoder-only model has target terms only.
struct FlopRates {
  double per_source = 0, per_target = 0;
  double source_pairs = 0, target_pairs = 0, cross_pairs = 0;
};

FlopRates forward_flop_rates(TransformerImpl& model);

// 3 x the forward FLOPs of `batch` (its token counts and the sums of its rows' lengths).
double training_flops(const FlopRates& rates, const Batch& batch);

}  // namespace fathom
