// How often a fork sweep's configuration is called better or worse than its parent when it is
// not (size, true nulls at 0.05) and when it is (power), side by side for five tests of k
// seeds' runs against one run on one test set: one seed's paired bootstrap (Koehn 2004, what
// a fork's own report says), the paired bootstrap pooled over the seeds (the test set's error
// only), Student's t over the seeds' differences (the seeds' spread only), the variance
// decomposition with Satterthwaite's degrees of freedom, and Fathom's generalised test
// (base/metrics/seed_pooled_test.h). Simulated text: n segments of 20 tokens; each system's
// nats a token 3 + a hardness all share + its own error (AR(1), phi, sd 0.05); each seed's run
// shifted by a_j ~ N(0, seed_sd). rho = (seed part) / C: the seeds' spread over the error
// every seed's difference shares (the parent's). Under the alternative the configuration is
// better by 2.8 true standard errors of the mean difference (80 % power for a test that knew
// the variance). Then, for independent segments, two configurations of k seeds each, each with
// its own strengths on the text (what a test set's draw favours): the bootstrap pooled over seed
// pairs, Welch over the seeds, and Fathom's test over both (seed_arms_perplexity); and the same
// where each seed gives both arms a shared part, unpaired against paired by seed
// (seed_paired_perplexity).
//   bench_seed_pooled_size [seeds=2,3,5] [seed_sd_per_mille=0,2,5,10] [replications=1000]
//                          [segments=300] [phi_percent=0]
// Run by hand (never in ctest): about 5 s a row at the defaults.
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "base/metrics/perplexity_bootstrap.h"
#include "base/metrics/seed_pooled_test.h"
#include "base/metrics/statistics.h"
#include "bench/bench_program.h"
#include "bench/size_list.h"
#include "tests/support/ar1_series.h"

namespace fathom::bench::bench_seed_pooled_size {

namespace {

constexpr double kOwnSd = 0.05;  // a system's own innovation, nats a token
constexpr int kDraws = 200;      // a bootstrap test's draws

struct Rejections {
  int one_seed = 0, test_set = 0, seeds_t = 0, satterthwaite = 0, fathom = 0;
};

double two_sided_t(double t, double df) {
  const boost::math::students_t student(df);
  return 2 * boost::math::cdf(boost::math::complement(student, std::fabs(t)));
}

void test_once(size_t n, size_t k, double seed_sd, double phi, double better, uint64_t seed,
               Rejections& out) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> hardness(0, 0.3), shift(0, seed_sd);
  std::vector<double> h(n);
  for (auto& x : h) x = hardness(rng);
  const SegmentOrder order = phi > 0 ? SegmentOrder::serial : SegmentOrder::independent;
  const auto system = [&](double a) {
    const std::vector<double> e = testing::ar1_series(n, phi, kOwnSd, rng);
    std::vector<SegmentNll> s(n);
    for (size_t i = 0; i < n; ++i) s[i] = {20 * (3 + h[i] + a + e[i]), 20};
    return s;
  };
  const std::vector<SegmentNll> parent = system(0);
  std::vector<std::vector<SegmentNll>> seeds;
  std::vector<NllPair> pairs;
  for (size_t j = 0; j < k; ++j) {
    seeds.push_back(system(shift(rng) - better));
    pairs.push_back({parent, seeds.back()});
  }
  const uint64_t draws = rng();
  out.one_seed += paired_bootstrap_perplexity(parent, seeds[0], kDraws, draws, order).p < 0.05;
  out.test_set += pooled_paired_bootstrap_perplexity(pairs, kDraws, draws, order).p < 0.05;
  const SeedPooledTest t = seed_pooled_perplexity(parent, seeds, order);
  const double kd = static_cast<double>(k);
  out.seeds_t +=
      t.seed_sd > 0 && two_sided_t(t.difference / (t.seed_sd / std::sqrt(kd)), kd - 1) < 0.05;
  const double seed_part = t.seed_sd * t.seed_sd / kd;
  const double df = std::pow(t.se, 4) / (seed_part * seed_part / (kd - 1));
  out.satterthwaite += t.se > 0 && two_sided_t(t.difference / t.se, df) < 0.05;
  out.fathom += t.p < 0.05;
}

// Two configurations of k seeds each on one text, the row better by `better`: the bootstrap
// pooled over seed pairs, Welch over the seeds, and Fathom's test over seeds and sentences.
// One text two configurations are scored on: each segment's hardness and each configuration's
// own strengths on it (what the test set's draw favours). The distributions are the caller's,
// so a simulation draws its numbers in one sequence.
struct TwoArmText {
  std::vector<double> hardness, row_taste, versus_taste;
  TwoArmText(size_t n, std::mt19937_64& rng, std::normal_distribution<double>& hard,
             std::normal_distribution<double>& own)
      : hardness(n), row_taste(n), versus_taste(n) {
    for (size_t i = 0; i < n; ++i) {
      hardness[i] = hard(rng);
      row_taste[i] = own(rng);
      versus_taste[i] = own(rng);
    }
  }
  // A run of the configuration of `taste`, its seed's effect `a` nats a token.
  std::vector<SegmentNll> run(const std::vector<double>& taste, double a, std::mt19937_64& rng,
                              std::normal_distribution<double>& own) const {
    std::vector<SegmentNll> s(hardness.size());
    for (size_t i = 0; i < s.size(); ++i)
      s[i] = {20 * (3 + hardness[i] + taste[i] + a + own(rng)), 20};
    return s;
  }
};

void arms_once(size_t n, size_t k, double seed_sd, double better, uint64_t seed, Rejections& out) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> hardness(0, 0.3), shift(0, seed_sd), own(0, kOwnSd);
  const TwoArmText text(n, rng, hardness, own);
  const auto arm = [&](const std::vector<double>& taste, double by) {
    std::vector<std::vector<SegmentNll>> runs;
    for (size_t j = 0; j < k; ++j) runs.push_back(text.run(taste, shift(rng) - by, rng, own));
    return runs;
  };
  const auto row = arm(text.row_taste, better), versus = arm(text.versus_taste, 0);
  std::vector<NllPair> pairs;
  std::vector<double> row_ppl, versus_ppl;
  for (size_t j = 0; j < k; ++j) {
    pairs.push_back({versus[j], row[j]});
    row_ppl.push_back(corpus_perplexity(row[j]));
    versus_ppl.push_back(corpus_perplexity(versus[j]));
  }
  out.test_set += pooled_paired_bootstrap_perplexity(pairs, kDraws, rng()).p < 0.05;
  const auto welch = welch_t_test(row_ppl, versus_ppl);
  out.seeds_t += welch && welch->p < 0.05;
  out.fathom += seed_arms_perplexity(row, versus).p < 0.05;
}

