// `fathom analyze noise-scale RUN|CONFIG`: the gradient noise scale B_simple = tr(Sigma) / |G|^2
// (McCandlish et al. 2018, arXiv 1812.06162; base/metrics/noise_scale.h; methods.md s5.12) of
// the training loss at a checkpoint or at initialization, over --batches training batches
// (--batching random: pairs drawn at random; run: the run's own, epoch 0's first), dropout off: for
// the whole model, each layer and each weight matrix (the blocks of core/train/block_hessian.h).
// Every batch's gradient is taken twice -- once to form their token-weighted mean G_K, once to
// project onto it -- so the memory is two models' worth whatever the number of batches.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <random>

#include "analysis/registry.h"
#include "base/metrics/noise_scale.h"
#include "base/util/error.h"
#include "base/util/json_number.h"
#include "base/util/progress.h"
#include "core/data/batch_plan.h"
#include "core/data/rng.h"
#include "core/model/observed_eval.h"
#include "core/train/batch_stream.h"
#include "core/train/block_hessian.h"
#include "core/train/sharpness.h"

namespace fathom::analysis {
namespace {

// The stream of the random batches' order, apart from every other use of train.seed.
constexpr std::uint64_t kNoiseBatchStream = 0x6e6f697365ULL;  // "noise"

[[noreturn]] void too_many(int k, size_t batches) {
  throw InputError("fathom analyze noise-scale", 0, "--batches",
                   k < 2 ? "needs at least 2 batches, got " + std::to_string(k)
                         : "needs between 2 and the " + std::to_string(batches) +
                               " batches of an epoch, got " + std::to_string(k));
}

// The run's own batching of its training pairs.
BatchPlan run_plan(const Subject& s) {
  return plan_batches(s.data->train, s.config.data.max_tokens, s.config.data.pad_to_multiple);
}

// Epoch 0's first `k` batches of `plan`, the run's, in its order (the trainer's first k).
std::vector<Batch> run_batches(const Subject& s, const BatchPlan& plan, int k) {
  if (k < 2 || static_cast<size_t>(k) > plan.size()) too_many(k, plan.size());
  BatchStream stream(s.data->train, plan, s.config.train.seed, 0, 0);
  std::vector<Batch> out;
  for (int i = 0; i < k; ++i) out.push_back(stream.next());
  return out;
}

// `k` batches of training pairs drawn without replacement in a seeded random order, each filled
// up to data.max_tokens (padded, as the trainer counts it): every batch an i.i.d. sample of
// pairs, of every length together -- not the length-bucketed batches, between which the mean
// gradient differs by length (a difference the 1/B law does not have, which would inflate
// B_simple with the batch budget).
std::vector<Batch> random_batches(const Subject& s, int k) {
  const TokenPairs& train = s.data->train;
  std::mt19937_64 rng(derive_seed(s.config.train.seed, kNoiseBatchStream));
  const std::vector<std::size_t> order = random_permutation(train.size(), rng);  // portable
  std::vector<Batch> out;
  std::vector<std::size_t> ids;
  for (std::size_t id : order) {
    ids.push_back(id);
    if (ids.size() > 1 &&
        padded_tokens(train, ids, s.config.data.pad_to_multiple) > s.config.data.max_tokens) {
      ids.pop_back();
      out.push_back(collate(train, ids));
      ids = {id};
      if (static_cast<int>(out.size()) == k) return out;
    }
  }
  if (!ids.empty()) out.push_back(collate(train, ids));
  if (static_cast<int>(out.size()) < k) too_many(k, out.size());
  return out;
}

std::vector<Batch> training_batches(const Subject& s, const AnalysisParams& p,
                                    torch::Device device) {
  if (p.batches < 2) too_many(p.batches, 0);
  std::vector<Batch> out =
      p.batching == "run" ? run_batches(s, run_plan(s), p.batches) : random_batches(s, p.batches);
  for (auto& b : out) b = b.to(device);
  return out;
}

// The run's update in target tokens: one of its own batches (random ones pad more for the same
// budget), or train.update_tokens when batches accumulate (an update reads batches until it
// holds that many). `measured`: the mean of the batches read, when they are the run's.
double update_size(const Subject& s, const AnalysisParams& p, double measured) {
  double batch = measured;
  if (p.batching != "run") {  // the random batches are not the run's: plan the run's
    const BatchPlan plan = run_plan(s);
    if (plan.size() >= 2) {
      const int k = static_cast<int>(std::min<size_t>(plan.size(), std::max(p.batches, 2)));
      double tokens = 0;
      for (const Batch& b : run_batches(s, plan, k)) tokens += static_cast<double>(b.tgt_tokens);
      batch = tokens / k;
    }
  }
  const double accumulated = s.config.train.update_tokens;
  return accumulated > 0 ? std::max(accumulated, batch) : batch;
}

// The training objective's gradient on one batch (zeros for a parameter it does not reach).
TensorList batch_gradient(TransformerImpl& model, const Batch& batch, const TensorList& params,
                          const RunConfig& config) {
  const torch::Tensor loss =
      training_objective(model, batch, config.train.label_smoothing, config.train.z_loss);
  TensorList g = torch::autograd::grad({loss}, params, {}, false, false, true);
  for (size_t i = 0; i < g.size(); ++i)
    if (!g[i].defined()) g[i] = torch::zeros_like(params[i]);
  return g;
}

double dot64(const torch::Tensor& a, const torch::Tensor& b) {
  return torch::dot(a.flatten().to(torch::kFloat64), b.flatten().to(torch::kFloat64))
      .item<double>();
}

torch::Tensor rows_of(const TensorList& g, const HessianBlock& b) {
  return g[b.parameter].narrow(0, b.first_row, b.rows);
}

// Readings for the whole model (index 0) and every block (1 + i).
struct Readings {
  std::vector<NoiseScaleReadings> groups;
  void record(size_t group, double tokens, double sq_norm) {
    groups[group].tokens.push_back(tokens);
    groups[group].sq_norms.push_back(sq_norm);
  }
};

Readings read_batches(TransformerImpl& model, const std::vector<Batch>& batches,
                      const TensorList& params, const std::vector<HessianBlock>& blocks,
                      const RunConfig& config, bool progress) {
  Readings r;
  r.groups.resize(1 + blocks.size());
  ProgressBar bar("noise-scale", static_cast<int64_t>(2 * batches.size()), progress);
  TensorList mean;  // sum_b T_b g_b, then G_K
  double total = 0;
  for (size_t b = 0; b < batches.size(); ++b) {
    const TensorList g = batch_gradient(model, batches[b], params, config);
    const double tokens = static_cast<double>(batches[b].tgt_tokens);
    total += tokens;
    r.record(0, tokens, dot(g, g));
    for (size_t i = 0; i < blocks.size(); ++i) {
      const torch::Tensor rows = rows_of(g, blocks[i]);
      r.record(1 + i, tokens, dot64(rows, rows));
    }
    if (mean.empty())
      for (const auto& t : g) mean.push_back(t * tokens);
    else
      for (size_t i = 0; i < g.size(); ++i) mean[i].add_(g[i], tokens);
    bar.update(static_cast<int64_t>(b + 1), "mean gradient");
  }
  for (auto& t : mean) t.div_(total);
  // The same gradients again (dropout off: the same numbers), each projected onto G_K.
  for (size_t b = 0; b < batches.size(); ++b) {
    const TensorList g = batch_gradient(model, batches[b], params, config);
    r.groups[0].dots.push_back(dot(mean, g));
    for (size_t i = 0; i < blocks.size(); ++i)
      r.groups[1 + i].dots.push_back(dot64(rows_of(mean, blocks[i]), rows_of(g, blocks[i])));
    bar.update(static_cast<int64_t>(batches.size() + b + 1), "projections");
  }
  bar.finish(std::to_string(batches.size()) + " batches");
  return r;
}

// An estimate as JSON; infinities (no signal resolved) as null.
nlohmann::json estimate_json(const NoiseScaleEstimate& e, double tokens_per_sentence) {
  return {{"trace", e.trace},
          {"trace_se", e.trace_se},
          {"grad_sq", e.grad_sq},
          {"grad_sq_se", e.grad_sq_se},
          {"mean_grad_sq", e.mean_grad_sq},
          {"b_simple", number_or_null(e.b_simple)},
          {"b_low", number_or_null(e.b_low)},
          {"b_high", number_or_null(e.b_high)},
          {"b_simple_sentences", number_or_null(e.b_simple / tokens_per_sentence)},
          {"resolved", e.resolved}};
}

nlohmann::json run_noise_scale(std::vector<Subject>& subjects, const AnalysisParams& params) {
  Subject& s = subjects.at(0);
  move_subject_to(s, params.device);  // 2 x batches backward passes: a GPU's work
  const std::vector<Batch> batches = training_batches(s, params, s.batch.src.device());
  TransformerImpl& model = *s.model;
  TensorList trainable;
  for (const auto& p : model.parameters())
    if (p.requires_grad()) trainable.push_back(p);
  const std::vector<HessianBlock> blocks = hessian_blocks(model.catalog(), trainable);
  ObservedEval eval(model, nullptr);  // dropout off; the training flag restored after
  const Readings r = read_batches(model, batches, trainable, blocks, s.config, params.progress);

  double tokens = 0, sentences = 0;
  for (const auto& b : batches) tokens += b.tgt_tokens, sentences += b.rows();
  const double per_sentence = tokens / sentences;
  const NoiseScaleEstimate whole = estimate_noise_scale(r.groups[0]);
  nlohmann::json model_json = estimate_json(whole, per_sentence);
  const double k = static_cast<double>(batches.size());
  const double update = update_size(s, params, tokens / k);
  if (std::isfinite(whole.b_simple) && whole.b_simple > 0) {
    // McCandlish et al. eq. 2.11 with B_simple for B_noise: steps S = S_min (1 + B_noise / B),
    // examples E = E_min (1 + B / B_noise).
    model_json["steps_over_min"] = 1 + whole.b_simple / update;
    model_json["data_over_min"] = 1 + update / whole.b_simple;
  }

  std::map<std::pair<std::string, int>, NoiseScaleReadings> layers;  // (stack, layer)
  nlohmann::json out_blocks = nlohmann::json::array();
  for (size_t i = 0; i < blocks.size(); ++i) {
    const HessianBlock& b = blocks[i];
    nlohmann::json j = estimate_json(estimate_noise_scale(r.groups[1 + i]), per_sentence);
    j.update({{"block", b.name},
              {"kind", b.kind},
              {"stack", b.stack},
              {"layer", b.layer},
              {"params", b.size}});
    out_blocks.push_back(j);
    if (b.layer >= 0) layers[{b.stack, b.layer}].add(r.groups[1 + i]);
  }
  nlohmann::json out_layers = nlohmann::json::array();
  for (const std::string stack : {"enc", "dec"})
    for (const auto& [key, readings] : layers) {
      if (key.first != stack) continue;
      nlohmann::json j = estimate_json(estimate_noise_scale(readings), per_sentence);
      j.update({{"group", stack + "." + std::to_string(key.second)},
                {"stack", stack},
                {"layer", key.second}});
      out_layers.push_back(j);
    }
  return {{"batches", batches.size()},
          {"batching", params.batching},
          {"target_tokens", tokens},
          {"tokens_per_batch", tokens / k},
          {"tokens_per_sentence", per_sentence},
          {"update_tokens", update},
          {"model", model_json},
          {"layers", out_layers},
          {"blocks", out_blocks}};
}

std::string interval_text(const nlohmann::json& e) {
  char text[96];
  const double low = number_or_nan(e.at("b_low"));
  if (e.at("b_high").is_null()) {
    std::snprintf(text, sizeof text, "[%.4g, inf)", std::isnan(low) ? INFINITY : low);
  } else {
    std::snprintf(text, sizeof text, "[%.4g, %.4g]", low, number_or_nan(e.at("b_high")));
  }
  return text;
}

void print_noise_scale(const nlohmann::json& r, std::ostream& out) {
  const nlohmann::json& m = r.at("model");
  char line[320];
  std::snprintf(line, sizeof line,
                "gradient noise scale over %lld training batches (%s, %.0f target tokens, %.1f a "
                "batch), dropout off\n",
                r.at("batches").get<long long>(),
                r.value("batching", "run") == "run" ? "the run's own, epoch 0's first"
                                                    : "pairs drawn at random",
                r.at("target_tokens").get<double>(), r.at("tokens_per_batch").get<double>());
  out << line;
  std::snprintf(line, sizeof line,
                "  B_simple = tr(Sigma) / |G|^2 = %.4g target tokens %s, %.3g sentences\n",
                number_or_nan(m.at("b_simple")), interval_text(m).c_str(),
                number_or_nan(m.at("b_simple_sentences")));
  out << line;
  std::snprintf(line, sizeof line, "  tr(Sigma) = %.4g +- %.2g per token, |G|^2 = %.4g +- %.2g\n",
                m.at("trace").get<double>(), m.at("trace_se").get<double>(),
                m.at("grad_sq").get<double>(), m.at("grad_sq_se").get<double>());
  out << line;
  if (m.contains("steps_over_min")) {
    std::snprintf(line, sizeof line,
                  "  an update of %.0f tokens: %.2fx the fewest steps, %.2fx the least data "
                  "(McCandlish et al. eq. 2.11)\n",
                  r.at("update_tokens").get<double>(), m.at("steps_over_min").get<double>(),
                  m.at("data_over_min").get<double>());
    out << line;
  }
  if (!m.at("resolved").get<bool>())
    out << "  |G|^2 is not resolved from the noise: B_simple is bounded below only (raise "
           "--batches)\n";
  std::snprintf(line, sizeof line, "  %-8s %12s %24s %12s %12s\n", "layer", "B_simple", "interval",
                "|G|^2", "tr(Sigma)");
  out << line;
  for (const auto& l : r.at("layers")) {
    std::snprintf(line, sizeof line, "  %-8s %12.4g %24s %12.4g %12.4g\n",
                  l.at("group").get<std::string>().c_str(), number_or_nan(l.at("b_simple")),
                  interval_text(l).c_str(), l.at("grad_sq").get<double>(),
                  l.at("trace").get<double>());
    out << line;
  }
}

}  // namespace

void register_noise_scale(AnalysisRegistry& registry) {
  Analysis a;
  a.doc =
      "the gradient noise scale B_simple = tr(Sigma)/|G|^2 (the critical batch's estimate, "
      "McCandlish et al. 2018) of the whole model, each layer and each weight matrix, over the "
      "run's training batches with a jackknife interval (methods.md s5.12)";
  a.options = {"batches", "batching", "device"};
  a.run = run_noise_scale;
  a.print = print_noise_scale;
  a.reads_decoder_only = true;
  registry.add("noise-scale", std::move(a));
}

}  // namespace fathom::analysis
