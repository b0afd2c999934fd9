#include "cli/stored_hypotheses.h"

#include <filesystem>
#include <utility>

#include "base/config/config_io.h"
#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/text_lines.h"
#include "core/data/test_references.h"
#include "db/artifact_files.h"

namespace fathom::cli {

std::string run_label(const db::RunRecord& r) {
  return "run " + std::to_string(r.id) + " " + r.name;
}

std::string stored_run_file(const db::Store& store, const db::StorePaths& paths,
                            const db::RunRecord& run, const std::string& kind,
                            const std::string& what, std::string& data, std::string& why_not,
                            const std::string& if_missing) {
  const RunConfig config = load_config_string(run.config_yaml, run_label(run) + " config", "");
  const std::string this_data = config_to_json(config)["data"].dump();
  if (!data.empty() && this_data != data) {
    why_not = run_label(run) + " was evaluated on other data than the runs before it";
    return "";
  }
  data = this_data;
  const std::string file = db::recorded_file(store.artifacts(run.id), paths.run_dir(run.id), kind);
  if (file.empty()) {
    why_not = run_label(run) + " has no stored " + what + " (" + if_missing + ")";
    return "";
  }
  // A store copied without its artifacts folder (docs/studies/) keeps the rows, not the files.
  if (!std::filesystem::exists(file)) {
    why_not = run_label(run) + "'s " + what + " " + file +
              " are not on this machine (a store copied without its artifacts)";
    return "";
  }
  return file;
}

std::string read_stored_hypotheses(const db::Store& store, const db::StorePaths& paths,
                                   const db::RunRecord& run, std::string& data,
                                   std::vector<std::string>& hypotheses) {
  const RunConfig config = load_config_string(run.config_yaml, run_label(run) + " config", "");
  if (config.data.task == "lm")
    return run_label(run) + " is a language model: it translates no test set";
  std::string why_not;
  const std::string file =
      stored_run_file(store, paths, run, "hypotheses", "test hypotheses", data, why_not);
  if (why_not.empty()) hypotheses = read_text_lines(file);
  return why_not;
}

std::string read_references(const db::RunRecord& first, size_t count,
                            std::vector<std::string>& references) {
  const RunConfig config = load_config_string(first.config_yaml, "config", "");
  std::vector<std::string> all = test_references(config.data, "");
  if (all.size() < count) return "the test set has fewer references than the stored hypotheses";
  all.resize(count);
  references = std::move(all);
  return "";
}

PairedInput paired_input(const db::Store& store, const db::StorePaths& paths,
                         const std::vector<db::RunRecord>& runs) {
  PairedInput in;
  if (runs.empty()) {
    in.why_not = "no runs";
    return in;
  }
  std::string data;
  for (const auto& r : runs) {
    std::vector<std::string> hypotheses;
    in.why_not = read_stored_hypotheses(store, paths, r, data, hypotheses);
    if (!in.why_not.empty()) return in;
    in.hypotheses.push_back(std::move(hypotheses));
    if (in.hypotheses.back().size() != in.hypotheses.front().size()) {
      in.why_not = run_label(r) + " translated another number of test sentences";
      return in;
    }
  }
  in.why_not = read_references(runs.front(), in.hypotheses.front().size(), in.references);
  return in;
}

experiments::PairedTestResult paired_bleu_test(const db::Store& store, const db::StorePaths& paths,
                                               const db::RunRecord& baseline,
                                               const db::RunRecord& system, int samples,
                                               uint64_t seed) {
  const PairedInput in = paired_input(store, paths, {baseline, system});
  experiments::PairedTestResult result;
  result.why_not = in.why_not;
  result.segments = in.references.size();
  if (in.why_not.empty())
    result.test =
        paired_bootstrap_bleu(in.hypotheses[0], in.hypotheses[1], in.references, samples, seed);
  return result;
}

}  // namespace fathom::cli