void arms_table(const std::vector<long>& seed_counts, const std::vector<long>& spreads,
                long replications, size_t n) {
  std::printf(
      "\ntwo configurations of k seeds each, each with its own strengths on the text "
      "(sd %.2f a segment)\n",
      kOwnSd);
  std::printf("%5s %8s | %-24s | %s\n", "seeds", "seed_sd", "size: pooled welch fathom",
              "power: pooled welch fathom");
  for (long k : seed_counts)
    for (long spread : spreads) {
      const double seed_sd = static_cast<double>(spread) / 1000;
      const double kd = static_cast<double>(k);
      const double segment = kOwnSd * kOwnSd / static_cast<double>(n);
      // Var(d): 2 seed parts, each run's own error, and the two tastes' difference.
      const double better =
          2.8 * std::sqrt(2 * seed_sd * seed_sd / kd + 2 * segment / kd + 2 * segment);
      Rejections null, alternative;
      for (long r = 0; r < replications; ++r) {
        arms_once(n, static_cast<size_t>(k), seed_sd, 0, 5000 + static_cast<uint64_t>(r), null);
        arms_once(n, static_cast<size_t>(k), seed_sd, better, 700000 + static_cast<uint64_t>(r),
                  alternative);
      }
      const double reps = static_cast<double>(replications);
      std::printf("%5ld %8.3f | %6.3f %5.3f %6.3f      | %6.3f %5.3f %6.3f\n", k, seed_sd,
                  null.test_set / reps, null.seeds_t / reps, null.fathom / reps,
                  alternative.test_set / reps, alternative.seeds_t / reps,
                  alternative.fathom / reps);
      std::fflush(stdout);
    }
}

// Two configurations whose k seeds each give both arms a shared part (the same
// initialisation and data order): a seed's effect on the row's run is corr x its effect on the
// versus run + sqrt(1 - corr^2) x its own, both of sd seed_sd. Rejections of the unpaired test
// and of the test paired by seed (seed_paired_perplexity).
struct PairedRejections {
  int unpaired = 0, paired = 0;
};

void paired_once(size_t n, size_t k, double seed_sd, double corr, double better, uint64_t seed,
                 PairedRejections& out) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> hardness(0, 0.3), shift(0, seed_sd), own(0, kOwnSd);
  const TwoArmText text(n, rng, hardness, own);
  std::vector<std::vector<SegmentNll>> row, versus;
  for (size_t j = 0; j < k; ++j) {
    const double common = shift(rng);
    versus.push_back(text.run(text.versus_taste, common, rng, own));
    const double a = corr * common + std::sqrt(1 - corr * corr) * shift(rng) - better;
    row.push_back(text.run(text.row_taste, a, rng, own));
  }
  out.unpaired += seed_arms_perplexity(row, versus).p < 0.05;
  out.paired += seed_paired_perplexity(row, versus).p < 0.05;
}

