// Admin fold-back (Liu et al. 2020, Appendix C): omega removed exactly by rescaling the
// LayerNorm before each sub-layer and the projections that read its output.
#include <map>

#include "core/model/admin.h"

namespace fathom {

Transformer fold_admin(TransformerImpl& admin) {
  // sigma-Reparam divides each W by its own spectral norm: rescaling W's columns by omega
  // would change that norm, so the fold would not be exact.
  if (admin.config().sigma_reparam)
    throw std::invalid_argument("an Admin model with model.sigma_reparam cannot be folded exactly");
  ModelConfig folded_config = admin.config();
  folded_config.init = "xavier";
  folded_config.norm = "post";
  folded_config.admin.profile.clear();
  Transformer folded(folded_config, admin.vocab_size());
  torch::NoGradGuard no_grad;

  // Same module names apart from omega, so parameters copy by name.
  auto source = admin.named_parameters();
  for (auto& p : folded->named_parameters()) {
    const torch::Tensor* from = source.find(p.key());
    if (!from)
      throw std::logic_error("fold_admin: no parameter " + p.key() + " in the Admin model");
    p.value().copy_(*from);
  }
  folded->to(admin.parameters().front().device());

  std::map<std::string, torch::nn::LayerNorm> norms;
  for (auto& n : folded->catalog().norms) norms.emplace(n.name, n.norm);
  std::map<std::pair<Stack, int>, SublayerId> by_index;
  const auto omegas = admin_omegas(admin);
  for (const auto& o : omegas) by_index[{o.id.stack, o.id.index}] = o.id;

  for (const auto& o : omegas) {
    if (o.id.index == 0) continue;  // omega_1 is fixed at 1 (see admin.h)
    const SublayerId& previous = by_index.at({o.id.stack, o.id.index - 1});
    torch::nn::LayerNorm& norm = norms.at(previous.name() + ".post_norm");
    norm->weight.mul_(o.omega);
    norm->bias.mul_(o.omega);
    for (auto& l : folded->catalog().linears) {
      if (l.owner.stack != o.id.stack || l.owner.index != o.id.index) continue;
      const bool reads_input = l.role == LinearRole::AttentionQkv ||
                               l.role == LinearRole::AttentionQuery ||
                               l.role == LinearRole::FfnIn || l.role == LinearRole::AttentionGate;
      // Weight [out, in]: input column j reads element j of x_{k-1}.
      if (reads_input) l.linear->weight.div_(o.omega.unsqueeze(0));
    }
  }
  return folded;
}

}  // namespace fathom
