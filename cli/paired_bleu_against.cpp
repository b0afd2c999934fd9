#include "cli/paired_bleu_against.h"

#include <utility>

#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/tokenized_segments.h"
#include "cli/stored_hypotheses.h"

namespace fathom::cli {

PairedBleuAgainst::PairedBleuAgainst(const db::Store& store, db::StorePaths paths, int samples,
                                     uint64_t seed)
    : store_(store), paths_(std::move(paths)), samples_(samples), seed_(seed) {}

PairedBleuAgainst::Baseline& PairedBleuAgainst::baseline_of(const db::RunRecord& baseline) {
  if (baseline_ && baseline_->id == baseline.id) return *baseline_;
  baseline_.emplace();
  Baseline& b = *baseline_;
  b.id = baseline.id;
  b.why_not = read_stored_hypotheses(store_, paths_, baseline, b.data, b.hypotheses);
  return b;
}

bool PairedBleuAgainst::load_references(const db::RunRecord& baseline, Baseline& b) {
  if (!b.references_read) {  // marked read only once all of it is: a throw tries again
    std::vector<std::string> references;
    b.references_why_not = read_references(baseline, b.hypotheses.size(), references);
    if (!b.references_why_not.empty()) {
      b.references_read = true;
      return false;
    }
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
  result.why_not = read_stored_hypotheses(store_, paths_, system, data, hypotheses);
  if (result.why_not.empty() && hypotheses.size() != b.hypotheses.size())
    result.why_not = run_label(system) + " translated another number of test sentences";
  if (!result.why_not.empty()) return result;
  if (!load_references(baseline, b)) {
    result.why_not = b.references_why_not;
    return result;
  }
  result.segments = b.references.size();
  result.test =
      paired_bootstrap_bleu(*b.stats, SegmentBleuStats(hypotheses, *b.tokenized), samples_, seed_);
  return result;
}

}  // namespace fathom::cli
