// `fathom analyze beta`: see beta.h.
#include "analysis/beta.h"

#include <cmath>
#include <cstdio>

#include "analysis/builtin_analyses.h"
#include "analysis/observed_eval.h"
#include "core/util/error.h"

namespace fathom::analysis {
namespace {

// Population variance of every element of `c` at the masked positions.
double masked_variance(const torch::Tensor& c, const torch::Tensor& mask) {
  return c.index({mask}).var(/*unbiased=*/false).item<double>();
}

std::vector<double> beta_row(const std::vector<torch::Tensor>& components,
                             const torch::Tensor& mask, size_t width) {
  std::vector<double> var;
  double total = 0;
  for (const auto& c : components) total += var.emplace_back(masked_variance(c, mask));
  std::vector<double> row(width, 0.0);
  for (size_t j = 0; j < var.size() && j < width; ++j)
    row[j] = total > 0 ? std::sqrt(var[j] / total) : 0.0;
  return row;
}

void start_matrix(BetaMatrix& m, const char* stack, int sublayers) {
  m.labels = {std::string(stack) + ".embed"};
  m.beta.clear();
  m.rows.clear();
  m.labels.reserve(sublayers + 1);
  m.final_label = std::string(stack) + ".final_norm";
}

nlohmann::json matrix_json(const BetaMatrix& m) {
  nlohmann::json j{{"labels", m.labels}, {"rows", m.rows}, {"beta", m.beta}};
  j["final"] = m.final_row ? nlohmann::json{{"label", m.final_label}, {"beta", *m.final_row}}
                           : nlohmann::json(nullptr);
  return j;
}

void print_matrix(const nlohmann::json& m, const char* title, std::ostream& out) {
  const auto labels = m.at("labels").get<std::vector<std::string>>();
  const auto rows = m.at("rows").get<std::vector<std::string>>();
  const auto beta = m.at("beta").get<std::vector<std::vector<double>>>();
  out << title << ": beta[i][j], rows = outputs i, columns = branches j (0 = embedding)\n";
  char cell[32];
  out << "  " << std::string(18, ' ');
  for (size_t j = 0; j < labels.size(); ++j) {
    std::snprintf(cell, sizeof cell, " %4zu", j);
    out << cell;
  }
  out << "   beta_ii^2\n";
  auto print_row = [&](const std::string& label, const std::vector<double>& row, size_t diag) {
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
    std::snprintf(cell, sizeof cell, "   %.3f\n", row[std::min(diag, row.size() - 1)] *
                                                      row[std::min(diag, row.size() - 1)]);
    out << cell;
  };
  for (size_t i = 0; i < rows.size(); ++i) print_row(rows[i], beta[i], i + 1);
  if (!m.at("final").is_null())
    print_row(m["final"]["label"].get<std::string>(),
              m["final"]["beta"].get<std::vector<double>>(), labels.size() - 1);
  out << "  columns: ";
  for (size_t j = 0; j < labels.size(); ++j) out << (j ? ", " : "") << j << "=" << labels[j];
  out << "\n";
}

}  // namespace

nlohmann::json BetaResult::to_json() const {
  return {{"encoder", matrix_json(encoder)}, {"decoder", matrix_json(decoder)}};
}

BetaResult compute_beta(TransformerImpl& model, const Batch& batch,
                        StreamDecomposer::Transform transform) {
  const ModelConfig& m = model.config();
  if (m.connection != "residual")
    throw std::invalid_argument("beta needs a residual stream; model.connection '" +
                                m.connection + "' has none (methods.md s4)");
  BetaResult result;
  start_matrix(result.encoder, "enc", 2 * m.encoder_layers);
  start_matrix(result.decoder, "dec", 3 * m.decoder_layers);
  const torch::Tensor masks[2] = {non_pad(batch.src), non_pad(batch.tgt_in)};
  const size_t widths[2] = {static_cast<size_t>(2 * m.encoder_layers + 1),
                            static_cast<size_t>(3 * m.decoder_layers + 1)};

  StreamDecomposer decomposer(
      [&](const StreamStep& step) {
        const int s = static_cast<int>(step.id.stack);
        BetaMatrix& matrix = s == 0 ? result.encoder : result.decoder;
        std::vector<double> row = beta_row(step.components, masks[s], widths[s]);
        if (step.final_norm) {
          matrix.final_row = std::move(row);
          return;
        }
        matrix.labels.push_back(step.id.name());
        matrix.rows.push_back(step.id.name());
        matrix.beta.push_back(std::move(row));
      },
      std::move(transform));

  torch::NoGradGuard no_grad;
  {
    ObservedEval observed(model, &decomposer);
    model.forward(batch.src, batch.tgt_in);
  }
  return result;
}

void register_beta(AnalysisRegistry& registry) {
  Analysis a;
  a.doc = "layer dependency beta_{i,j}: share of branch j in output i (Admin s4.1, methods.md s5.1)";
  a.run = [](std::vector<Subject>& subjects, const AnalysisParams&) {
    Subject& s = subjects.at(0);
    try {
      return compute_beta(*s.model, s.batch).to_json();
    } catch (const std::invalid_argument& e) {
      throw InputError(s.label, 0, "model.connection", e.what());
    }
  };
  a.print = [](const nlohmann::json& result, std::ostream& out) {
    print_matrix(result.at("encoder"), "encoder", out);
    out << "\n";
    print_matrix(result.at("decoder"), "decoder", out);
  };
  registry.emplace("beta", std::move(a));
}

}  // namespace fathom::analysis
