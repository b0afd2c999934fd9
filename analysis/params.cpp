#include "analysis/params.h"

#include <algorithm>
#include <stdexcept>

namespace fathom::analysis {
namespace {

using P = AnalysisParams;
using Bound = AnalysisOption::Bound;

// output-shift's options.
std::vector<AnalysisOption> output_shift_options() {
  return {
      {"depths",
       &P::depths,
       "depths N (the encoder, or a decoder-only model's stack), e.g. 1,2,4,8",
       {},
       Bound::Positive,
       true},
      {"perturb",
       &P::perturb,
       "random: W + eps*sign(noise); update: W + the first Adam step at the config's train.lr; "
       "sign: W - eps*sign(grad) (what 'update' meant before: the first step where lr = eps)",
       {"random", "update", "sign"}},
      {"inputs",
       &P::inputs,
       "fixed: x0 stays as it is, embeddings never perturbed (methods.md s5.2); perturbed: "
       "embeddings too (this analysis's behaviour before, kept to compare)",
       {"fixed", "perturbed"}},
      {"draws", &P::draws, "random perturbations averaged", {}, Bound::Positive},
      {"inits",
       &P::inits,
       "initializations averaged per depth (seeds train.seed, +1, ...)",
       {},
       Bound::Positive},
      {"eps", &P::eps, "perturbation size", {}, Bound::NonNegative},
  };
}

// linearize's options.
std::vector<AnalysisOption> linearize_options() {
  return {
      {"layers", &P::layers, "layers to replace, 1-based: enc:1-6,dec:1-6 (default all)", {}},
      {"objective",
       &P::objective,
       "task: the training loss; mse: to F_l's output",
       {"task", "mse"}},
      {"lstm-map",
       &P::lstm_map,
       "depth-wise LSTM layers: full: [o; c] -> [o; c] (2d -> 2d, 4x the residual map's "
       "weights); output: o -> o with the cell carried through (d -> d, the residual map's count)",
       {"full", "output"}},
      {"steps",
       &P::steps,
       "most Adam updates of W, b per layer (0: least squares only)",
       {},
       Bound::NonNegative},
      {"lr", &P::lr, "Adam learning rate of W, b", {}, Bound::Positive},
      {"eval-every",
       &P::eval_every,
       "updates between validation checks (early stopping)",
       {},
       Bound::Positive},
      {"patience",
       &P::patience,
       "validation checks without improvement before W, b stop training",
       {},
       Bound::Positive},
  };
}

// The curvature and gradient-statistics analyses' options, and the device.
std::vector<AnalysisOption> curvature_options() {
  return {
      {"iterations",
       &P::iterations,
       "most Lanczos steps, one Hessian-vector product each (stops earlier once lambda_max's "
       "residual is under 1e-4 of it)",
       {},
       Bound::Positive},
      {"lanczos-steps",
       &P::lanczos_steps,
       "Lanczos steps for each block, one Hessian-vector product each: the nodes of its "
       "spectral density (the cost is steps x blocks products)",
       {},
       Bound::Positive},
      {"sentences",
       &P::sentences,
       "the first training batch's first N pairs the Hessian is taken on (0: the whole batch)",
       {},
       Bound::NonNegative},
      {"batches",
       &P::batches,
       "training batches whose gradients are compared, at least 2: the noise scale's jackknife "
       "is over them (the cost is 2 x batches backward passes)",
       {},
       Bound::Positive},
      {"batching",
       &P::batching,
       "random: batches of training pairs drawn at random (seeded by train.seed) up to "
       "data.max_tokens, the i.i.d. sample the noise scale's 1/B law assumes; run: the run's "
       "own length-bucketed batches, epoch 0's first in its order",
       {"random", "run"}},
      {"device",
       &P::device,
       "where the model computes: cpu, cuda or cuda:N (an 18-layer base model's gradient norms "
       "take a minute on 5 cores, well under a second on a GPU)",
       {}},
  };
}

std::vector<AnalysisOption> declare_options() {
  std::vector<AnalysisOption> all = output_shift_options();
  for (auto part : {linearize_options(), curvature_options()})
    all.insert(all.end(), part.begin(), part.end());
  return all;
}

}  // namespace

const std::vector<AnalysisOption>& analysis_options() {
  static const std::vector<AnalysisOption> options = declare_options();
  return options;
}

const AnalysisOption& find_analysis_option(const std::string& flag) {
  for (const auto& o : analysis_options())
    if (o.flag == flag) return o;
  throw std::logic_error("analysis option without a declaration in analysis/params.cpp: " + flag);
}

std::string option_key(const std::string& flag) {
  std::string key = flag;
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

nlohmann::json AnalysisParams::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& o : analysis_options())
    std::visit([&](auto member) { j[option_key(o.flag)] = this->*member; }, o.field);
  j["sample_batches"] = sample_batches;
  return j;
}

}  // namespace fathom::analysis
