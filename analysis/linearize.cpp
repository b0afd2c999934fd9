// `fathom analyze linearize RUN [--layers enc:1-6,dec:1-6] [--objective task|mse] [--steps S]
// [--eval-every K] [--patience P] [--lr LR]`: see linearize.h.
#include "analysis/linearize.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "analysis/registry.h"
#include "analysis/stream_decomposition.h"
#include "base/metrics/bleu.h"
#include "base/util/error.h"
#include "base/util/json_number.h"
#include "base/util/progress.h"
#include "core/data/batch.h"
#include "core/model/observed_eval.h"
#include "core/train/batch_stream.h"
#include "core/train/evaluate.h"
#include "core/train/final_evaluation.h"
#include "core/train/loss.h"

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
    if (count == 0)
      throw std::invalid_argument("'" + part + "': this model has no " + stack +
                                  " stack (a decoder-only model's layers are dec:1-N)");
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

torch::Tensor AffineLayerMap::apply(const torch::Tensor& state) const {
  const int64_t m = weight.size(1);
  if (m == state.size(-1)) return torch::matmul(state, weight.t()) + bias;
  return torch::cat({torch::matmul(state.narrow(-1, 0, m), weight.t()) + bias,
                     state.narrow(-1, m, state.size(-1) - m)},
                    -1);
}

torch::Tensor AffineLayerMap::replace_layer(Stack stack, int layer, const torch::Tensor& state) {
  return where_ == Where::InsteadOfLayer && mine(stack, layer) ? apply(state) : torch::Tensor();
}

torch::Tensor AffineLayerMap::layer_output(Stack stack, int layer, torch::Tensor state) {
  return where_ == Where::AfterLayer && mine(stack, layer) ? apply(state) : state;
}

namespace {

// Records one layer's input state (at replace_layer) and output state (at layer_output).
struct PairRecorder : SublayerObserver {
  LayerRef layer;
  torch::Tensor x, y;
  torch::Tensor replace_layer(Stack stack, int l, const torch::Tensor& state) override {
    if (stack == layer.stack && l == layer.layer) x = state.detach();
    return {};
  }
  torch::Tensor layer_output(Stack stack, int l, torch::Tensor state) override {
    if (stack == layer.stack && l == layer.layer) y = state.detach();
    return state;
  }
};

}  // namespace

LayerPairs collect_layer_pairs(TransformerImpl& model, const LayerRef& layer,
                               const std::vector<Batch>& batches) {
  PairRecorder recorder;
  recorder.layer = layer;
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> xs, ys;
  {
    ObservedEval observed(model, &recorder);
    for (const Batch& b : batches) {
      recorder.x = recorder.y = torch::Tensor();
      model.forward(b.src, b.tgt_in);
      if (!recorder.x.defined() || !recorder.y.defined())
        throw std::invalid_argument("layer " + layer.name() + " reported no input/output state");
      const torch::Tensor mask = non_pad(layer.stack == Stack::Encoder ? b.src : b.tgt_in);
      xs.push_back(recorder.x.index({mask}));
      ys.push_back(recorder.y.index({mask}));
    }
  }
  return {torch::cat(xs), torch::cat(ys)};
}

std::pair<torch::Tensor, torch::Tensor> fit_linear(const torch::Tensor& x, const torch::Tensor& y) {
  const auto f64 = x.options().dtype(torch::kFloat64);  // on x's device
  const torch::Tensor X = torch::cat({x.to(torch::kFloat64), torch::ones({x.size(0), 1}, f64)}, 1);
  const torch::Tensor Y = y.to(torch::kFloat64);
  torch::Tensor gram = torch::matmul(X.t(), X);
  const double ridge = 1e-8 * gram.diagonal().mean().item<double>();
  gram = gram + ridge * torch::eye(gram.size(0), f64);
  const torch::Tensor theta = torch::linalg_solve(gram, torch::matmul(X.t(), Y));  // [w+1, w']
  const int64_t w = x.size(1);
  return {theta.slice(0, 0, w).t().to(torch::kFloat32).contiguous(),
          theta[w].to(torch::kFloat32).contiguous()};
}

