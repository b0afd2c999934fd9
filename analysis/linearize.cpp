// `fathom analyze linearize RUN [--layers enc:1-6,dec:1-6] [--objective task|mse] [--steps S]`:
// see linearize.h.
#include "analysis/linearize.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "analysis/builtin_analyses.h"
#include "analysis/observed_eval.h"
#include "analysis/stream_decomposition.h"
#include "core/metrics/bleu.h"
#include "core/train/batch_stream.h"
#include "core/train/evaluate.h"
#include "core/train/loss.h"
#include "core/util/error.h"
#include "core/util/progress.h"

namespace fathom::analysis {

std::string LayerRef::name() const {
  return std::string(stack_name(stack)) + "." + std::to_string(layer + 1);
}

std::vector<LayerRef> parse_layers(const std::string& spec, int encoder_layers,
                                   int decoder_layers) {
  std::vector<LayerRef> out;
  if (spec.empty()) {
    for (int l = 0; l < encoder_layers; ++l) out.push_back({Stack::Encoder, l});
    for (int l = 0; l < decoder_layers; ++l) out.push_back({Stack::Decoder, l});
    return out;
  }
  std::stringstream parts(spec);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const auto colon = part.find(':');
    const std::string stack = part.substr(0, colon);
    if (colon == std::string::npos || (stack != "enc" && stack != "dec"))
      throw std::invalid_argument("'" + part + "': expected enc:A-B or dec:A-B");
    const int count = stack == "enc" ? encoder_layers : decoder_layers;
    const std::string range = part.substr(colon + 1);
    const auto dash = range.find('-');
    int first = 0, last = 0;
    try {
      first = std::stoi(range.substr(0, dash));
      last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
    } catch (const std::exception&) {
      throw std::invalid_argument("'" + part + "': layers are numbers, e.g. enc:1-6");
    }
    if (first < 1 || last > count || first > last)
      throw std::invalid_argument("'" + part + "': the " + stack + " stack has layers 1-" +
                                  std::to_string(count));
    for (int l = first; l <= last; ++l)
      out.push_back({stack == "enc" ? Stack::Encoder : Stack::Decoder, l - 1});
  }
  return out;
}

torch::Tensor LinearLayer::replace_layer(Stack stack, int layer, const torch::Tensor& x) {
  if (stack != layer_.stack || layer != layer_.layer) return {};
  return torch::matmul(x, weight.t()) + bias;
}

namespace {

// Records one layer's input (at replace_layer) and output (its last sub-layer's output).
struct PairRecorder : SublayerObserver {
  LayerRef layer;
  int last_index = 0;
  torch::Tensor x, y;
  torch::Tensor replace_layer(Stack stack, int l, const torch::Tensor& input) override {
    if (stack == layer.stack && l == layer.layer) x = input.detach();
    return {};
  }
  void on_sublayer(const SublayerId& id, const SublayerTrace& t) override {
    if (id.stack == layer.stack && id.index == last_index) y = t.output.detach();
  }
};

}  // namespace

LayerPairs collect_layer_pairs(TransformerImpl& model, const LayerRef& layer,
                               const std::vector<Batch>& batches) {
  PairRecorder recorder;
  recorder.layer = layer;
  recorder.last_index = layer.stack == Stack::Encoder ? 2 * layer.layer + 1 : 3 * layer.layer + 2;
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> xs, ys;
  {
    ObservedEval observed(model, &recorder);
    for (const Batch& b : batches) {
      recorder.x = recorder.y = torch::Tensor();
      model.forward(b.src, b.tgt_in);
      if (!recorder.x.defined() || !recorder.y.defined())
        throw std::invalid_argument("layer " + layer.name() +
                                    " reported no input/output (not a residual stack?)");
      const torch::Tensor mask = non_pad(layer.stack == Stack::Encoder ? b.src : b.tgt_in);
      xs.push_back(recorder.x.index({mask}));
      ys.push_back(recorder.y.index({mask}));
    }
  }
  return {torch::cat(xs), torch::cat(ys)};
}

std::pair<torch::Tensor, torch::Tensor> fit_linear(const torch::Tensor& x, const torch::Tensor& y) {
  const torch::Tensor X = torch::cat({x.to(torch::kFloat64), torch::ones({x.size(0), 1}, torch::kFloat64)}, 1);
  const torch::Tensor Y = y.to(torch::kFloat64);
  torch::Tensor gram = torch::matmul(X.t(), X);
  const double ridge = 1e-8 * gram.diagonal().mean().item<double>();
  gram = gram + ridge * torch::eye(gram.size(0), torch::kFloat64);
  const torch::Tensor theta = torch::linalg_solve(gram, torch::matmul(X.t(), Y));  // [d+1, d]
  const int64_t d = x.size(1);
  return {theta.slice(0, 0, d).t().to(torch::kFloat32).contiguous(),
          theta[d].to(torch::kFloat32).contiguous()};
}

