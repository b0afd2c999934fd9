// How often the paired perplexity test rejects a true null at 0.05 (its size) and a real
// difference (its power) on a language model's test text cut into n blocks, side by side for
// four ways of drawing them: single segments; circular blocks of the longest length any series
// needs with shifted percentiles (Koehn's p over blocks, Fathom's test until now); the same
// blocks studentised by the difference's flat-top standard error; and Fathom's test
// (perplexity_bootstrap.h, SegmentOrder::serial), studentised in the difference's own blocks. Each
// system's per-token NLL is a hardness both share that drifts along the text (AR(1), 0.9) plus its
// own error that persists over phi of its neighbours (AR(1), phi); under the alternative the system
// is better by 2.8 long-run standard errors of the mean (80 % power for a test that knew the
// variance).
//   bench_bootstrap_size [blocks=300,1000,4000] [phi_percent=0,50,70,90] [replications=400]
// Run by hand (never in ctest): 400 replications take about 20 s a row at n = 1,000. The last
// columns time single draws and the test Fathom makes, 500 draws each.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "base/metrics/block_length.h"
#include "base/metrics/perplexity_bootstrap.h"
#include "bench/bench_program.h"
#include "bench/size_list.h"
#include "tests/support/ar1_series.h"

namespace fathom::bench::bench_bootstrap_size {

namespace {

constexpr int kTokens = 64;     // a block's tokens
constexpr double kOwnSd = 0.1;  // a system's own innovation, nats a token
constexpr int kDraws = 500;     // a test's bootstrap draws

constexpr auto ar1 = testing::ar1_series;

// The difference's long-run standard error of the mean per token: two independent AR(1)
// errors of innovation sd, each with long-run variance sd^2 / (1 - phi)^2.
double long_run_se(size_t n, double phi) {
  return std::sqrt(2.0) * kOwnSd / (1 - phi) / std::sqrt(static_cast<double>(n));
}

struct Rejections {
  int single = 0, shifted = 0, studentised = 0, fathom = 0;
  double longest_block = 0, difference_block = 0;  // summed over the replications
  double single_s = 0, fathom_s = 0;               // seconds in those two tests
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// One replication's four tests, the system better by `better` nats a token.
void test_once(size_t n, double phi, double better, uint64_t seed, Rejections& out) {
  std::mt19937_64 rng(seed);
  const auto hardness = ar1(n, 0.9, 0.1, rng);
  const auto own_a = ar1(n, phi, kOwnSd, rng), own_b = ar1(n, phi, kOwnSd, rng);
  NllPair pair;
  for (size_t k = 0; k < n; ++k) {
    pair.baseline.push_back({kTokens * (3 + hardness[k] + own_a[k]), kTokens});
    pair.system.push_back({kTokens * (3 - better + hardness[k] + own_b[k]), kTokens});
  }
  const std::vector<NllPair> pairs{pair};
  const std::pair<double, double> whole{corpus_perplexity(pair.baseline),
                                        corpus_perplexity(pair.system)};
  const auto score = [&](const std::vector<size_t>& drawn) {
    double base = 0, sys = 0, tokens = 0;
    for (size_t k : drawn) {
      base += pair.baseline[k].nll;
      sys += pair.system[k].nll;
      tokens += kTokens;
    }
    return std::pair<double, double>{std::exp(base / tokens), std::exp(sys / tokens)};
  };
  // The earlier choice: one length for every series, the longest any of them needs.
  const SerialBlocks blocks = serial_block_lengths(pairs);
  const size_t longest = std::max(blocks.scores, blocks.difference);
  out.longest_block += static_cast<double>(longest);
  out.difference_block += static_cast<double>(blocks.difference);
  const uint64_t draws = rng();
  const auto rejects = [](const PairedBootstrap& test) { return test.p < 0.05 ? 1 : 0; };
  auto start = std::chrono::steady_clock::now();
  out.single += rejects(paired_bootstrap(n, whole, score, kDraws, draws));
  out.single_s += seconds_since(start);
  out.shifted += rejects(paired_bootstrap(n, whole, score, kDraws, draws, longest));
  out.studentised += rejects(paired_bootstrap(n, whole, score, kDraws, draws, longest,
                                              perplexity_difference_influence(pairs)));
  start = std::chrono::steady_clock::now();
  out.fathom +=
      rejects(pooled_paired_bootstrap_perplexity(pairs, kDraws, draws, SegmentOrder::serial));
  out.fathom_s += seconds_since(start);
}

}  // namespace

int bench_main(int argc, char** argv) {
  const auto sizes = parse_size_list(argc > 1 ? argv[1] : "300,1000,4000");
  const auto phis = parse_size_list(argc > 2 ? argv[2] : "0,50,70,90");
  const long replications = argc > 3 ? parse_size_list(argv[3]).front() : 400;
  std::printf("%6s %4s %9s | %-27s | %-27s | %s\n", "blocks", "phi", "b: all/d",
              "size: single shift stud own", "power: single shift stud own",
              "ms a test: single own");
  for (long n : sizes)
    for (long phi_percent : phis) {
      const double phi = static_cast<double>(phi_percent) / 100;
      const double better = 2.8 * long_run_se(static_cast<size_t>(n), phi);
      Rejections null, alternative;
      for (long r = 0; r < replications; ++r) {
        test_once(static_cast<size_t>(n), phi, 0, 1000 + static_cast<uint64_t>(r), null);
        test_once(static_cast<size_t>(n), phi, better, 900000 + static_cast<uint64_t>(r),
                  alternative);
      }
      const double reps = static_cast<double>(replications);
      const auto line = [&](const Rejections& k) {
        std::printf("%6.3f %5.3f %5.3f %5.3f", k.single / reps, k.shifted / reps,
                    k.studentised / reps, k.fathom / reps);
      };
      std::printf("%6ld %4.2f %4.0f/%-4.0f | ", n, phi, null.longest_block / reps,
                  null.difference_block / reps);
      line(null);
      std::printf("     | ");
      line(alternative);
      std::printf("      | %7.1f %7.1f\n", 500 * (null.single_s + alternative.single_s) / reps,
                  500 * (null.fathom_s + alternative.fathom_s) / reps);
      std::fflush(stdout);
    }
  std::printf("(size's Monte Carlo standard error at 0.05: %.3f)\n",
              std::sqrt(0.05 * 0.95 / static_cast<double>(replications)));
  return 0;
}

}  // namespace fathom::bench::bench_bootstrap_size

FATHOM_BENCH_PROGRAM(bench_bootstrap_size,
                     "size and power of the paired perplexity test on serially dependent text");
