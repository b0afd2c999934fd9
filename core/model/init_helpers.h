#pragma once
// Building blocks shared by the initializations (methods.md s3). Call under NoGradGuard.
#include <torch/torch.h>

#include "core/model/parameter_catalog.h"

namespace fathom {

// Glorot/Xavier uniform bound: gain * sqrt(6 / (fan_in + fan_out)).
double xavier_bound(int64_t fan_in, int64_t fan_out, double gain = 1.0);

// LayerNorm gamma 1, beta 0.
void reset_norms(ParameterCatalog& catalog);

// Every Linear bias to zero.
void zero_linear_biases(ParameterCatalog& catalog);

// Embeddings N(0, std) with the padding row (index 0) zero.
void normal_embeddings(ParameterCatalog& catalog, double std);

// Embeddings U(-bound, bound) with the padding row zero.
void uniform_embeddings(ParameterCatalog& catalog, double bound);

// The fairseq Xavier convention for one Linear: attention input projections use gain
// 1/sqrt(2) per d x d block (the variance 1/(2d) that fairseq's packed 3d x d matrix gets);
// packed depth-wise LSTM gates get Glorot per gate; everything else plain Glorot on the whole
// matrix.
void xavier_linear(LinearEntry& entry, double gain_multiplier = 1.0);

}  // namespace fathom
