// A fork sweep's report testing every run against the parent ("Against the parent",
// experiments/report_fork_verdicts.h) at the sizes a paper's study reaches: a test set of N
// sentences (newstest2014 has 3,003) and F forks, each a paired bootstrap of 1,000 draws over
// generated hypotheses (a vocabulary of 5,000 words, 20-30 a sentence, each fork's words right
// with its own chance). Prints the section's time in all and per fork.
//   bench_fork_verdicts [sentences=500,3003] [forks=10,100]
// Run by hand (never in ctest).
#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "base/metrics/bleu_bootstrap.h"
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

}  // namespace

int bench_main(int argc, char** argv) {
  const auto sizes = bench::parse_size_list(argc > 1 ? argv[1] : "500,3003");
  const auto fork_counts = bench::parse_size_list(argc > 2 ? argv[2] : "10,100");
  std::printf("%9s %6s %10s %12s\n", "sentences", "forks", "total s", "ms per fork");
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
    for (long forks : fork_counts) {
      db::RunRecord parent;
      parent.id = 1;
      std::vector<db::RunRecord> runs(static_cast<size_t>(forks));
      std::map<int64_t, std::vector<std::string>> hypotheses{{1, hypotheses_of(words, 0.5, rng)}};
      for (long f = 0; f < forks; ++f) {
        runs[static_cast<size_t>(f)].id = 2 + f;
        runs[static_cast<size_t>(f)].status = "finished";
        hypotheses[2 + f] = hypotheses_of(words, 0.45 + 0.1 * static_cast<double>(f) / forks, rng);
      }
      const experiments::PairedBleuTester test = [&](const db::RunRecord& baseline,
                                                     const db::RunRecord& system) {
        experiments::PairedBleuResult r;
        r.sentences = references.size();
        r.test =
            paired_bootstrap_bleu(hypotheses.at(baseline.id), hypotheses.at(system.id), references);
        return r;
      };
      std::ostringstream out;
      const auto start = std::chrono::steady_clock::now();
      experiments::fork_verdicts_section(out, parent, runs, test, "valid_loss");
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::printf("%9ld %6ld %10.2f %12.1f\n", n, forks, s, 1000 * s / static_cast<double>(forks));
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace fathom::bench::bench_fork_verdicts

FATHOM_BENCH_PROGRAM(bench_fork_verdicts, "a fork sweep report's paired tests against the parent");
