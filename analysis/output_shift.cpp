// `fathom analyze output-shift CONFIG... --depths 1,2,4,...`: see output_shift.h.
#include "analysis/output_shift.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>

#include "analysis/fit.h"
#include "analysis/registry.h"
#include "analysis/stream_decomposition.h"
#include "base/util/error.h"
#include "base/util/progress.h"
#include "core/train/device.h"
#include "core/train/loss.h"
#include "core/train/memory_check.h"

namespace fathom::analysis {
namespace {

// F(x0, W): the encoder's output, or a decoder-only model's one stack's output.
torch::Tensor standardized_output(TransformerImpl& model, const Batch& batch) {
  torch::Tensor y = is_decoder_only(model.config()) ? model.language_model_states(batch.tgt_in)
                                                    : model.encode(batch.src);
  return torch::layer_norm(y, {y.size(-1)});
}

// The tokens F is read at: the source's, or a language model's input's.
torch::Tensor output_mask(TransformerImpl& model, const Batch& batch) {
  return non_pad(is_decoder_only(model.config()) ? batch.tgt_in : batch.src);
}

// Mean over non-pad tokens of the squared L2 distance between two encodings.
double distance(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& mask) {
  return (a - b).to(torch::kFloat64).pow(2).sum(-1).index({mask}).mean().item<double>();
}

// The update each weight gets from the loss's gradient g at the current parameters (zero
// where W has no gradient): update: -lr * g / (|g| + adam_eps); sign: -eps * sign(g).
std::vector<torch::Tensor> gradient_steps(TransformerImpl& model, const Batch& batch,
                                          const std::vector<torch::Tensor>& weights,
                                          const ShiftOptions& options) {
  model.zero_grad();
  LossSums sums = label_smoothed_loss(model.forward(batch.src, batch.tgt_in), batch.tgt_out,
                                      options.label_smoothing);
  (sums.smoothed / static_cast<double>(std::max<int64_t>(sums.tokens, 1))).backward();
  std::vector<torch::Tensor> steps;
  for (const auto& w : weights) {
    if (!w.grad().defined()) {
      steps.push_back(torch::zeros_like(w));
      continue;
    }
    const torch::Tensor g = w.grad().detach();
    steps.push_back(options.perturb == "update" ? -options.lr * g / (g.abs() + options.adam_eps)
                                                : -options.eps * g.sign());
  }
  model.zero_grad();
  return steps;
}

// Mean and population std.
ShiftResult mean_and_std(const std::vector<double>& values) {
  ShiftResult r;
  for (double v : values) r.mean += v / values.size();
  for (double v : values) r.std += (v - r.mean) * (v - r.mean) / values.size();
  r.std = std::sqrt(r.std);
  return r;
}

std::vector<int> sorted_unique(std::vector<int> depths) {
  std::set<int> s(depths.begin(), depths.end());
  return {s.begin(), s.end()};
}

}  // namespace

std::vector<torch::Tensor> shift_weights(TransformerImpl& model, bool inputs_too) {
  std::vector<torch::Tensor> out;
  std::set<const void*> seen;
  auto add = [&](const torch::Tensor& t) {
    if (t.defined() && seen.insert(t.unsafeGetTensorImpl()).second) out.push_back(t);
  };
  // The embeddings first: a tied output projection is the same tensor, and must be left out
  // with them when the inputs stay fixed.
  std::set<const void*> embeddings;
  for (const auto& e : model.catalog().embeddings) {
    embeddings.insert(e.weight.unsafeGetTensorImpl());
    if (inputs_too) add(e.weight);
  }
  for (const auto& l : model.catalog().linears)
    if (!embeddings.count(l.linear->weight.unsafeGetTensorImpl())) add(l.linear->weight);
  return out;
}

ShiftResult output_shift(TransformerImpl& model, const Batch& batch, const ShiftOptions& options) {
  const std::string& perturb = options.perturb;
  if (perturb != "random" && perturb != "update" && perturb != "sign")
    throw std::invalid_argument("perturb must be random, update or sign, not '" + perturb + "'");
  const bool was_training = model.is_training();
  model.eval();
  const std::vector<torch::Tensor> weights = shift_weights(model, options.perturb_inputs);
  const torch::Tensor mask = output_mask(model, batch);
  std::vector<torch::Tensor> saved;
  for (const auto& w : weights) saved.push_back(w.detach().clone());

  std::vector<torch::Tensor> gradient_step;
  if (perturb != "random") gradient_step = gradient_steps(model, batch, weights, options);

  torch::NoGradGuard no_grad;
  const torch::Tensor reference = standardized_output(model, batch);
  const int draws = perturb == "random" ? std::max(1, options.draws) : 1;
  torch::manual_seed(options.seed);
  std::vector<double> values;
  for (int draw = 0; draw < draws; ++draw) {
    for (size_t i = 0; i < weights.size(); ++i)
      weights[i].add_(perturb == "random" ? options.eps * torch::randn_like(weights[i]).sign()
                                          : gradient_step[i]);
    values.push_back(distance(standardized_output(model, batch), reference, mask));
    for (size_t i = 0; i < weights.size(); ++i) weights[i].copy_(saved[i]);
  }
  model.train(was_training);

  return mean_and_std(values);
}

namespace {

// `config` with the stack F is read at -- the encoder, or a language model's one stack -- `n`
// layers deep.
RunConfig with_depth(const RunConfig& config, int n) {
  RunConfig out = config;
  (is_decoder_only(out.model) ? out.model.decoder_layers : out.model.encoder_layers) = n;
  return out;
}

// The perturbation `params` ask for, with the step a config's optimizer would take.
ShiftOptions shift_options(const RunConfig& config, const AnalysisParams& params) {
  ShiftOptions options;
  options.perturb = params.perturb;
  options.perturb_inputs = params.inputs == "perturbed";
  options.draws = params.draws;
  options.eps = params.eps;
  options.lr = config.train.lr;
  options.adam_eps = config.train.eps;
  options.seed = config.train.seed;
  options.label_smoothing = config.train.label_smoothing;
  return options;
}

nlohmann::json run_output_shift(std::vector<Subject>& subjects, const AnalysisParams& params) {
  if (params.depths.empty())
    throw InputError("fathom analyze output-shift", 0, "--depths", "give the depths to sweep");
  for (int n : params.depths)
    if (n < 1)
      throw InputError("fathom analyze output-shift", 0, "--depths",
                       "depths must be >= 1, got " + std::to_string(n));
  if (!(params.eps >= 0))
    throw InputError("fathom analyze output-shift", 0, "--eps", "must be >= 0");
  const std::vector<int> depths = sorted_unique(params.depths);
  // Every depth's model is checked before any is built: `--depths 1,1000000000` grew to 15 GB
  // after the first depth's work (issue 57 item 4).
  for (const Subject& s : subjects)
    for (int n : depths) check_model_fits(with_depth(s.config, n));
  // Each model is built and initialised on the CPU (Admin profiles on the CPU batch), then
  // perturbed and read where --device says: a GPU's random signs are its own generator's.
  const torch::Device device = resolve_device(params.device);
  ProgressBar bar("output-shift", static_cast<int64_t>(subjects.size() * depths.size()),
                  params.progress);
  nlohmann::json configs = nlohmann::json::array();
  int64_t done = 0;
  for (Subject& s : subjects) {
    ShiftOptions options = shift_options(s.config, params);
    const int inits = std::max(1, params.inits);
    const Batch batch = s.batch.to(device);
    std::vector<double> x, logx, shift, spread, seconds;
    for (int n : depths) {
      const auto start = std::chrono::steady_clock::now();
      // One model per initialization seed; with one init the spread is over draws, with
      // several it is over the inits' means (the init is the larger source of variance).
      std::vector<double> means;
      ShiftResult single;
      for (int i = 0; i < inits; ++i) {
        RunConfig config = with_depth(s.config, n);
        config.model.admin.profile.clear();  // a stored profile fits one depth only: re-profile
        config.train.seed = s.config.train.seed + static_cast<std::uint64_t>(i);
        Transformer model = model_at_init(config, s.vocab_size, s.batch);
        model->to(device);
        options.seed = config.train.seed;
        single = output_shift(*model, batch, options);
        means.push_back(single.mean);
      }
      const ShiftResult r = inits == 1 ? single : mean_and_std(means);
      x.push_back(n);
      logx.push_back(std::log(static_cast<double>(n)));
      shift.push_back(r.mean);
      spread.push_back(r.std);
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      bar.update(++done, s.config.name + " N=" + std::to_string(n));
    }
    configs.push_back({{"name", s.config.name},
                       {"label", s.label},
                       {"norm", s.config.model.norm},
                       {"init", s.config.model.init},
                       {"connection", s.config.model.connection},
                       {"arch", s.config.model.arch},
                       {"depths", depths},
                       {"shift", shift},
                       {"shift_std", spread},
                       {"seconds", seconds},
                       {"linear", fit_line(x, shift).to_json()},
                       {"log", fit_line(logx, shift).to_json()}});
  }
  bar.finish("done");
  const bool random = params.perturb == "random";
  return {{"perturb", params.perturb},
          {"inputs", params.inputs},
          {"eps", params.eps},
          {"draws", random ? params.draws : 1},
          {"inits", std::max(1, params.inits)},
          {"configs", configs}};
}

std::string r2_text(const nlohmann::json& fit) {
  if (fit.at("r2").is_null()) return "   n/a";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%6.3f", fit["r2"].get<double>());
  return buffer;
}

void print_output_shift(const nlohmann::json& result, std::ostream& out) {
  const auto& configs = result.at("configs");
  // Stored results from before decoder-only models have no "arch": the encoder's.
  size_t decoder_only = 0;
  for (const auto& c : configs) decoder_only += c.value("arch", "") == "decoder_only";
  out << "output change |F(x0,W) - F(x0,W*)|^2 per token at "
      << (decoder_only == 0                ? "the encoder output"
          : decoder_only == configs.size() ? "the output of the decoder-only stack"
                                           : "the encoder output (decoder-only: its one stack's)")
      << " (perturb " << result.at("perturb").get<std::string>() << ", eps "
      << result.at("eps").get<double>() << ", " << result.value("inits", 1) << " init(s))\n";
  char cell[64];
  out << "  N     ";
  for (size_t c = 0; c < configs.size(); ++c) {
    std::snprintf(cell, sizeof cell, " %14s", ("[" + std::to_string(c + 1) + "]").c_str());
    out << cell;
  }
  out << "\n";
  const auto depths = configs.at(0).at("depths").get<std::vector<int>>();
  for (size_t i = 0; i < depths.size(); ++i) {
    std::snprintf(cell, sizeof cell, "  %-6d", depths[i]);
    out << cell;
    for (const auto& c : configs) {
      std::snprintf(cell, sizeof cell, " %14.6g", c.at("shift").at(i).get<double>());
      out << cell;
    }
    out << "\n";
  }
  out << "  fits (y = a*N + b | y = a*log N + b):\n";
  for (size_t c = 0; c < configs.size(); ++c) {
    const auto& j = configs[c];
    std::snprintf(cell, sizeof cell, "  [%zu] ", c + 1);
    out << cell << j.at("name").get<std::string>() << " (" << j.at("label").get<std::string>()
        << ", " << j.at("norm").get<std::string>() << "/" << j.at("init").get<std::string>()
        << "): linear R^2 " << r2_text(j.at("linear")) << ", log R^2 " << r2_text(j.at("log"))
        << "\n";
  }
}

}  // namespace

void register_output_shift(AnalysisRegistry& registry) {
  Analysis a;
  a.doc =
      "output change |F(x0,W)-F(x0,W*)|^2 vs encoder depth (a decoder-only model: its one "
      "stack's), linear and log fits (Admin s4.2, methods.md s5.2)";
  a.reads_decoder_only = true;
  a.takes_many_configs = true;
  a.options = {"depths", "perturb", "inputs", "draws", "inits", "eps", "device"};
  a.run = run_output_shift;
  a.print = print_output_shift;
  registry.add("output-shift", std::move(a));
}

}  // namespace fathom::analysis
