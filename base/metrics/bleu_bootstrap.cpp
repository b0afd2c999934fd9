#include "base/metrics/bleu_bootstrap.h"

#include <algorithm>
#include <optional>
#include <random>
#include <stdexcept>
#include <utility>

#include "base/metrics/bleu.h"
#include "base/metrics/bleu_segments.h"
#include "base/metrics/parallel_draws.h"
#include "base/util/run_on_threads.h"
#include "base/util/usable_cores.h"

namespace fathom {

namespace {

// Every run's corpus BLEU on the whole test set and on each of `samples` draws of sentences,
// every run scored on the same draws: the input of the tests over seeds. Runs are arm a's,
// then arm b's.
struct RunDraws {
  std::vector<double> whole;               // whole[r]
  std::vector<std::vector<double>> draws;  // draws[b][r]
};

// Each run's statistics, the runs spread over the usable cores: tokenising and counting one
// system's test set is independent of the others' and about half a seeds' test at 100,000
// sentences. The same statistics as one after the other (the tokenizer's buffers are per thread).
std::vector<SegmentBleuStats> stats_of_runs(
    const std::vector<const std::vector<std::string>*>& runs, const TokenizedSegments& tokenized) {
  std::vector<std::optional<SegmentBleuStats>> built(runs.size());
  const int threads = std::min(usable_cores(), static_cast<int>(runs.size()));
  run_on_threads(threads, [&](int t) {
    for (size_t r = static_cast<size_t>(t); r < runs.size(); r += static_cast<size_t>(threads))
      built[r].emplace(*runs[r], tokenized);
  });
  std::vector<SegmentBleuStats> stats;
  for (auto& b : built) stats.push_back(std::move(*b));
  return stats;
}

RunDraws score_on_draws(const std::vector<std::vector<std::string>>& a,
                        const std::vector<std::vector<std::string>>& b,
                        const std::vector<std::string>& references, int samples, uint64_t seed) {
  std::vector<const std::vector<std::string>*> runs;
  for (const auto& hyps : a) runs.push_back(&hyps);
  for (const auto& hyps : b) runs.push_back(&hyps);
  for (size_t r = 0; r < runs.size(); ++r)
    if (runs[r]->size() != references.size())
      throw std::invalid_argument("seed test of BLEU: run " + std::to_string(r + 1) + " has " +
                                  std::to_string(runs[r]->size()) + " hypotheses for " +
                                  std::to_string(references.size()) + " references");
  const TokenizedSegments tokenized = tokenized_references(references);  // once for every run
  const std::vector<SegmentBleuStats> stats = stats_of_runs(runs, tokenized);
  RunDraws out;
  for (const auto& s : stats) out.whole.push_back(bleu_from_stats(s.whole()).score);
  std::mt19937_64 random(seed);
  out.draws.assign(static_cast<size_t>(samples), std::vector<double>(runs.size()));
  score_draws_in_parallel(references.size(), samples, random, usable_cores(),
                          [&](int b, const std::vector<uint32_t>& times) {
                            auto& draw = out.draws[static_cast<size_t>(b)];
                            for (size_t r = 0; r < runs.size(); ++r)
                              draw[r] = bleu_from_stats(stats[r].drawn(times)).score;
                          });
  return out;
}

// Each pair's baseline and system statistics drawn with one list of segments: a paired draw,
// pooled over the pairs (seeds).
PairedBootstrap pooled_paired_bootstrap_of(const std::vector<const SegmentBleuStats*>& base_stats,
                                           const std::vector<const SegmentBleuStats*>& sys_stats,
                                           int samples, uint64_t seed) {
  const double pair_count = static_cast<double>(base_stats.size());
  std::pair<double, double> whole{0, 0};
  for (size_t pair = 0; pair < base_stats.size(); ++pair) {
    whole.first += bleu_from_stats(base_stats[pair]->whole()).score / pair_count;
    whole.second += bleu_from_stats(sys_stats[pair]->whole()).score / pair_count;
  }
  const size_t segments = base_stats.front()->size();
  // Called on several threads at once: each draw counts into its own vector (a fraction of a
  // millisecond beside scoring it at 100,000 sentences).
  const auto score = [&](const std::vector<size_t>& drawn) {
    std::vector<uint32_t> times(segments);
    count_draws(drawn, times);
    std::pair<double, double> mean{0, 0};
    for (size_t pair = 0; pair < base_stats.size(); ++pair) {
      mean.first += bleu_from_stats(base_stats[pair]->drawn(times)).score / pair_count;
      mean.second += bleu_from_stats(sys_stats[pair]->drawn(times)).score / pair_count;
    }
    return mean;
  };
  return paired_bootstrap(segments, whole, score, samples, seed, 1, {}, usable_cores());
}

}  // namespace

PairedBootstrap paired_bootstrap_bleu(const std::vector<std::string>& baseline,
                                      const std::vector<std::string>& system,
                                      const std::vector<std::string>& references, int samples,
                                      uint64_t seed) {
  return pooled_paired_bootstrap_bleu({HypothesisPair{baseline, system}}, references, samples,
                                      seed);
}

PairedBootstrap pooled_paired_bootstrap_bleu(const std::vector<HypothesisPair>& pairs,
                                             const std::vector<std::string>& references,
                                             int samples, uint64_t seed) {
  if (pairs.empty()) throw std::invalid_argument("paired bootstrap: no pair of systems");
  for (size_t k = 0; k < pairs.size(); ++k)
    if (pairs[k].baseline.size() != references.size() ||
        pairs[k].system.size() != references.size())
      throw std::invalid_argument("paired bootstrap: pair " + std::to_string(k + 1) + " has " +
                                  std::to_string(pairs[k].baseline.size()) + " and " +
                                  std::to_string(pairs[k].system.size()) + " hypotheses for " +
                                  std::to_string(references.size()) + " references");
  if (references.empty()) throw std::invalid_argument("paired bootstrap: no segments");
  if (samples < 1) throw std::invalid_argument("paired bootstrap: no draws");
  const TokenizedSegments tokenized = tokenized_references(references);  // once for every system
  std::vector<const std::vector<std::string>*> systems;  // pair k's baseline at 2k, system 2k + 1
  for (const auto& pair : pairs) {
    systems.push_back(&pair.baseline);
    systems.push_back(&pair.system);
  }
  const std::vector<SegmentBleuStats> stats = stats_of_runs(systems, tokenized);
  std::vector<const SegmentBleuStats*> base_of, sys_of;
  for (size_t k = 0; k < pairs.size(); ++k) {
    base_of.push_back(&stats[2 * k]);
    sys_of.push_back(&stats[2 * k + 1]);
  }
  return pooled_paired_bootstrap_of(base_of, sys_of, samples, seed);
}

PairedBootstrap paired_bootstrap_bleu(const SegmentBleuStats& baseline,
                                      const SegmentBleuStats& system, int samples, uint64_t seed) {
  if (baseline.size() != system.size())
    throw std::invalid_argument("paired bootstrap: " + std::to_string(baseline.size()) + " and " +
                                std::to_string(system.size()) + " segments");
  if (baseline.size() == 0) throw std::invalid_argument("paired bootstrap: no segments");
  if (samples < 1) throw std::invalid_argument("paired bootstrap: no draws");
  return pooled_paired_bootstrap_of({&baseline}, {&system}, samples, seed);
}

SeedArmsTest seed_arms_bleu(const std::vector<std::vector<std::string>>& a,
                            const std::vector<std::vector<std::string>>& b,
                            const std::vector<std::string>& references, int samples,
                            uint64_t seed) {
  if (references.empty()) throw std::invalid_argument("seed test of BLEU: no segments");
  if (samples < 2) throw std::invalid_argument("seed test of BLEU: fewer than two draws");
  if (a.empty() || b.empty()) throw std::invalid_argument("seed test of BLEU: an arm without runs");
  const RunDraws scored = score_on_draws(a, b, references, samples, seed);
  const std::vector<double> whole_a(scored.whole.begin(), scored.whole.begin() + a.size()),
      whole_b(scored.whole.begin() + a.size(), scored.whole.end());
  return seed_arms_test(whole_a, whole_b, arms_error_of_draws(scored.draws, a.size()));
}

SeedArmsTest seed_paired_bleu(const std::vector<std::vector<std::string>>& a,
                              const std::vector<std::vector<std::string>>& b,
                              const std::vector<std::string>& references, int samples,
                              uint64_t seed) {
  if (a.size() != b.size() || a.size() < 2)
    throw std::invalid_argument("seed-paired test of BLEU: " + std::to_string(a.size()) + " and " +
                                std::to_string(b.size()) + " runs, not two pairs or more");
  if (samples < 2) throw std::invalid_argument("seed test of BLEU: fewer than two draws");
  const RunDraws scored = score_on_draws(a, b, references, samples, seed);
  const size_t k = a.size();
  const std::vector<double> whole_a(scored.whole.begin(), scored.whole.begin() + k),
      whole_b(scored.whole.begin() + k, scored.whole.end());
  std::vector<std::vector<double>> draws;  // each seed's difference, draw by draw
  for (const auto& draw : scored.draws) {
    std::vector<double> differences(k);
    for (size_t j = 0; j < k; ++j) differences[j] = draw[j] - draw[k + j];
    draws.push_back(std::move(differences));
  }
  return seed_paired_test(whole_a, whole_b, test_set_error_of_draws(draws));
}

SeedPooledTest seed_pooled_bleu(const std::vector<std::string>& baseline,
                                const std::vector<std::vector<std::string>>& systems,
                                const std::vector<std::string>& references, int samples,
                                uint64_t seed) {
  if (systems.size() < 2) throw std::invalid_argument("seed-pooled BLEU: fewer than two seeds");
  return as_pooled(seed_arms_bleu(systems, {baseline}, references, samples, seed));
}

}  // namespace fathom