namespace {

// Where --device put the model: its batches, maps and evaluations follow it.
torch::Device model_device(TransformerImpl& model) { return model.parameters().front().device(); }

// Validation perplexity and test BLEU with `observer` installed: final_evaluation(), exactly
// what a run's valid_ppl and test_bleu are.
struct Scores {
  double valid_ppl = std::nan(""), bleu = std::nan("");
};

Scores evaluate(TransformerImpl& model, const Subject& s, SublayerObserver* observer) {
  FinalEvaluationOptions what;
  what.test_loss = false;
  ObservedEval observed(model, observer);
  const FinalEvaluation e = final_evaluation(model, *s.data, s.config, model_device(model), what);
  return {e.valid ? e.valid->ppl : std::nan(""), e.bleu ? e.bleu->score : std::nan("")};
}

// Training pairs and held-out pairs of the MSE objective: predict `target` from `input`.
struct MseData {
  torch::Tensor input, target, valid_input, valid_target;
};

// Freezes every parameter of the model while it lives; restores each one's requires_grad
// afterwards, also when training throws.
class FrozenParameters {
 public:
  explicit FrozenParameters(TransformerImpl& model) : model_(model) {
    for (auto& p : model_.parameters()) was_.push_back(p.requires_grad()), p.requires_grad_(false);
  }
  ~FrozenParameters() {
    size_t i = 0;
    for (auto& p : model_.parameters()) p.requires_grad_(was_[i++]);
  }
  FrozenParameters(const FrozenParameters&) = delete;
  FrozenParameters& operator=(const FrozenParameters&) = delete;