void paired_table(const std::vector<long>& seed_counts, long replications, size_t n) {
  std::printf(
      "\ntwo configurations whose seeds share a part (corr), seed_sd 0.010: unpaired against "
      "paired by seed\n%5s %5s | %-17s | %s\n",
      "seeds", "corr", "size: unpaired paired", "power: unpaired paired");
  const double seed_sd = 0.010;
  for (long k : seed_counts)
    for (double corr : {0.0, 0.5, 0.9}) {
      const double kd = static_cast<double>(k);
      const double segment = kOwnSd * kOwnSd / static_cast<double>(n);
      // Var(d) unpaired: 2 seed parts, each run's own error, the tastes' difference.
      const double better =
          2.8 * std::sqrt(2 * seed_sd * seed_sd / kd + 2 * segment / kd + 2 * segment);
      PairedRejections null, alternative;
      for (long r = 0; r < replications; ++r) {
        paired_once(n, static_cast<size_t>(k), seed_sd, corr, 0, 31000 + static_cast<uint64_t>(r),
                    null);
        paired_once(n, static_cast<size_t>(k), seed_sd, corr, better,
                    810000 + static_cast<uint64_t>(r), alternative);
      }
      const double reps = static_cast<double>(replications);
      std::printf("%5ld %5.1f | %8.3f %6.3f    | %8.3f %6.3f\n", k, corr, null.unpaired / reps,
                  null.paired / reps, alternative.unpaired / reps, alternative.paired / reps);
      std::fflush(stdout);
    }
}

}  // namespace

int bench_main(int argc, char** argv) {
  const auto seed_counts = parse_size_list(argc > 1 ? argv[1] : "2,3,5");
  const auto spreads = parse_size_list(argc > 2 ? argv[2] : "0,2,5,10");
  const long replications = argc > 3 ? parse_size_list(argv[3]).front() : 1000;
  const size_t n = static_cast<size_t>(argc > 4 ? parse_size_list(argv[4]).front() : 300);
  const double phi = static_cast<double>(argc > 5 ? parse_size_list(argv[5]).front() : 0) / 100;
  std::printf("%zu segments, own error AR(1) phi %.2f\n", n, phi);
  std::printf("%5s %8s %5s | %-32s | %s\n", "seeds", "seed_sd", "rho",
              "size: 1seed pooled t sat fathom", "power: 1seed pooled t sat fathom");
  for (long k : seed_counts)
    for (long spread : spreads) {
      const double seed_sd = static_cast<double>(spread) / 1000;
      const double kd = static_cast<double>(k);
      // An AR(1) error's long-run variance of the mean over n: sd^2 / (1 - phi)^2 / n.
      const double error = kOwnSd * kOwnSd / ((1 - phi) * (1 - phi)) / static_cast<double>(n);
      const double rho = (seed_sd * seed_sd + error) / kd / error;
      const double better = 2.8 * std::sqrt(seed_sd * seed_sd / kd + (1 + 1 / kd) * error);
      Rejections null, alternative;
      for (long r = 0; r < replications; ++r) {
        const size_t seeds = static_cast<size_t>(k);
        test_once(n, seeds, seed_sd, phi, 0, 1000 + static_cast<uint64_t>(r), null);
        test_once(n, seeds, seed_sd, phi, better, 900000 + static_cast<uint64_t>(r), alternative);
      }
      const double reps = static_cast<double>(replications);
      const auto line = [&](const Rejections& x) {
        std::printf("%5.3f %6.3f %5.3f %5.3f %6.3f", x.one_seed / reps, x.test_set / reps,
                    x.seeds_t / reps, x.satterthwaite / reps, x.fathom / reps);
      };
      std::printf("%5ld %8.3f %5.2f | ", k, seed_sd, rho);
      line(null);
      std::printf("   | ");
      line(alternative);
      std::printf("\n");
      std::fflush(stdout);
    }
  if (phi == 0) {
    arms_table(seed_counts, spreads, replications, n);
    paired_table(seed_counts, replications, n);
  }
  std::printf("(size's Monte Carlo standard error at 0.05: %.3f)\n",
              std::sqrt(0.05 * 0.95 / static_cast<double>(replications)));
  return 0;
}

}  // namespace fathom::bench::bench_seed_pooled_size

FATHOM_BENCH_PROGRAM(bench_seed_pooled_size,
                     "size and power of tests of a configuration's seeds against one run");
