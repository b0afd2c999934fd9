// A fork sweep's report testing every run against the parent ("Against the parent",
// experiments/report_fork_verdicts.h) at the sizes a paper's study reaches: a test set of N
// sentences (newstest2014 has 3,003) and F forks, each a paired bootstrap of 1,000 draws over
// generated hypotheses (a vocabulary of 5,000 words, 20-30 a sentence, each fork's words right
// with its own chance) -- and the same section on test perplexity, a language model's test,
// over the same number of segments of generated NLL (10-40 tokens each), drawn singly and, as
// a language model's text cut into blocks is, in circular blocks of neighbours whose length
// each test chooses from the data (block_length.h). Prints each section's time in all and per
// fork, side by side; and the BLEU section with the parent's statistics counted, and the
// references tokenised, once for every fork (`fathom report`'s tester), with the same p-values.
//   bench_fork_verdicts [sentences=500,3003] [forks=10,100]
// Run by hand (never in ctest).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/perplexity_bootstrap.h"
#include "base/metrics/tokenized_segments.h"
#include "bench/bench_program.h"
#include "bench/size_list.h"
#include "experiments/report_fork_verdicts.h"

namespace fathom::bench::bench_fork_verdicts {

namespace {

// `references` with each word kept with chance `right`, else another word.
std::vector<std::string> hypotheses_of(const std::vector<std::vector<int>>& references,
                                       double right, std::mt19937& rng) {
  std::uniform_real_distribution<double> coin(0, 1);
  std::uniform_int_distribution<int> word(0, 4999);
  std::vector<std::string> out;
  for (const auto& sentence : references) {
    std::string text;
    for (int w : sentence)
      text += (text.empty() ? "w" : " w") + std::to_string(coin(rng) < right ? w : word(rng));
    out.push_back(text);
  }
  return out;
}

// Each segment's NLL: its tokens at `nats` a token, give or take a quarter nat.
std::vector<SegmentNll> segments_of(const std::vector<int64_t>& tokens, double nats,
                                    std::mt19937& rng) {
  std::normal_distribution<double> noise(0, 0.25);
  std::vector<SegmentNll> out;
  for (int64_t t : tokens)
    out.push_back({static_cast<double>(t) * std::max(0.0, nats + noise(rng)), t});
  return out;
}

// Seconds of fork_verdicts_section over `runs` with `test`.
double section_seconds(const std::vector<db::RunRecord>& runs,
                       const experiments::PairedTester& test) {
  db::RunRecord parent;
  parent.id = 1;
  std::ostringstream out;
  const auto start = std::chrono::steady_clock::now();
  experiments::fork_verdicts_section(out, parent, runs, test, "valid_loss");
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int bench_main(int argc, char** argv) {
  const auto sizes = bench::parse_size_list(argc > 1 ? argv[1] : "500,3003");
  const auto fork_counts = bench::parse_size_list(argc > 2 ? argv[2] : "10,100");
  std::printf("%9s %6s %12s %16s %16s %8s %12s %16s %18s\n", "segments", "forks", "BLEU total s",
              "BLEU ms per fork", "parent once ms", "ratio", "ppl total s", "ppl ms per fork",
              "blocked ms per fork");
  for (long n : sizes) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> word(0, 4999), length(20, 30);
    std::vector<std::vector<int>> words(static_cast<size_t>(n));
    std::vector<std::string> references;
    for (auto& sentence : words) {
      sentence.resize(static_cast<size_t>(length(rng)));
      for (int& w : sentence) w = word(rng);
      std::string text;
      for (int w : sentence) text += (text.empty() ? "w" : " w") + std::to_string(w);
      references.push_back(text);
    }
    std::uniform_int_distribution<int64_t> segment_length(10, 40);
    std::vector<int64_t> tokens(static_cast<size_t>(n));
    for (auto& t : tokens) t = segment_length(rng);
    for (long forks : fork_counts) {
      std::vector<db::RunRecord> runs(static_cast<size_t>(forks));
      std::map<int64_t, std::vector<std::string>> hypotheses{{1, hypotheses_of(words, 0.5, rng)}};
      std::map<int64_t, std::vector<SegmentNll>> nll{{1, segments_of(tokens, 3.0, rng)}};
      for (long f = 0; f < forks; ++f) {
        const double share = static_cast<double>(f) / static_cast<double>(forks);
        runs[static_cast<size_t>(f)].id = 2 + f;
        runs[static_cast<size_t>(f)].status = "finished";
        hypotheses[2 + f] = hypotheses_of(words, 0.45 + 0.1 * share, rng);
        nll[2 + f] = segments_of(tokens, 2.95 + 0.1 * share, rng);
      }
      const experiments::PairedTester test = [&](const db::RunRecord& baseline,
                                                 const db::RunRecord& system) {
        experiments::PairedTestResult r;
        r.segments = references.size();
        r.test =
            paired_bootstrap_bleu(hypotheses.at(baseline.id), hypotheses.at(system.id), references);
        return r;
      };
      // The parent's statistics counted, and the references tokenised, once for every fork (what
      // `fathom report`'s tester does, cli/paired_bleu_against.h); each p must be the same.
      std::unique_ptr<TokenizedSegments> tokenized;
      std::unique_ptr<SegmentBleuStats> parent_stats;
      bool same_p = true;
      const experiments::PairedTester once = [&](const db::RunRecord& baseline,
                                                 const db::RunRecord& system) {
        if (!parent_stats) {
          tokenized = std::make_unique<TokenizedSegments>(tokenized_references(references));
          parent_stats = std::make_unique<SegmentBleuStats>(hypotheses.at(baseline.id), *tokenized);
        }
        experiments::PairedTestResult r;
        r.segments = references.size();
        r.test = paired_bootstrap_bleu(*parent_stats,
                                       SegmentBleuStats(hypotheses.at(system.id), *tokenized));
        return r;
      };
      const auto check = [&](const db::RunRecord& baseline, const db::RunRecord& system) {
        const auto r = once(baseline, system);
        same_p = same_p && r.test->p == test(baseline, system).test->p;
        return r;
      };
      const auto ppl_test = [&](SegmentOrder order) -> experiments::PairedTester {
        return [&, order](const db::RunRecord& baseline, const db::RunRecord& system) {
          experiments::PairedTestResult r;
          r.metric = "test_ppl";
          r.segments = tokens.size();
          r.test = paired_bootstrap_perplexity(nll.at(baseline.id), nll.at(system.id), 1000, 12345,
                                               order);
          return r;
        };
      };
      const double bleu_s = section_seconds(runs, test), once_s = section_seconds(runs, once),
                   ppl_s = section_seconds(runs, ppl_test(SegmentOrder::independent)),
                   blocked_s = section_seconds(runs, ppl_test(SegmentOrder::serial));
      const double per_fork = 1000.0 / static_cast<double>(forks);
      section_seconds(std::vector<db::RunRecord>(runs.begin(), runs.begin() + 3), check);
      std::printf("%9ld %6ld %12.2f %16.1f %16.1f %7.2fx %12.2f %16.1f %18.1f  (same p: %s)\n", n,
                  forks, bleu_s, bleu_s * per_fork, once_s * per_fork, bleu_s / once_s, ppl_s,
                  ppl_s * per_fork, blocked_s * per_fork, same_p ? "yes" : "NO");
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace fathom::bench::bench_fork_verdicts

FATHOM_BENCH_PROGRAM(bench_fork_verdicts, "a fork sweep report's paired tests against the parent");
