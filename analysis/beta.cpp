// `fathom analyze beta`: see beta.h.
#include "analysis/beta.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/registry.h"
#include "base/util/error.h"
#include "base/util/progress.h"
#include "core/model/observed_eval.h"
#include "core/model/registry.h"

namespace fathom::analysis {
namespace {

// Population moments of a set of values, merged chunk by chunk (Chan, Golub & LeVeque 1979:
// the pairwise update of the mean and the sum of squared deviations), so that a batch taken in
// chunks of sentences gives the variance of all its values without holding them at once.
struct Moments {
  double n = 0, mean = 0, m2 = 0;
  void add(const torch::Tensor& values) {  // float64, any shape
    const double nb = static_cast<double>(values.numel());
    if (nb == 0) return;
    const double mb = values.mean().item<double>();
    const double m2b = (values - mb).square().sum().item<double>();
    const double delta = mb - mean, total = n + nb;
    mean += delta * nb / total;
    m2 += m2b + delta * delta * n * nb / total;
    n = total;
  }
  double variance() const { return n > 0 ? m2 / n : 0.0; }
};

// One output's moments over the non-pad positions seen so far: each component's, the
// output's (the actual sum of the components and the LayerNorm bias term) and the bias term's.
struct RowMoments {
  std::vector<Moments> components;
  Moments output, bias;

