#pragma once
// Depth-wise parameterizations (model.parameterization; methods.md s3.1, docs/methods-notes.md):
// rules that rescale residual branches and the optimizer's hyperparameters with depth so that a
// learning rate tuned at L_base layers (model.base_depth) transfers to L layers. Both are the
// alpha-family of Dey et al. 2025 (arXiv 2505.01618, table 1), with m_L = L / L_base:
//   branch:   x_{l+1} = x_l + m_L^-alpha * F_l(x_l)
//   Adam lr:  hidden weights, their biases, in-stack LayerNorms: eta * m_L^(alpha-1);
//             embeddings, final norms: eta
//   Adam eps: eps * m_L^-alpha
//   init:     unchanged with depth (table 1's sigma_base^2 / m_N has no depth factor)
// depth_mup is alpha = 1/2 (Yang et al. 2023, arXiv 2310.02244; Bordelon et al. 2023, arXiv
// 2309.16620), completep alpha = 1. Width is held at the base width (m_N = 1). In an
// encoder-decoder model each stack is scaled by its own L (N or M).
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "base/config/config.h"

namespace fathom {

// alpha of model.parameterization: 0 (standard), 0.5 (depth_mup), 1 (completep).
double parameterization_alpha(const std::string& name);

// m_L^-alpha for a stack of `stack_layers` layers: what each residual branch is multiplied by.
double branch_multiplier(const ModelConfig& config, int stack_layers);
// m_L^(alpha-1): the learning-rate factor of a stack's parameters.
double stack_lr_scale(const ModelConfig& config, int stack_layers);
// m_L^-alpha: the Adam epsilon factor of a stack's parameters.
double stack_eps_scale(const ModelConfig& config, int stack_layers);

// Parameters that share a learning rate and an epsilon in the optimizer.
struct ParameterGroup {
  std::string name;        // "all" (standard), "encoder", "decoder", "outside"
  double lr_scale = 1.0;   // times the scheduled learning rate
  double eps_scale = 1.0;  // times train.eps
  std::vector<std::pair<std::string, torch::Tensor>> parameters;
};

// The model's parameters in optimizer groups: one group under `standard`; otherwise the
// encoder's and the decoder's in-stack parameters and the rest ("outside": embeddings, final
// norms, sigma-Reparam scales), whose lr is unscaled and whose eps takes the decoder stack's
// factor (the one stack of a decoder-only model, as the paper's single eps).
std::vector<ParameterGroup> parameter_groups(torch::nn::Module& model, const ModelConfig& config);

// Config errors (file, line, key) where a parameterization cannot apply: the rules are for
// Pre-LN residual stacks with a depth-independent init.
void check_parameterization(const RunConfig& config);

}  // namespace fathom
