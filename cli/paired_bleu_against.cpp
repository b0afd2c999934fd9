#include "cli/paired_bleu_against.h"

#include <utility>

#include "base/config/config_io.h"
#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/text_lines.h"
#include "base/metrics/tokenized_segments.h"
#include "cli/stored_hypotheses.h"
#include "core/data/test_references.h"

namespace fathom::cli {
namespace {

// paired_input's check of a run and its read: "" and its hypotheses, or why not.
std::string read_hypotheses(const db::Store& store, const db::StorePaths& paths,
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

}  // namespace

PairedBleuAgainst::PairedBleuAgainst(const db::Store& store, db::StorePaths paths, int samples,
                                     uint64_t seed)
    : store_(store), paths_(std::move(paths)), samples_(samples), seed_(seed) {}

PairedBleuAgainst::Baseline& PairedBleuAgainst::baseline_of(const db::RunRecord& baseline) {
  if (baseline_ && baseline_->id == baseline.id) return *baseline_;
  baseline_.emplace();
  Baseline& b = *baseline_;
  b.id = baseline.id;
  b.why_not = read_hypotheses(store_, paths_, baseline, b.data, b.hypotheses);
  return b;
}

bool PairedBleuAgainst::read_references(const db::RunRecord& baseline, Baseline& b) {
  if (!b.references_read) {  // marked read only once all of it is: a throw tries again
    const RunConfig config = load_config_string(baseline.config_yaml, "config", "");
    std::vector<std::string> references = test_references(config.data, "");
    if (references.size() < b.hypotheses.size()) {
      b.references_why_not = "the test set has fewer references than the stored hypotheses";
      b.references_read = true;
      return false;
    }
    references.resize(b.hypotheses.size());
    auto tokenized = std::make_unique<TokenizedSegments>(tokenized_references(references));
    b.stats = std::make_unique<SegmentBleuStats>(b.hypotheses, *tokenized);
    b.tokenized = std::move(tokenized);
    b.references = std::move(references);
    b.references_read = true;
  }
  return b.references_why_not.empty();
}

experiments::PairedTestResult PairedBleuAgainst::test(const db::RunRecord& baseline,
                                                      const db::RunRecord& system) {
  Baseline& b = baseline_of(baseline);
  experiments::PairedTestResult result;
  result.why_not = b.why_not;
  if (!result.why_not.empty()) return result;
  std::string data = b.data;
  std::vector<std::string> hypotheses;
  result.why_not = read_hypotheses(store_, paths_, system, data, hypotheses);
  if (result.why_not.empty() && hypotheses.size() != b.hypotheses.size())
    result.why_not = run_label(system) + " translated another number of test sentences";
  if (!result.why_not.empty()) return result;
  if (!read_references(baseline, b)) {
    result.why_not = b.references_why_not;
    return result;
  }
  result.segments = b.references.size();
  result.test =
      paired_bootstrap_bleu(*b.stats, SegmentBleuStats(hypotheses, *b.tokenized), samples_, seed_);
  return result;
}

}  // namespace fathom::cli
