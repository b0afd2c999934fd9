#include "cli/paired_tests.h"

#include <memory>
#include <stdexcept>
#include <utility>

#include "base/config/config_io.h"
#include "base/metrics/bleu_bootstrap.h"
#include "base/util/error.h"
#include "cli/paired_bleu_against.h"
#include "cli/stored_hypotheses.h"

namespace fathom::cli {

NllInput segment_nll_input(const db::Store& store, const db::StorePaths& paths,
                           const std::vector<db::RunRecord>& runs, const std::string& split) {
  NllInput in;
  std::string first_data;
  for (const auto& r : runs) {
    // Segment NLL came later than runs: a run finished before can be evaluated again for it.
    const std::string file = stored_run_file(
        store, paths, r, split + "_nll", "NLL per " + split + " segment", first_data, in.why_not,
        "it did not finish, or finished before runs kept them: `fathom evaluate " +
            std::to_string(r.id) + "` keeps them");
    if (!in.why_not.empty()) return in;
    try {
      in.segments.push_back(read_segment_nll_file(file));
    } catch (const InputError& e) {
      in.why_not = run_label(r) + "'s " + e.what();
      return in;
    }
    if (in.segments.back().size() != in.segments.front().size()) {
      in.why_not = run_label(r) + " scored another number of " + split + " segments";
      return in;
    }
  }
  if (runs.empty()) in.why_not = "no runs";
  return in;
}

EvaluationSegments evaluation_segments(const db::RunRecord& run) {
  const RunConfig config = load_config_string(run.config_yaml, run_label(run), "");
  if (config.data.task != "lm") return {};
  return {config.data.lm_block > 0 ? SegmentOrder::serial : SegmentOrder::independent, "sequences"};
}

experiments::PairedTestResult paired_perplexity_test(const db::Store& store,
                                                     const db::StorePaths& paths,
                                                     const db::RunRecord& baseline,
                                                     const db::RunRecord& system, int samples,
                                                     uint64_t seed) {
  experiments::PairedTestResult result;
  result.metric = db::metric::kTestPpl;
  const EvaluationSegments segments = evaluation_segments(baseline);
  result.segments_are = segments.are;
  const NllInput in = segment_nll_input(store, paths, {baseline, system});
  result.why_not = in.why_not;
  if (!in.why_not.empty()) return result;
  result.segments = in.segments.front().size();
  try {
    result.test =
        paired_bootstrap_perplexity(in.segments[0], in.segments[1], samples, seed, segments.order);
  } catch (const std::invalid_argument& e) {  // other tokenisations
    result.why_not = run_label(system) + " against " + run_label(baseline) + ": " + e.what();
  }
  return result;
}

experiments::PairedTestResult paired_test(const db::Store& store, const db::StorePaths& paths,
                                          const db::RunRecord& baseline,
                                          const db::RunRecord& system, int samples, uint64_t seed) {
  const RunConfig config = load_config_string(baseline.config_yaml, run_label(baseline), "");
  if (config.data.task == "lm")
    return paired_perplexity_test(store, paths, baseline, system, samples, seed);
  return paired_bleu_test(store, paths, baseline, system, samples, seed);
}

experiments::PairedTester paired_tester(const db::Store& store, const db::StorePaths& paths,
                                        int samples, uint64_t seed) {
  auto bleu = std::make_shared<PairedBleuAgainst>(store, paths, samples, seed);
  return [&store, paths, samples, seed, bleu](const db::RunRecord& baseline,
                                              const db::RunRecord& system) {
    const RunConfig config = load_config_string(baseline.config_yaml, run_label(baseline), "");
    if (config.data.task == "lm")
      return paired_perplexity_test(store, paths, baseline, system, samples, seed);
    return bleu->test(baseline, system);
  };
}

experiments::PairedTestResult seed_pooled_test(const db::Store& store, const db::StorePaths& paths,
                                               const db::RunRecord& baseline,
                                               const std::vector<db::RunRecord>& seeds, int samples,
                                               uint64_t seed) {
  experiments::PairedTestResult result;
  std::vector<db::RunRecord> runs{baseline};
  runs.insert(runs.end(), seeds.begin(), seeds.end());
  const RunConfig config = load_config_string(baseline.config_yaml, run_label(baseline), "");
  try {
    if (config.data.task == "lm") {
      result.metric = db::metric::kTestPpl;
      const EvaluationSegments segments = evaluation_segments(baseline);
      result.segments_are = segments.are;
      const NllInput in = segment_nll_input(store, paths, runs);
      result.why_not = in.why_not;
      if (!in.why_not.empty()) return result;
      result.segments = in.segments.front().size();
      result.pooled = seed_pooled_perplexity(
          in.segments.front(), {in.segments.begin() + 1, in.segments.end()}, segments.order);
    } else {
      const PairedInput in = paired_input(store, paths, runs);
      result.why_not = in.why_not;
      result.segments = in.references.size();
      if (!in.why_not.empty()) return result;
      result.pooled =
          seed_pooled_bleu(in.hypotheses.front(), {in.hypotheses.begin() + 1, in.hypotheses.end()},
                           in.references, samples, seed);
    }
  } catch (const std::invalid_argument& e) {  // other tokenisations
    result.why_not = e.what();
  }
  return result;
}

}  // namespace fathom::cli