namespace {

struct Evaluation {
  double valid_ppl = std::nan(""), bleu = std::nan("");
};

nlohmann::json maybe(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

Evaluation evaluate(TransformerImpl& model, const Subject& s, SublayerObserver* observer) {
  Evaluation e;
  const torch::Device cpu(torch::kCPU);
  model.hooks().observer = observer;
  try {
    if (!s.data->valid.empty())
      e.valid_ppl = evaluate_loss(model, s.data->valid, s.config.data.max_tokens, cpu,
                                  s.config.train.label_smoothing).ppl;
    if (!s.data->test.empty()) {
      size_t count = s.data->test.size();
      if (s.config.eval.max_sentences > 0)
        count = std::min<size_t>(count, s.config.eval.max_sentences);
      std::vector<Example> sources(s.data->test.begin(), s.data->test.begin() + count);
      std::vector<std::string> refs(s.data->test_target.begin(), s.data->test_target.begin() + count);
      SearchOptions search{s.config.eval.beam, s.config.eval.length_penalty,
                           s.config.eval.max_len_a, s.config.eval.max_len_b};
      e.bleu = corpus_bleu(translate(model, sources, *s.data->vocab, search,
                                     s.config.data.max_tokens, cpu),
                           refs).score;
    }
  } catch (...) {
    model.hooks().observer = nullptr;
    throw;
  }
  model.hooks().observer = nullptr;
  return e;
}

// Trains W and b (everything else frozen) for `steps` updates of Adam.
void train_linear(TransformerImpl& model, const Subject& s, LinearLayer& linear,
                  const LayerPairs& pairs, const std::string& objective, int steps, double lr) {
  if (steps <= 0) return;
  linear.weight.requires_grad_(true);
  linear.bias.requires_grad_(true);
  torch::optim::Adam adam({linear.weight, linear.bias}, torch::optim::AdamOptions(lr));
  std::vector<bool> frozen;
  for (auto& p : model.parameters()) frozen.push_back(p.requires_grad()), p.requires_grad_(false);
  const bool was_training = model.is_training();
  model.eval();  // dropout off: only W, b change, and deterministically
  const BatchPlan plan = plan_batches(s.data->train, s.config.data.max_tokens);
  BatchStream stream(s.data->train, plan, s.config.train.seed, 0, 0);
  torch::manual_seed(s.config.train.seed);
  const int64_t n = pairs.x.size(0), chunk = std::min<int64_t>(n, 1024);
  try {
    for (int step = 0; step < steps; ++step) {
      adam.zero_grad();
      torch::Tensor loss;
      if (objective == "mse") {
        const torch::Tensor idx = torch::randint(n, {chunk}, torch::kInt64);
        const torch::Tensor pred = torch::matmul(pairs.x.index({idx}), linear.weight.t()) + linear.bias;
        loss = (pred - pairs.y.index({idx})).pow(2).mean();
      } else {
        const Batch b = stream.next();
        model.hooks().observer = &linear;
        LossSums sums = label_smoothed_loss(model.forward(b.src, b.tgt_in), b.tgt_out,
                                            s.config.train.label_smoothing);
        model.hooks().observer = nullptr;
        loss = sums.smoothed / static_cast<double>(std::max<int64_t>(sums.tokens, 1));
      }
      loss.backward();
      adam.step();
    }
  } catch (...) {
    model.hooks().observer = nullptr;
    throw;
  }
  size_t i = 0;
  for (auto& p : model.parameters()) p.requires_grad_(frozen[i++]);
  model.train(was_training);
  linear.weight = linear.weight.detach();
  linear.bias = linear.bias.detach();
}

double percent_change(double value, double reference) {
  return reference != 0 && std::isfinite(value) && std::isfinite(reference)
             ? 100.0 * (value - reference) / reference
             : std::nan("");
}

nlohmann::json run_linearize(std::vector<Subject>& subjects, const AnalysisParams& params) {
  Subject& s = subjects.at(0);
  const ModelConfig& m = s.config.model;
  if (m.connection != "residual")
    throw InputError(s.label, 0, "model.connection",
                     "linearize replaces whole layers of residual stacks; '" + m.connection +
                         "' is not supported");
  std::vector<LayerRef> layers;
  try {
    layers = parse_layers(params.layers, m.encoder_layers, m.decoder_layers);
  } catch (const std::invalid_argument& e) {
    throw InputError("fathom analyze linearize", 0, "--layers", e.what());
  }
  if (params.objective != "task" && params.objective != "mse")
    throw InputError("fathom analyze linearize", 0, "--objective", "task or mse");
  TransformerImpl& model = *s.model;
  ProgressBar bar("linearize", static_cast<int64_t>(layers.size()) + 1, params.progress);

  // The sample the least-squares start is fitted on: the first training batches.
  std::vector<Batch> sample;
  {
    const BatchPlan plan = plan_batches(s.data->train, s.config.data.max_tokens);
    BatchStream stream(s.data->train, plan, s.config.train.seed, 0, 0);
    const size_t count = std::min<size_t>(plan.batches.size(), params.sample_batches);
    for (size_t i = 0; i < count; ++i) sample.push_back(stream.next());
  }
  const Evaluation full = evaluate(model, s, nullptr);
  bar.update(1, "full model");
  nlohmann::json rows = nlohmann::json::array();
  int64_t done = 1;
  for (const LayerRef& layer : layers) {
    const LayerPairs pairs = collect_layer_pairs(model, layer, sample);
    auto [weight, bias] = fit_linear(pairs.x, pairs.y);
    LinearLayer linear(layer, weight, bias);
    auto fit_mse = [&] {
      torch::NoGradGuard no_grad;
      return (torch::matmul(pairs.x, linear.weight.t()) + linear.bias - pairs.y).pow(2).mean().item<double>();
    };
    const double start_mse = fit_mse();
    train_linear(model, s, linear, pairs, params.objective, params.steps, params.lr);
    const double end_mse = fit_mse();
    const Evaluation e = evaluate(model, s, &linear);
    rows.push_back({{"layer", layer.name()},
                    {"stack", stack_name(layer.stack)},
                    {"index", layer.layer + 1},
                    {"valid_ppl", maybe(e.valid_ppl)},
                    {"bleu", maybe(e.bleu)},
                    {"ppl_change_pct", maybe(percent_change(e.valid_ppl, full.valid_ppl))},
                    {"bleu_change_pct", maybe(percent_change(e.bleu, full.bleu))},
                    {"lstsq_mse", start_mse},
                    {"final_mse", end_mse},
                    {"pairs", pairs.x.size(0)}});
    bar.update(++done, layer.name());
  }
  bar.finish("done");
  return {{"objective", params.objective},
          {"steps", params.steps},
          {"lr", params.lr},
          {"full", {{"valid_ppl", maybe(full.valid_ppl)}, {"bleu", maybe(full.bleu)}}},
          {"layers", rows}};
}

std::string number(const nlohmann::json& v, const char* format) {
  if (v.is_null()) return "n/a";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, format, v.get<double>());
  return buffer;
}

void print_linearize(const nlohmann::json& result, std::ostream& out) {
  const auto& full = result.at("full");
  out << "layer linearization (objective " << result.at("objective").get<std::string>() << ", "
      << result.at("steps").get<int>() << " steps); full model: valid ppl "
      << number(full.at("valid_ppl"), "%.3f") << ", BLEU " << number(full.at("bleu"), "%.2f")
      << "\n";
  char line[200];
  std::snprintf(line, sizeof line, "  %-7s %10s %9s %8s %9s %12s %12s\n", "layer", "valid ppl",
                "change%", "BLEU", "change%", "lstsq mse", "final mse");
  out << line;
  for (const auto& r : result.at("layers")) {
    std::snprintf(line, sizeof line, "  %-7s %10s %9s %8s %9s %12.4g %12.4g\n",
                  r.at("layer").get<std::string>().c_str(), number(r.at("valid_ppl"), "%.3f").c_str(),
                  number(r.at("ppl_change_pct"), "%+.2f").c_str(), number(r.at("bleu"), "%.2f").c_str(),
                  number(r.at("bleu_change_pct"), "%+.2f").c_str(), r.at("lstsq_mse").get<double>(),
                  r.at("final_mse").get<double>());
    out << line;
  }
}

}  // namespace

void register_linearize(AnalysisRegistry& registry) {
  Analysis a;
  a.doc = "replace whole layers by trained linear maps y = Wx + b and evaluate "
          "(Xu et al. depth-wise LSTM s4, methods.md s5.4)";
  a.options = {"layers", "objective", "steps", "lr"};
  a.run = run_linearize;
  a.print = print_linearize;
  registry.emplace("linearize", std::move(a));
}

}  // namespace fathom::analysis