 private:
  TransformerImpl& model_;
  std::vector<bool> was_;
};

struct TrainReport {
  int steps = 0;               // updates made
  int best_step = 0;           // the update whose W, b were kept (0: the start)
  double start_objective = 0;  // validation objective at the start
  double best_objective = 0;   // ... of the kept W, b
};

// Trains map.weight and map.bias (everything else frozen, dropout off) on the objective,
// checking the validation objective every `eval_every` updates and keeping the best W, b;
// stops after `patience` checks without improvement or at `max_steps`.
TrainReport train_map(TransformerImpl& model, const Subject& s, AffineLayerMap& map,
                      const MseData& mse, const std::string& objective,
                      const AnalysisParams& params) {
  const bool task = objective == "task";
  const torch::Device device = model_device(model);
  auto validation = [&]() -> double {
    torch::NoGradGuard no_grad;
    if (!task) return (map.apply(mse.valid_input) - mse.valid_target).pow(2).mean().item<double>();
    ObservedEval observed(model, &map);
    return evaluate_loss(model, s.data->valid, s.config.data.max_tokens, device,
                         s.config.train.label_smoothing)
        .loss;
  };
  TrainReport report;
  report.start_objective = report.best_objective = validation();
  if (params.steps <= 0) return report;

  FrozenParameters frozen(model);
  map.weight.requires_grad_(true);
  map.bias.requires_grad_(true);
  torch::optim::Adam adam({map.weight, map.bias}, torch::optim::AdamOptions(params.lr));
  const BatchPlan plan =
      plan_batches(s.data->train, s.config.data.max_tokens, s.config.data.pad_to_multiple);
  BatchStream stream(s.data->train, plan, s.config.train.seed, 0, 0);
  torch::manual_seed(s.config.train.seed);
  const int64_t n = mse.input.defined() ? mse.input.size(0) : 0;
  const int64_t chunk = std::min<int64_t>(n, 1024);
  torch::Tensor best_weight = map.weight.detach().clone(), best_bias = map.bias.detach().clone();
  int since_best = 0;
  for (int step = 1; step <= params.steps; ++step) {
    adam.zero_grad();
    torch::Tensor loss;
    if (!task) {
      const torch::Tensor idx =
          torch::randint(n, {chunk}, mse.input.options().dtype(torch::kInt64));
      loss = (map.apply(mse.input.index({idx})) - mse.target.index({idx})).pow(2).mean();
    } else {
      const Batch b = stream.next().to(device);
      ObservedEval observed(model, &map);  // eval mode: dropout off, only W, b change
      LossSums sums = label_smoothed_loss(model.forward(b.src, b.tgt_in), b.tgt_out,
                                          s.config.train.label_smoothing);
      loss = sums.smoothed / static_cast<double>(std::max<int64_t>(sums.tokens, 1));
    }
    loss.backward();
    adam.step();
    report.steps = step;
    if (step % params.eval_every != 0 && step != params.steps) continue;
    const double v = validation();
    if (v < report.best_objective) {
      report.best_objective = v;
      report.best_step = step;
      best_weight = map.weight.detach().clone();
      best_bias = map.bias.detach().clone();
      since_best = 0;
    } else if (++since_best >= params.patience) {
      break;
    }
  }
  map.weight = best_weight;
  map.bias = best_bias;
  return report;
}

double percent_change(double value, double reference) {
  return reference != 0 && std::isfinite(value) && std::isfinite(reference)
             ? 100.0 * (value - reference) / reference
             : std::nan("");
}

// The first `count` batches of a split in the order the trainer (or evaluation) uses, on
// `device`.
std::vector<Batch> first_batches(const TokenPairs& examples, const RunConfig& config, size_t count,
                                 bool training_order, torch::Device device) {
  std::vector<Batch> out;
  if (examples.empty()) return out;
  // Training order is the trainer's plan (data.pad_to_multiple's too: the layers' pad positions
  // are left out below); evaluation's is unpadded.
  const BatchPlan plan = plan_batches(examples, config.data.max_tokens,
                                      training_order ? config.data.pad_to_multiple : 1);
  count = std::min(count, plan.size());
  if (training_order) {
    BatchStream stream(examples, plan, config.train.seed, 0, 0);
    for (size_t i = 0; i < count; ++i) out.push_back(stream.next().to(device));
  } else {
    for (size_t i = 0; i < count; ++i) out.push_back(collate(examples, plan.batch(i)).to(device));
  }
  return out;
}

nlohmann::json scores_json(const Scores& e, const Scores& full, const TrainReport& t) {
  return {{"valid_ppl", number_or_null(e.valid_ppl)},
          {"bleu", number_or_null(e.bleu)},
          {"ppl_change_pct", number_or_null(percent_change(e.valid_ppl, full.valid_ppl))},
          {"bleu_change_pct", number_or_null(percent_change(e.bleu, full.bleu))},
          {"steps", t.steps},
          {"best_step", t.best_step},
          {"valid_objective_start", t.start_objective},
          {"valid_objective", t.best_objective}};
}

// The layers to linearize, once every flag is known good.
std::vector<LayerRef> checked_layers(const Subject& s, const AnalysisParams& params) {
  const ModelConfig& m = s.config.model;
  std::vector<LayerRef> layers;
  try {
    layers = parse_layers(params.layers, encoder_layer_count(m), m.decoder_layers);
  } catch (const std::invalid_argument& e) {
    throw InputError("fathom analyze linearize", 0, "--layers", e.what());
  }
  if (params.objective != "task" && params.objective != "mse")
    throw InputError("fathom analyze linearize", 0, "--objective", "task or mse");
  if (params.lstm_map != "full" && params.lstm_map != "output")
    throw InputError("fathom analyze linearize", 0, "--lstm-map", "full or output");
  if (params.lstm_map == "output" && m.hc_streams > 0)  // hyper | mhc
    throw InputError("fathom analyze linearize", 0, "--lstm-map",
                     "'output' maps a depth-wise LSTM's output columns; model.connection '" +
                         m.connection + "' packs n streams of equal standing: use 'full'");
  if (params.steps > 0 && s.data->valid.empty())
    throw InputError(s.label, 0, "data.valid",
                     "linearize trains W, b until the validation objective stops improving; "
                     "this run has no validation data (or use --steps 0)");
  return layers;
}

// One layer replaced by an affine map fitted to it (least squares, then trained), against the
// control: the layer kept with a map of the same shape after it trained alike. A row of the
// result.
nlohmann::json linearize_layer(TransformerImpl& model, const Subject& s, const LayerRef& layer,
                               const std::vector<Batch>& sample, const std::vector<Batch>& held_out,
                               const Scores& full, const AnalysisParams& params) {
  const ModelConfig& m = s.config.model;
  const LayerPairs pairs = collect_layer_pairs(model, layer, sample);
  const LayerPairs valid_pairs =
      held_out.empty() ? LayerPairs{} : collect_layer_pairs(model, layer, held_out);
  // The mapped columns: the whole states, or the depth-wise LSTM's output o (their first d).
  // In and out differ in width where a hyper-connection stack's first layer copies its d-wide
  // embedding into n streams (d -> n d).
  const int64_t w_in = pairs.x.size(1), w = pairs.y.size(1);
  const bool output_only = params.lstm_map == "output";
  const int64_t mapped_in = output_only ? std::min<int64_t>(w_in, m.d_model) : w_in;
  const int64_t mapped = output_only ? std::min<int64_t>(w, m.d_model) : w;
  auto [weight, bias] = fit_linear(pairs.x.narrow(1, 0, mapped_in), pairs.y.narrow(1, 0, mapped));
  AffineLayerMap linear(layer, AffineLayerMap::Where::InsteadOfLayer, weight, bias);
  auto fit_mse = [&] {
    torch::NoGradGuard no_grad;
    return (linear.apply(pairs.x) - pairs.y).pow(2).mean().item<double>();
  };
  const double start_mse = fit_mse();
  const TrainReport trained = train_map(
      model, s, linear, {pairs.x, pairs.y, valid_pairs.x, valid_pairs.y}, params.objective, params);
  const double end_mse = fit_mse();
  const Scores replaced = evaluate(model, s, &linear);

  // The control: the same training, the layer kept, an affine map of the same shape after it
  // from identity.
  AffineLayerMap control(layer, AffineLayerMap::Where::AfterLayer,
                         torch::eye(mapped, pairs.y.options()),
                         torch::zeros({mapped}, pairs.y.options()));
  const TrainReport control_trained =
      train_map(model, s, control, {pairs.y, pairs.y, valid_pairs.y, valid_pairs.y},
                params.objective, params);
  const Scores kept = evaluate(model, s, &control);

  nlohmann::json row = scores_json(replaced, full, trained);
  row["layer"] = layer.name();
  row["stack"] = stack_name(layer.stack);
  row["index"] = layer.layer + 1;
  row["state_width"] = w;
  row["input_width"] = w_in;
  row["mapped_width"] = mapped;
  row["map_parameters"] = mapped * mapped_in + mapped;
  row["lstsq_mse"] = start_mse;
  row["final_mse"] = end_mse;
  row["pairs"] = pairs.x.size(0);
  row["control"] = scores_json(kept, full, control_trained);
  // What the linearization changed beyond what the same extra training buys.
  row["bleu_vs_control_pct"] = number_or_null(percent_change(replaced.bleu, kept.bleu));
  row["ppl_vs_control_pct"] = number_or_null(percent_change(replaced.valid_ppl, kept.valid_ppl));
  return row;
}

nlohmann::json run_linearize(std::vector<Subject>& subjects, const AnalysisParams& params) {
  Subject& s = subjects.at(0);
  const ModelConfig& m = s.config.model;
  const std::vector<LayerRef> layers = checked_layers(s, params);
  move_subject_to(s, params.device);  // the pairs, the maps and every evaluation follow it
  TransformerImpl& model = *s.model;
  const torch::Device device = model_device(model);
  ProgressBar bar("linearize", static_cast<int64_t>(layers.size()) + 1, params.progress);

  // The least-squares sample (the first training batches) and the MSE objective's held-out
  // pairs (the first validation batches).
  const std::vector<Batch> sample =
      first_batches(s.data->train, s.config, params.sample_batches, true, device);
  const std::vector<Batch> held_out = first_batches(TokenPairs::from_examples(s.data->valid),
                                                    s.config, params.sample_batches, false, device);
  const Scores full = evaluate(model, s, nullptr);
  bar.update(1, "full model");
  nlohmann::json rows = nlohmann::json::array();
  int64_t done = 1;
  for (const LayerRef& layer : layers) {
    rows.push_back(linearize_layer(model, s, layer, sample, held_out, full, params));
    bar.update(++done, layer.name());
  }
  bar.finish("done");
  return {{"objective", params.objective},
          {"arch", m.arch},
          {"connection", m.connection},
          {"lstm_map", params.lstm_map},
          {"max_steps", params.steps},
          {"eval_every", params.eval_every},
          {"patience", params.patience},
          {"lr", params.lr},
          {"full",
           {{"valid_ppl", number_or_null(full.valid_ppl)}, {"bleu", number_or_null(full.bleu)}}},
          {"layers", rows}};
}

std::string number(const nlohmann::json& v, const char* format) {
  if (v.is_null()) return "n/a";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, format, v.get<double>());
  return buffer;
}

