// `fathom analyze block-hessian RUN|CONFIG`: the Hessian of the training loss block by block
// (core/train/block_hessian.h; methods.md s5.11; Zhang et al. 2024, arXiv 2402.16788): for every
// weight matrix (packed projections split into Q, K, V), the extremes of its diagonal block's
// spectrum and one start's quadrature of its spectral density, on the first training batch's
// first --sentences pairs, dropout off, float32; and how many decades the blocks' largest
// eigenvalues span -- what one learning rate for every block would have to straddle.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <ostream>

#include "analysis/registry.h"
#include "base/metrics/statistics.h"
#include "base/util/json_number.h"
#include "base/util/progress.h"
#include "core/data/batch.h"
#include "core/model/higher_order_grad.h"
#include "core/model/observed_eval.h"
#include "core/train/block_hessian.h"
#include "core/train/sharpness.h"

namespace fathom::analysis {
namespace {

// The first `n` pairs of the subject's first training batch (all of them for n = 0 or more
// than it has), collated again so that their padding and counts are their own.
Batch first_pairs(const Subject& s, int64_t n) {
  if (n <= 0 || n >= s.batch.rows()) return s.batch;
  const std::vector<std::size_t> ids(s.batch.ids.begin(), s.batch.ids.begin() + n);
  return collate(s.data->train, ids).to(s.batch.src.device());
}

// The population standard deviation (0 for one value): how far the blocks' log10 lambda_max
// lie from their mean -- every block weighs in, where the spread is two blocks' ratio. The
// blocks are all there are, not a sample: summarize's n - 1 becomes n.
double population_sd(const std::vector<double>& x) {
  const SampleSummary s = summarize(x);
  return s.std ? *s.std * std::sqrt((s.n - 1.0) / s.n) : 0.0;
}

nlohmann::json block_json(const HessianBlock& b, const ExtremeEigen& e) {
  return {{"block", b.name},
          {"kind", b.kind},
          {"stack", b.stack},
          {"layer", b.layer},
          {"params", b.size},
          {"lambda_max", e.largest},
          {"lambda_max_residual", e.largest_residual},
          {"lambda_min", e.smallest},
          {"lambda_min_residual", e.smallest_residual},
          {"steps", e.iterations},
          {"ritz_values", e.ritz_values},
          {"ritz_weights", e.ritz_weights}};
}

nlohmann::json run_block_hessian(std::vector<Subject>& subjects, const AnalysisParams& params) {
  Subject& s = subjects.at(0);
  move_subject_to(s, params.device);  // steps x blocks Hessian-vector products: a GPU's work
  const Batch batch = first_pairs(s, params.sentences);
  TransformerImpl& model = *s.model;
  TensorList trainable;
  for (const auto& p : model.parameters())
    if (p.requires_grad()) trainable.push_back(p);
  ObservedEval eval(model, nullptr);  // dropout off; the training flag restored after
  HigherOrderGradScope twice_differentiable;
  const LossHessian hessian(
      [&] {
        return training_objective(model, batch, s.config.train.label_smoothing,
                                  s.config.train.z_loss);
      },
      trainable);
  const std::vector<HessianBlock> blocks = hessian_blocks(model.catalog(), trainable);
  nlohmann::json out_blocks = nlohmann::json::array();
  ProgressBar bar("block-hessian", static_cast<int64_t>(blocks.size()), params.progress);
  // The stiffest and softest blocks by lambda_max, among those with positive curvature.
  double most = 0, least = std::numeric_limits<double>::infinity();
  std::string stiffest, softest;
  std::vector<double> decades;  // log10 lambda_max of those blocks
  for (size_t i = 0; i < blocks.size(); ++i) {
    const std::uint64_t seed = s.config.train.seed * 0x9E3779B97F4A7C15ull + i;
    const ExtremeEigen e =
        block_spectrum(hessian, blocks[i], trainable, params.lanczos_steps, seed);
    out_blocks.push_back(block_json(blocks[i], e));
    if (e.largest > most) most = e.largest, stiffest = blocks[i].name;
    if (e.largest > 0 && e.largest < least) least = e.largest, softest = blocks[i].name;
    if (e.largest > 0 && std::isfinite(e.largest)) decades.push_back(std::log10(e.largest));
    bar.update(static_cast<int64_t>(i + 1), blocks[i].name);
  }
  bar.finish(std::to_string(blocks.size()) + " blocks");
  nlohmann::json result{{"blocks", out_blocks},
                        {"steps", params.lanczos_steps},
                        {"sentences", batch.rows()},
                        {"target_tokens", batch.tgt_tokens}};
  if (!stiffest.empty()) {
    result["stiffest"] = stiffest;
    result["softest"] = softest;
    result["spread_decades"] = std::log10(most / least);
    result["log10_lambda_max_sd"] = population_sd(decades);
  }
  return result;
}

void print_block_hessian(const nlohmann::json& r, std::ostream& out) {
  out << "each weight matrix's block of the training loss's Hessian, on "
      << r.at("sentences").get<long long>() << " sentences of the first training batch ("
      << r.at("target_tokens").get<long long>() << " target tokens), dropout off; "
      << r.at("steps").get<int>() << " Lanczos steps a block\n";
  char line[200];
  std::snprintf(line, sizeof line, "  %-26s %9s %12s %10s %12s %10s\n", "block", "params",
                "lambda_max", "+-", "lambda_min", "+-");
  out << line;
  for (const auto& b : r.at("blocks")) {
    std::snprintf(line, sizeof line, "  %-26s %9lld %12.5g %10.2g %12.5g %10.2g\n",
                  b.at("block").get<std::string>().c_str(), b.at("params").get<long long>(),
                  number_or_nan(b.at("lambda_max")), number_or_nan(b.at("lambda_max_residual")),
                  number_or_nan(b.at("lambda_min")), number_or_nan(b.at("lambda_min_residual")));
    out << line;
  }
  if (!r.contains("spread_decades")) return;
  std::snprintf(line, sizeof line,
                "lambda_max spans %.2f decades: stiffest %s, softest %s; its log10 has standard "
                "deviation %.2f over the blocks (those with positive curvature)\n",
                r.at("spread_decades").get<double>(), r.at("stiffest").get<std::string>().c_str(),
                r.at("softest").get<std::string>().c_str(),
                r.value("log10_lambda_max_sd", std::nan("")));
  out << line;
}

}  // namespace

void register_block_hessian(AnalysisRegistry& registry) {
  Analysis a;
  a.doc =
      "the training loss's Hessian block by block: each weight matrix's (Q, K, V apart) largest "
      "and smallest eigenvalue and spectral density, by the Lanczos iteration (Zhang et al. "
      "2024, block heterogeneity; methods.md s5.11)";
  a.options = {"lanczos-steps", "sentences", "device"};
  a.run = run_block_hessian;
  a.print = print_block_hessian;
  a.reads_decoder_only = true;
  registry.add("block-hessian", std::move(a));
}

}  // namespace fathom::analysis