  void add(const std::vector<torch::Tensor>& parts, const torch::Tensor& bias_term,
           const torch::Tensor& mask) {
    torch::Tensor sum = bias_term.clone();
    for (const auto& c : parts) sum += c;
    output.add(sum.index({mask}));
    bias.add(bias_term.index({mask}));
    if (components.size() < parts.size()) components.resize(parts.size());
    for (size_t j = 0; j < parts.size(); ++j) components[j].add(parts[j].index({mask}));
  }
};

// One output's row (Admin s4.1): beta_{i,j} = std(component j) / std(output i), the output
// being the actual sum of the components and the LayerNorm bias term. Dividing by
// sqrt(sum_k var(component k)) instead would agree only while the components are
// uncorrelated (at initialization); after training they are not.
BetaRow beta_row(const RowMoments& m, size_t width) {
  const double output_std = std::sqrt(m.output.variance());
  auto share = [&](const Moments& t) {
    return output_std > 0 ? std::sqrt(t.variance()) / output_std : 0.0;
  };
  BetaRow row;
  row.beta.assign(width, 0.0);
  for (size_t j = 0; j < m.components.size() && j < width; ++j) {
    row.beta[j] = share(m.components[j]);
    row.sum_sq += row.beta[j] * row.beta[j];
  }
  row.bias = share(m.bias);
  return row;
}

// Rows [first, first + count) of `batch` (eval only reads the tensors).
Batch batch_rows(const Batch& batch, int64_t first, int64_t count) {
  Batch part;
  auto rows = [&](const torch::Tensor& t) { return t.defined() ? t.narrow(0, first, count) : t; };
  part.src = rows(batch.src);
  part.tgt_in = rows(batch.tgt_in);
  part.tgt_out = rows(batch.tgt_out);
  if (static_cast<int64_t>(batch.ids.size()) >= first + count)  // a hand-made batch may have none
    part.ids.assign(batch.ids.begin() + first, batch.ids.begin() + first + count);
  return part;
}

// The batch is run in chunks of sentences, each on its own, so that the components held at
// once (float64, [rows, length, d] each, every sub-layer's and the bias term, both stacks; per
// stream and summed on a hyper stack) stay within `component_bytes`: at least one sentence,
// at most the batch. Their moments merge across chunks (Moments).
int64_t sentences_per_chunk(const ModelConfig& m, const Batch& batch, int encoder_sublayers,
                            int decoder_sublayers, int64_t component_bytes) {
  const int64_t streams = m.hc_streams > 0 ? m.hc_streams + 1 : 1;
  auto length = [](const torch::Tensor& t) { return t.defined() ? t.size(1) : int64_t{0}; };
  const int64_t bytes_per_sentence = 8 * m.d_model * streams *
                                     (length(batch.src) * (encoder_sublayers + 2) +
                                      length(batch.tgt_in) * (decoder_sublayers + 2));
  return std::clamp<int64_t>(component_bytes / std::max<int64_t>(bytes_per_sentence, 1), 1,
                             std::max<int64_t>(batch.tgt_in.size(0), 1));
}

void start_matrix(BetaMatrix& m, const char* stack, int sublayers) {
  m.labels = {std::string(stack) + ".embed"};
  m.beta.clear();
  m.rows.clear();
  m.bias.clear();
  m.sum_sq.clear();
  m.labels.reserve(sublayers + 1);
  m.final_label = std::string(stack) + ".final_norm";
}

nlohmann::json matrix_json(const BetaMatrix& m) {
  nlohmann::json j{{"labels", m.labels},
                   {"rows", m.rows},
                   {"beta", m.beta},
                   {"bias", m.bias},
                   {"sum_sq", m.sum_sq}};
  j["final"] = m.final_row ? nlohmann::json{{"label", m.final_label},
                                            {"beta", m.final_row->beta},
                                            {"bias", m.final_row->bias},
                                            {"sum_sq", m.final_row->sum_sq}}
                           : nlohmann::json(nullptr);
  return j;
}

// A row's diagnostic, or NaN in results stored before it was recorded.
double row_value(const nlohmann::json& m, const char* key, size_t i) {
  if (!m.contains(key) || !m[key].is_array() || i >= m[key].size()) return std::nan("");
  return m[key][i].get<double>();
}

void print_matrix(const nlohmann::json& m, const char* title, std::ostream& out) {
  const auto labels = m.at("labels").get<std::vector<std::string>>();
  const auto rows = m.at("rows").get<std::vector<std::string>>();
  const auto beta = m.at("beta").get<std::vector<std::vector<double>>>();
  out << title << ": beta[i][j], rows = outputs i, columns = branches j (0 = embedding)\n";
  char cell[48];
  out << "  " << std::string(18, ' ');
  for (size_t j = 0; j < labels.size(); ++j) {
    std::snprintf(cell, sizeof cell, " %4zu", j);
    out << cell;
  }
  out << "   beta_ii^2  sum_j b^2   bias\n";
  auto print_row = [&](const std::string& label, const std::vector<double>& row, size_t diag,
                       double sum_sq, double bias) {
    std::snprintf(cell, sizeof cell, "  %-18s", label.c_str());
    out << cell;
    for (size_t j = 0; j < row.size(); ++j) {
      if (j > diag) {
        out << "    .";
        continue;
      }
      std::snprintf(cell, sizeof cell, " %4.2f", row[j]);
      out << cell;
    }
    const double own = row[std::min(diag, row.size() - 1)];
    std::snprintf(cell, sizeof cell, "   %9.3f  %9.3f  %5.2f\n", own * own, sum_sq, bias);
    out << cell;
  };
  for (size_t i = 0; i < rows.size(); ++i)
    print_row(rows[i], beta[i], i + 1, row_value(m, "sum_sq", i), row_value(m, "bias", i));
  if (!m.at("final").is_null()) {
    const auto& f = m["final"];
    print_row(f["label"].get<std::string>(), f["beta"].get<std::vector<double>>(),
              labels.size() - 1, f.value("sum_sq", std::nan("")), f.value("bias", std::nan("")));
  }
  out << "  sum_j b^2 = 1 only while the branches are uncorrelated (at initialization); "
         "bias = the LayerNorm biases' share\n";
  out << "  columns: ";
  for (size_t j = 0; j < labels.size(); ++j) out << (j ? ", " : "") << j << "=" << labels[j];
  out << "\n";
}

}  // namespace

nlohmann::json BetaResult::to_json() const {
  nlohmann::json out{{"encoder", matrix_json(encoder)}, {"decoder", matrix_json(decoder)}};
  if (!note.empty()) out["note"] = note;
  return out;
}

BetaResult compute_beta(TransformerImpl& model, const Batch& batch,
                        StreamDecomposer::Transform transform, int64_t component_bytes,
                        bool progress) {
  const ModelConfig& m = model.config();
  // Hyper-connections widen the residual stream to n streams (stream_decomposition.h); the
  // depth-wise LSTM has none.
  if (m.connection != "residual" && m.hc_streams == 0)
    throw std::invalid_argument("beta needs a residual stream; model.connection '" + m.connection +
                                "' has none (methods.md s4)");
  BetaResult result;
  // Only a LayerNorm is affine once its per-token statistics are known; other norms are not
  // decomposed, and the result says what that leaves out.
  const std::string style = resolve_sublayer_style(m);
  const NormalizationTraits& norm = methods().sublayer_styles.find(style)->normalization;
  if (!norm.is_layer_norm)
    result.note = "model.norm '" + style + "': " + norm.name + " (" + norm.formula +
                  ") in place of every LayerNorm. The stream between them is a plain sum, so "
                  "each sub-layer's row is exact; " +
                  norm.name + " is not affine, so no row follows a stack's final " + norm.name +
                  ".";
  // A decoder-only model has no encoder and 2 sub-layers a decoder layer (model.arch).
  const int encoder_sublayers = 2 * encoder_layer_count(m);
  const int decoder_sublayers = decoder_sublayers_per_layer(m) * m.decoder_layers;
  start_matrix(result.encoder, "enc", encoder_sublayers);
  start_matrix(result.decoder, "dec", decoder_sublayers);
  const size_t widths[2] = {static_cast<size_t>(encoder_sublayers + 1),
                            static_cast<size_t>(decoder_sublayers + 1)};

  const int64_t rows = batch.tgt_in.size(0);
  const int64_t chunk =
      sentences_per_chunk(m, batch, encoder_sublayers, decoder_sublayers, component_bytes);

  std::vector<RowMoments> moments[2];
  std::optional<RowMoments> final_moments[2];
  torch::NoGradGuard no_grad;
  ProgressBar bar("beta", rows, progress && rows > chunk);
  for (int64_t first = 0; first < rows; first += chunk) {
    const int64_t count = std::min(chunk, rows - first);
    const Batch part = batch_rows(batch, first, count);
    const torch::Tensor masks[2] = {non_pad(part.src), non_pad(part.tgt_in)};
    size_t next_row[2] = {0, 0};
    auto accumulate = [&](const StreamStep& step) {
      const int s = static_cast<int>(step.id.stack);
      if (step.final_norm) {
        if (!final_moments[s]) final_moments[s].emplace();
        final_moments[s]->add(step.components, step.bias, masks[s]);
        return;
      }
      BetaMatrix& matrix = s == 0 ? result.encoder : result.decoder;
      if (first == 0) {
        matrix.labels.push_back(step.id.name());
        matrix.rows.push_back(step.id.name());
        moments[s].emplace_back();
      }
      moments[s].at(next_row[s]++).add(step.components, step.bias, masks[s]);
    };
    StreamDecomposer decomposer(accumulate, transform);
    ObservedEval observed(model, &decomposer);
    model.forward(part.src, part.tgt_in);
    bar.update(first + count, "sentences");
  }
  bar.finish("sentences");

  for (int s = 0; s < 2; ++s) {
    BetaMatrix& matrix = s == 0 ? result.encoder : result.decoder;
    for (const RowMoments& row_moments : moments[s]) {
      BetaRow row = beta_row(row_moments, widths[s]);
      matrix.beta.push_back(std::move(row.beta));
      matrix.sum_sq.push_back(row.sum_sq);
      matrix.bias.push_back(row.bias);
    }
    if (final_moments[s]) matrix.final_row = beta_row(*final_moments[s], widths[s]);
  }
  return result;
}

void register_beta(AnalysisRegistry& registry) {
  Analysis a;
  a.doc =
      "layer dependency beta_{i,j}: share of branch j in output i (Admin s4.1, methods.md s5.1)";
  a.run = [](std::vector<Subject>& subjects, const AnalysisParams& params) {
    Subject& s = subjects.at(0);
    move_subject_to(s, params.device);
    try {
      return compute_beta(*s.model, s.batch, nullptr, kBetaComponentBytes, params.progress)
          .to_json();
    } catch (const std::invalid_argument& e) {
      throw InputError(s.label, 0, "model.connection", e.what());
    }
  };
  a.print = [](const nlohmann::json& result, std::ostream& out) {
    if (result.contains("note")) out << result["note"].get<std::string>() << "\n\n";
    print_matrix(result.at("encoder"), "encoder", out);
    out << "\n";
    print_matrix(result.at("decoder"), "decoder", out);
  };
  a.reads_decoder_only = true;
  a.options = {"device"};
  registry.add("beta", std::move(a));
}

}  // namespace fathom::analysis
