#pragma once
// w/sigma of every Post-LN LayerNorm (Xu et al. 2020, table 2; methods.md s2): after
// LN(x_{k-1} + f_k), the shortcut is multiplied by w/sigma, sigma = std(x_{k-1} + f_k) of each
// token over the hidden dimension and w the LayerNorm weight; w/sigma < 1 shrinks the
// residual path. Per LayerNorm: mean over the non-pad tokens of mean_d |w_d| / sigma_t (and
// its min and max over tokens), dropout off. "Post-LN LayerNorm" = a LayerNorm whose output is
// a sub-layer's output (post, admin, deepnorm, rezero_postln); Pre-LN models have none.
#include <string>
#include <vector>

#include "core/data/batch.h"
#include "core/model/transformer.h"

namespace fathom::analysis {

struct LnScale {
  std::string name;  // the LayerNorm, e.g. "enc.0.self_attn.post_norm"
  SublayerId owner;
  double w_over_sigma = 0;  // mean over tokens of mean_d |w_d| / sigma_t
  double min = 0, max = 0;  // over tokens
  double sigma = 0;         // mean over tokens of sigma_t
};

// In forward order.
std::vector<LnScale> ln_scales(TransformerImpl& model, const Batch& batch);

}  // namespace fathom::analysis
