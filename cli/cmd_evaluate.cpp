// `fathom evaluate RUN... | --sweep NAME [--force] [--threads N] [--device D]`:
// evaluates an ended run's final model again -- the one its final metrics measure (tag
// final_model: the best checkpoint, the mean of kept ones, or the last) -- on its validation and
// test sets, and keeps every segment's NLL (valid.nll, test.nll; artifacts valid_nll, test_nll)
// where the run has none: runs finished before runs kept them get the paired perplexity tests of
// `fathom compare`, `export verdicts --paired-bootstrap` and fork reports. Nothing is stored
// unless the recomputed corpus perplexity equals the run's valid_ppl / test_ppl (relative 1e-4:
// the run summed its total in float32): a file from another model or other data would make
// every later test silently wrong.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "base/metrics/perplexity_bootstrap.h"
#include "base/util/error.h"
#include "base/util/file_write.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/stop_signals.h"
#include "cli/stored_hypotheses.h"
#include "cli/stored_run_model.h"
#include "core/train/device.h"
#include "core/train/final_evaluation.h"
#include "core/train/stop_request.h"
#include "db/artifact_files.h"
#include "db/final_model_tag.h"
#include "db/metric_names.h"
#include "db/run_status.h"
#include "db/store.h"

namespace fathom::cli {
namespace {
namespace fs = std::filesystem;

struct EvaluateArgs {
  std::vector<std::string> runs;
  std::string sweep;
  bool force = false;
  bool no_progress = false;
  std::optional<int> threads;
  std::string device = "auto";
};

constexpr double kAgreement = 1e-4;  // relative, between the recomputed and stored perplexity

// The checkpoint the run's final metrics measured (db/final_model_tag.h).
std::string final_checkpoint(const db::Store& store, int64_t run) {
  const auto tags = store.tags(run);
  const auto tag = tags.find(db::kFinalModelTag);
  switch (db::parse_final_model_tag(tag == tags.end() ? "" : tag->second).kind) {
    case db::FinalModel::Kind::MeanOfKept:
      return "average";
    case db::FinalModel::Kind::FinalWeights:
      return "last";
    case db::FinalModel::Kind::BestCheckpoint:
      break;
  }
  return "best";
}

// Why `run` is not evaluated again, or "".
std::string why_not_evaluated(const db::Store& store, const db::StorePaths& paths,
                              const db::RunRecord& run, bool force) {
  if (db::status::is_active(run.status))
    return "is " + run.status + ": its own final evaluation will keep them";
  const auto finite = [&run](const std::string& metric) {
    const auto it = run.final_metrics.find(metric);
    return it != run.final_metrics.end() && std::isfinite(it->second);
  };
  if (!finite(db::metric::kTestPpl) && !finite(db::metric::kValidPpl))
    return "has no final valid_ppl or test_ppl to evaluate against (diverged, or never "
           "evaluated)";
  if (force) return "";
  const auto artifacts = store.artifacts(run.id);
  for (const char* kind : {"valid_nll", "test_nll"}) {
    const std::string file = db::recorded_file(artifacts, paths.run_dir(run.id), kind);
    if (file.empty() || !fs::exists(file)) return "";
  }
  return "already keeps valid.nll and test.nll (--force evaluates again)";
}

// `segments`' corpus perplexity against the run's stored one; "" when they agree.
std::string disagreement(const db::RunRecord& run, const std::string& metric,
                         const std::vector<SegmentNll>& segments) {
  const auto stored = run.final_metrics.find(metric);
  if (stored == run.final_metrics.end()) return "";
  const double again = corpus_perplexity(segments);
  // A NaN stored (a split whose evaluation failed) agrees with nothing.
  if (std::fabs(again - stored->second) <= kAgreement * std::fabs(stored->second)) return "";
  char text[256];
  std::snprintf(text, sizeof text,
                "%s evaluated again is %.6g, the run stored %.6g: the model or data read now are "
                "not those it was evaluated on (another corpus file or vocabulary?)",
                metric.c_str(), again, stored->second);
  return text;
}

// Evaluates `run` again and keeps its segments' NLL; false and *problem when refused.
bool evaluate_run(db::Store& store, const db::StorePaths& paths, const db::RunRecord& run,
                  const EvaluateArgs& args, std::string* problem) {
  ModelChoice choice;
  choice.checkpoint = final_checkpoint(store, run.id);
  analysis::Subject subject = load_chosen_model(store, paths, std::to_string(run.id), choice);
  configure_threads(args.threads.value_or(subject.config.train.threads));
  const torch::Device device = resolve_device(args.device);
  subject.model->to(device);
  FinalEvaluationOptions options;
  options.decode = false;
  options.progress = !args.no_progress;
  options.stop = &stop_requested();
  const FinalEvaluation final =
      final_evaluation(*subject.model, *subject.data, subject.config, device, options);
  const std::pair<const std::vector<SegmentNll>*, std::string> splits[] = {
      {&final.valid_segments, "valid"}, {&final.test_segments, "test"}};
  for (const auto& [segments, split] : splits)
    if (const std::string why = disagreement(run, split + "_ppl", *segments); !why.empty())
      return *problem = why + "; nothing stored", false;
  fs::create_directories(paths.run_dir(run.id));
  for (const auto& [segments, split] : splits) {
    if (segments->empty()) continue;
    const std::string path = (fs::path(paths.run_dir(run.id)) / (split + ".nll")).string();
    const std::string temp = path + ".tmp-" + unique_temp_suffix();
    write_file_or_throw(temp, segment_nll_text(*segments), "the " + split + " NLL per segment");
    fs::rename(temp, path);
    store.add_artifact(run.id, split + "_nll", path, run.updates);
    std::printf("%s (%s): %s.nll, %zu segments, perplexity %.6g\n", run_label(run).c_str(),
                subject.checkpoint.c_str(), split.c_str(), segments->size(),
                corpus_perplexity(*segments));
  }
  return true;
}

void run_evaluate(const GlobalOptions& global, const EvaluateArgs& args) {
  if (args.runs.empty() == args.sweep.empty())
    throw InputError("fathom evaluate", 0, "RUN", "give runs or --sweep NAME, not both");
  auto store = db::Store::open(resolve_db_path(global));
  const db::StorePaths paths = resolve_store_paths(global);
  std::vector<db::RunRecord> runs;
  if (!args.sweep.empty()) {
    runs = store.list_runs(args.sweep);
    if (runs.empty())
      throw InputError(store.path(), 0, "--sweep", "no runs in sweep " + args.sweep);
  }
  for (const auto& name : args.runs) runs.push_back(named_run(store, name));
  install_stop_signals();
  int refused = 0;
  for (const auto& run : runs) {
    std::string why = why_not_evaluated(store, paths, run, args.force);
    if (why.empty()) {
      try {
        if (evaluate_run(store, paths, run, args, &why)) continue;
      } catch (const StopRequested&) {
        std::fprintf(stderr, "evaluate: stopped by signal %d\n", stop_signal());
        throw CommandExit{128 + stop_signal()};
      }
      ++refused;
    }
    std::printf("%s: %s\n", run_label(run).c_str(), why.c_str());
  }
  if (refused > 0) throw CommandExit{1};
}

}  // namespace

void add_evaluate_command(CLI::App& app, GlobalOptions& options) {
  auto args = std::make_shared<EvaluateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "evaluate",
      "Evaluate ended runs' final models again and keep every validation and test segment's NLL "
      "(valid.nll, test.nll) where they have none, for paired perplexity tests");
  cmd->add_option("RUN", args->runs, "stored runs (ids or names)");
  cmd->add_option("--sweep", args->sweep, "every run of this sweep");
  cmd->add_flag("--force", args->force, "evaluate again runs that already keep the files");
  cmd->add_flag("--no-progress", args->no_progress, "no progress bars on stderr");
  cmd->add_option("--threads", args->threads,
                  "CPU threads (default: the run's train.threads; 0: all cores)")
      ->check(non_negative_number());
  cmd->add_option("--device", args->device, "auto, cpu, cuda or cuda:N (default auto)");
  cmd->callback([&options, args] { run_evaluate(options, *args); });
}

}  // namespace fathom::cli
