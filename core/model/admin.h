#pragma once
// Admin (Liu et al. 2020, "Understanding the Difficulty of Training Transformers", s4.3 and
// Appendix C; methods.md s3): Post-LN sub-layers x_k = LN(omega_k * x_{k-1} + drop(f_k)),
// omega_k a learnable d-vector set by profiling one forward pass on the first batch.
//
// The profile, the fold-back into a plain Post-LN model and the JSON form of a profile live
// here; the sub-layer style and the init registration are in admin_init.cpp.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "core/model/sublayer_id.h"
#include "core/model/transformer.h"

namespace fathom {

// The profiled scalars r_k (omega_k = r_k in every element at initialization), one per
// sub-layer of each stack in forward order. The first value of each chain is 1.
struct AdminProfile {
  std::vector<double> encoder;  // 2N values
  std::vector<double> decoder;  // 3M values

  std::string to_json() const;
  // Parses a profile; errors name `origin` (a file or "run 12").
  static AdminProfile from_json(const std::string& text, const std::string& origin);
};

// Runs the profiling pass (methods.md s3): one forward pass in train mode on `batch`, no
// update, setting omega_k = r before sub-layer k and r <- sqrt(Var[omega_k x_{k-1}] +
// Var[drop(f_k)]) after it, with r = 1 at the first sub-layer of each stack. Leaves the
// model's omegas at the profile and returns it. The model must be built with init "admin".
AdminProfile profile_admin(TransformerImpl& model, const torch::Tensor& source,
                           const torch::Tensor& target_in);

// Sets every omega_k to r_k. Throws std::invalid_argument when the profile's lengths do not
// match the model's sub-layer counts.
void apply_admin_profile(TransformerImpl& model, const AdminProfile& profile);

// The omega vectors of an Admin model, by sub-layer (for reports and tests).
struct AdminOmega {
  SublayerId id;
  torch::Tensor omega;  // [d]
};
std::vector<AdminOmega> admin_omegas(TransformerImpl& model);

// Admin Appendix C: an equivalent plain Post-LN model (init "xavier", norm "post") whose
// outputs equal `admin`'s to float precision. For sub-layer k >= 2 of a stack, the gamma and
// beta of the LayerNorm that produced x_{k-1} are multiplied by omega_k, and the input
// columns of every projection that reads x_{k-1} in sub-layer k (self-attention Q, K, V;
// encoder-attention Q; FFN W1) are divided by omega_k. The first sub-layer of each stack
// reads the embedding, which no LayerNorm produced, so its omega is fixed at 1 (a buffer).
Transformer fold_admin(TransformerImpl& admin);

}  // namespace fathom
