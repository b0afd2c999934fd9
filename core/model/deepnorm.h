#pragma once
// DeepNorm (Wang et al. 2022, "DeepNet: Scaling Transformers to 1,000 Layers"; methods.md s3)
// for an encoder-decoder with N encoder and M decoder layers:
//   encoder alpha = 0.81 (N^4 M)^(1/16), beta = 0.87 (N^4 M)^(-1/16)
//   decoder alpha = (3M)^(1/4),          beta = (12M)^(-1/4)
// and for a decoder-only model of M layers (encoder_layers = 0; DeepNet s4.2's
// decoder-only case): alpha = (2M)^(1/4), beta = (8M)^(-1/4).
#include "core/model/sublayer_id.h"

namespace fathom {

struct DeepNormConstants {
  double alpha;  // shortcut scale: x_k = LN(alpha x_{k-1} + f_k(x_{k-1}))
  double beta;   // Xavier gain of the FFN, value and attention-output projections
};

DeepNormConstants deepnorm_constants(Stack stack, int encoder_layers, int decoder_layers);

}  // namespace fathom