// A language model has no BLEU: the rows compare validation perplexities, the control's too.
void print_language_model_rows(const nlohmann::json& rows, std::ostream& out) {
  char line[200];
  std::snprintf(line, sizeof line, "  %-7s %10s %9s %6s | %9s %6s | %9s %11s\n", "layer",
                "valid ppl", "change%", "steps", "ctl ppl%", "steps", "vs ctl%", "lstsq mse");
  out << line;
  for (const auto& r : rows) {
    const auto& c = r.at("control");
    std::snprintf(
        line, sizeof line, "  %-7s %10s %9s %6d | %9s %6d | %9s %11.4g\n",
        r.at("layer").get<std::string>().c_str(), number(r.at("valid_ppl"), "%.3f").c_str(),
        number(r.at("ppl_change_pct"), "%+.2f").c_str(), r.at("steps").get<int>(),
        number(c.at("ppl_change_pct"), "%+.2f").c_str(), c.at("steps").get<int>(),
        number(r.at("ppl_vs_control_pct"), "%+.2f").c_str(), r.at("lstsq_mse").get<double>());
    out << line;
  }
  out << "  ctl = the control: the layer kept, an affine map after it trained the same way; "
         "vs ctl% = validation perplexity change against the control\n";
}

void print_linearize(const nlohmann::json& result, std::ostream& out) {
  const auto& full = result.at("full");
  const int max_steps =
      result.contains("max_steps") ? result["max_steps"].get<int>() : result.value("steps", 0);
  out << "layer linearization (objective " << result.at("objective").get<std::string>()
      << ", at most " << max_steps
      << " steps, early stopping on validation); full model: valid ppl "
      << number(full.at("valid_ppl"), "%.3f");
  const bool language_model = result.value("arch", "") == "decoder_only";  // no BLEU
  if (!language_model) out << ", BLEU " << number(full.at("bleu"), "%.2f");
  out << "\n";
  // Which map replaces a layer, so that tables of residual and LSTM models compare alike.
  const auto& rows = result.at("layers");
  if (!rows.empty() && rows[0].contains("map_parameters")) {
    const std::string connection = result.value("connection", "");
    const bool lstm = connection == "depthwise_lstm";
    const bool streams = connection == "hyper" || connection == "mhc";
    const bool output_only = result.value("lstm_map", "full") == "output";
    int64_t widest = 0;  // a hyper stack's first layer maps d -> n d, the others n d -> n d
    for (const auto& row : rows) widest = std::max(widest, row["map_parameters"].get<int64_t>());
    out << "  map: "
        << (streams       ? "H -> W H + b over the packed streams (the first layer: x -> W x + b)"
            : !lstm       ? "x -> W x + b"
            : output_only ? "o -> W o + b, the cell carried through (--lstm-map output)"
                          : "[o; c] -> W [o; c] + b (--lstm-map full)")
        << ", " << widest << " parameters per layer";
    const int64_t first = rows[0]["map_parameters"].get<int64_t>();
    if (first != widest) out << " (the first: " << first << ")";
    out << "\n";
  }
  if (language_model) return print_language_model_rows(rows, out);
  char line[240];
  std::snprintf(line, sizeof line, "  %-7s %10s %9s %8s %9s %6s | %9s %9s %6s | %9s %11s\n",
                "layer", "valid ppl", "change%", "BLEU", "change%", "steps", "ctl ppl%",
                "ctl BLEU%", "steps", "vs ctl%", "lstsq mse");
  out << line;
  const nlohmann::json none = nlohmann::json::object();
  for (const auto& r : result.at("layers")) {
    const auto& c = r.contains("control") ? r["control"] : none;
    auto field = [](const nlohmann::json& j, const char* key) {
      return j.contains(key) ? j[key] : nlohmann::json();
    };
    const std::string steps = r.contains("steps") ? std::to_string(r["steps"].get<int>()) : "-";
    const std::string ctl_steps = c.contains("steps") ? std::to_string(c["steps"].get<int>()) : "-";
    std::snprintf(
        line, sizeof line, "  %-7s %10s %9s %8s %9s %6s | %9s %9s %6s | %9s %11.4g\n",
        r.at("layer").get<std::string>().c_str(), number(r.at("valid_ppl"), "%.3f").c_str(),
        number(r.at("ppl_change_pct"), "%+.2f").c_str(), number(r.at("bleu"), "%.2f").c_str(),
        number(r.at("bleu_change_pct"), "%+.2f").c_str(), steps.c_str(),
        number(field(c, "ppl_change_pct"), "%+.2f").c_str(),
        number(field(c, "bleu_change_pct"), "%+.2f").c_str(), ctl_steps.c_str(),
        number(field(r, "bleu_vs_control_pct"), "%+.2f").c_str(), r.at("lstsq_mse").get<double>());
    out << line;
  }
  out << "  ctl = the control: the layer kept, an affine map after it trained the same way; "
         "vs ctl% = BLEU change against the control\n";
}

}  // namespace

void register_linearize(AnalysisRegistry& registry) {
  Analysis a;
  a.doc =
      "replace whole layers by trained linear maps y = Wx + b and evaluate, against a "
      "control given the same training (Xu et al. depth-wise LSTM s4, methods.md s5.4); a "
      "language model: its one stack, the LM loss";
  a.reads_decoder_only = true;
  a.options = {"layers", "objective",  "lstm-map", "steps",
               "lr",     "eval-every", "patience", "device"};
  a.run = run_linearize;
  a.print = print_linearize;
  registry.add("linearize", std::move(a));
}

}  // namespace fathom::analysis
