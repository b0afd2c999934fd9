#include "core/model/depth_parameterization.h"

#include <cmath>

#include "base/config/config_io.h"
#include "core/model/registry.h"

namespace fathom {

double parameterization_alpha(const std::string& name) {
  if (name == "standard") return 0.0;
  if (name == "depth_mup") return 0.5;
  if (name == "completep") return 1.0;
  throw std::invalid_argument("model.parameterization: '" + name +
                              "' is none of standard, depth_mup, completep");
}

namespace {
// m_L = L / L_base.
double depth_ratio(const ModelConfig& config, int stack_layers) {
  return static_cast<double>(stack_layers) / static_cast<double>(config.base_depth);
}
}  // namespace

double branch_multiplier(const ModelConfig& config, int stack_layers) {
  const double alpha = parameterization_alpha(config.parameterization);
  return alpha == 0.0 ? 1.0 : std::pow(depth_ratio(config, stack_layers), -alpha);
}

double stack_lr_scale(const ModelConfig& config, int stack_layers) {
  const double alpha = parameterization_alpha(config.parameterization);
  return alpha == 0.0 ? 1.0 : std::pow(depth_ratio(config, stack_layers), alpha - 1.0);
}

double stack_eps_scale(const ModelConfig& config, int stack_layers) {
  return branch_multiplier(config, stack_layers);  // the same m_L^-alpha
}

std::vector<ParameterGroup> parameter_groups(torch::nn::Module& model, const ModelConfig& config) {
  if (parameterization_alpha(config.parameterization) == 0.0) {
    ParameterGroup all{"all", 1.0, 1.0, {}};
    for (const auto& p : model.named_parameters()) all.parameters.emplace_back(p.key(), p.value());
    return {all};
  }
  // Module paths: the stacks are registered as "encoder" and "decoder" (the one stack of a
  // decoder-only model is "decoder"); their final norms as "<stack>_final_norm" inside them.
  const int encoder_layers = is_decoder_only(config) ? 0 : config.encoder_layers;
  const int decoder_layers = config.decoder_layers;
  std::vector<ParameterGroup> groups;
  if (encoder_layers > 0)
    groups.push_back({"encoder",
                      stack_lr_scale(config, encoder_layers),
                      stack_eps_scale(config, encoder_layers),
                      {}});
  groups.push_back({"decoder",
                    stack_lr_scale(config, decoder_layers),
                    stack_eps_scale(config, decoder_layers),
                    {}});
  groups.push_back({"outside", 1.0, stack_eps_scale(config, decoder_layers), {}});
  auto group = [&](const std::string& name) -> ParameterGroup& {
    for (auto& g : groups)
      if (g.name == name) return g;
    throw std::logic_error("no parameter group " + name);
  };
  for (const auto& p : model.named_parameters()) {
    const std::string& name = p.key();
    const bool final_norm = name.find("_final_norm.") != std::string::npos;
    std::string where = "outside";
    if (!final_norm && name.rfind("encoder.", 0) == 0) where = "encoder";
    if (!final_norm && name.rfind("decoder.", 0) == 0) where = "decoder";
    group(where).parameters.emplace_back(name, p.value());
  }
  return groups;
}

void check_parameterization(const RunConfig& config) {
  const ModelConfig& m = config.model;
  if (m.parameterization == "standard") return;
  const std::string why = "model.parameterization '" + m.parameterization + "' ";
  if (m.connection != "residual")
    config_error(config, "model.connection",
                 why + "scales residual branches; it needs connection: residual");
  if (m.init != "xavier")
    config_error(config, "model.init",
                 why + "keeps the initialization independent of depth; init '" + m.init +
                     "' is not (use init: xavier)");
  if (resolve_sublayer_style(m) != "pre" || !m.decoder_norm.empty())
    config_error(config, "model.norm",
                 why + "is defined for Pre-LN stacks (Dey et al. 2025); use norm: pre");
  // Its learning-rate and epsilon factors are derived for Adam's update; Muon's orthogonalized
  // one scales otherwise with depth, and no rule for it is implemented.
  if (config.train.optimizer == "muon")
    config_error(config, "train.optimizer",
                 why +
                     "scales Adam's learning rates and epsilon with depth; it has no rule for "
                     "Muon's update (use optimizer: adam or radam, or parameterization: "
                     "standard)");
}

}  // namespace fathom
