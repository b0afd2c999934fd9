// `fathom analyze sharpness RUN|CONFIG`: the top eigenvalue of the training loss's Hessian at a
// checkpoint or at initialization, on the run's first training batch, in float32 with dropout
// off (docs/curvature.md; Cohen et al. 2021, arXiv 2103.00065; Gilmer et al. 2022, arXiv
// 2110.04369). During training, train.sharpness_every records it as a curve
// (core/train/sharpness.h).
#include <cstdio>
#include <ostream>

#include "analysis/registry.h"
#include "core/train/sharpness.h"

namespace fathom::analysis {
namespace {

constexpr double kTolerance = 1e-4;

nlohmann::json run_sharpness(std::vector<Subject>& subjects, const AnalysisParams& params) {
  Subject& s = subjects.at(0);
  SharpnessOptions options;
  options.label_smoothing = s.config.train.label_smoothing;
  options.z_loss = s.config.train.z_loss;
  options.max_iterations = params.iterations;
  options.tolerance = kTolerance;
  options.seed = s.config.train.seed;
  move_subject_to(s, params.device);  // a hundred Hessian-vector products: a GPU's work
  const Batch& batch = s.batch;       // on the model's device: move_subject_to moved both
  SharpnessTracker tracker(*s.model, batch, options);
  const SharpnessReading reading = tracker.measure({}, 0);
  const ExtremeEigen& found = reading.sharpness;
  return {{"sharpness", found.largest},     {"residual", found.largest_residual},
          {"smallest", found.smallest},     {"smallest_residual", found.smallest_residual},
          {"iterations", found.iterations}, {"ritz", found.history},
          {"converged", found.converged},   {"tolerance", kTolerance},
          {"sentences", batch.rows()},      {"target_tokens", batch.tgt_tokens}};
}

void print_sharpness(const nlohmann::json& r, std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line,
                "lambda_max(H) = %.6g +- %.2g  (the training loss's Hessian on the first batch: "
                "%lld sentences, %lld target tokens)\n",
                r.at("sharpness").get<double>(), r.at("residual").get<double>(),
                r.at("sentences").get<long long>(), r.at("target_tokens").get<long long>());
  out << line;
  std::snprintf(line, sizeof line, "lambda_min(H) = %.6g +- %.2g\n", r.at("smallest").get<double>(),
                r.at("smallest_residual").get<double>());
  out << line;
  std::snprintf(line, sizeof line, "%d Lanczos steps (Hessian-vector products), %s\n",
                r.at("iterations").get<int>(),
                r.at("converged").get<bool>()
                    ? "converged"
                    : "NOT converged (raise --iterations; the value is a lower bound)");
  out << line;
}

}  // namespace

void register_sharpness(AnalysisRegistry& registry) {
  Analysis a;
  a.doc =
      "lambda_max and lambda_min of the training loss's Hessian on the first batch, by the "
      "Lanczos iteration on exact Hessian-vector products (docs/curvature.md)";
  a.options = {"iterations", "device"};
  a.run = run_sharpness;
  a.print = print_sharpness;
  a.reads_decoder_only = true;
  registry.add("sharpness", std::move(a));
}

}  // namespace fathom::analysis
