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

PairedInput paired_input(const db::Store& store, const db::StorePaths& paths,
                         const std::vector<db::RunRecord>& runs) {
  PairedInput in;
  if (runs.empty()) {
    in.why_not = "no runs";
    return in;
  }
  std::string data;
  for (const auto& r : runs) {
    const RunConfig config = load_config_string(r.config_yaml, run_label(r) + " config", "");
    if (config.data.task == "lm") {
      in.why_not = run_label(r) +
                   " is a language model: it translates no test set (its test_bpb over seeds: "
                   "`fathom export table --sweep SWEEP`)";
      return in;
    }
    const std::string this_data = config_to_json(config)["data"].dump();
    if (!data.empty() && this_data != data) {
      in.why_not = run_label(r) + " was tested on other data than " + run_label(runs.front());
      return in;
    }
    data = this_data;
    const std::string file =
        db::recorded_file(store.artifacts(r.id), paths.run_dir(r.id), "hypotheses");
    if (file.empty()) {
      in.why_not =
          run_label(r) + " has no stored test hypotheses (it did not finish, or decoded none)";
      return in;
    }
    // A store copied without its artifacts folder (docs/studies/) keeps the rows, not the files.
    if (!std::filesystem::exists(file)) {
      in.why_not = run_label(r) + "'s test hypotheses " + file +
                   " are not on this machine (a store copied without its artifacts)";
      return in;
    }
    in.hypotheses.push_back(read_text_lines(file));
    if (in.hypotheses.back().size() != in.hypotheses.front().size()) {
      in.why_not = run_label(r) + " translated another number of test sentences";
      return in;
    }
  }
  const RunConfig first = load_config_string(runs.front().config_yaml, "config", "");
  std::vector<std::string> references = test_references(first.data, "");
  if (references.size() < in.hypotheses.front().size()) {
    in.why_not = "the test set has fewer references than the stored hypotheses";
    return in;
  }
  references.resize(in.hypotheses.front().size());
  in.references = std::move(references);
  return in;
}

experiments::PairedBleuResult paired_bleu_test(const db::Store& store, const db::StorePaths& paths,
                                               const db::RunRecord& baseline,
                                               const db::RunRecord& system, int samples,
                                               uint64_t seed) {
  const PairedInput in = paired_input(store, paths, {baseline, system});
  experiments::PairedBleuResult result;
  result.why_not = in.why_not;
  result.sentences = in.references.size();
  if (in.why_not.empty())
    result.test =
        paired_bootstrap_bleu(in.hypotheses[0], in.hypotheses[1], in.references, samples, seed);
  return result;
}

}  // namespace fathom::cli
