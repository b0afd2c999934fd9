#pragma once
// Inverse square-root learning-rate schedule with linear warmup (methods.md s1, fairseq's
// inverse_sqrt with warmup_init_lr = 0): for update u = 1, 2, ...
//   lr(u) = peak * u / warmup             for u <= warmup
//   lr(u) = peak * sqrt(warmup / u)       after;   warmup = 0 gives a constant peak.
#include <cstdint>

namespace fathom {

double inverse_sqrt_lr(int64_t update, double peak, int64_t warmup);

}  // namespace fathom
