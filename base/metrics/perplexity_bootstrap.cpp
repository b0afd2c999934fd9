#include "base/metrics/perplexity_bootstrap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "base/metrics/block_length.h"
#include "base/util/error.h"
#include "base/util/usable_cores.h"

namespace fathom {
namespace {

constexpr const char* kHeader = "nll\ttokens";

double perplexity_of(double nll, int64_t tokens) {
  return tokens > 0 ? std::exp(nll / static_cast<double>(tokens)) : 0;
}

void check_pairs(const std::vector<NllPair>& pairs) {
  if (pairs.empty()) throw std::invalid_argument("paired bootstrap: no pair of systems");
  const size_t n = pairs.front().baseline.size();
  for (size_t k = 0; k < pairs.size(); ++k) {
    const std::string pair = "paired bootstrap: pair " + std::to_string(k + 1);
    if (pairs[k].baseline.size() != n || pairs[k].system.size() != n)
      throw std::invalid_argument(pair + " has " + std::to_string(pairs[k].baseline.size()) +
                                  " and " + std::to_string(pairs[k].system.size()) +
                                  " segments for " + std::to_string(n));
    for (size_t i = 0; i < n; ++i) {
      const int64_t base = pairs[k].baseline[i].tokens, sys = pairs[k].system[i].tokens;
      if (base != sys)
        throw std::invalid_argument(
            pair + ", segment " + std::to_string(i + 1) + ": " + std::to_string(base) +
            " target tokens for the baseline, " + std::to_string(sys) +
            " for the system -- they tokenise the test set differently, so their perplexities "
            "per token do not compare");
      if (base <= 0)
        throw std::invalid_argument(pair + ", segment " + std::to_string(i + 1) +
                                    " has no target tokens");
    }
  }
}

// A draw's perplexity exp(sum nll / sum tokens) is about P (1 + mean_k(nll_k - tokens_k N/T) /
// (T/n)): each segment's first-order share of one run's corpus perplexity is
// P (nll_k - tokens_k r) / (T/n), r = N/T.
std::vector<double> perplexity_influence(const std::vector<SegmentNll>& run) {
  double nll = 0, tokens = 0;
  for (const auto& s : run) {
    nll += s.nll;
    tokens += static_cast<double>(s.tokens);
  }
  const double rate = nll / tokens, perplexity = std::exp(rate);
  const double mean_tokens = tokens / static_cast<double>(run.size());
  std::vector<double> psi(run.size());
  for (size_t k = 0; k < run.size(); ++k)
    psi[k] = perplexity * (run[k].nll - static_cast<double>(run[k].tokens) * rate) / mean_tokens;
  return psi;
}

}  // namespace

std::vector<double> perplexity_difference_influence(const std::vector<NllPair>& pairs) {
  check_pairs(pairs);
  const double pair_count = static_cast<double>(pairs.size());
  std::vector<double> influence(pairs.front().baseline.size(), 0.0);
  for (const auto& pair : pairs) {
    const std::vector<double> system = perplexity_influence(pair.system);
    const std::vector<double> baseline = perplexity_influence(pair.baseline);
    for (size_t k = 0; k < influence.size(); ++k)
      influence[k] += (system[k] - baseline[k]) / pair_count;
  }
  return influence;
}

double corpus_perplexity(const std::vector<SegmentNll>& segments) {
  double nll = 0;
  int64_t tokens = 0;
  for (const auto& s : segments) {
    nll += s.nll;
    tokens += s.tokens;
  }
  return perplexity_of(nll, tokens);
}

namespace {

// serial_block_lengths, the difference's influence given.
SerialBlocks serial_blocks(const std::vector<NllPair>& pairs,
                           const std::vector<double>& influence) {
  const size_t n = pairs.front().baseline.size();
  const double pair_count = static_cast<double>(pairs.size());
  std::vector<double> base(n, 0.0), sys(n, 0.0);
  for (const auto& pair : pairs)
    for (size_t k = 0; k < n; ++k) {
      base[k] += pair.baseline[k].nll / pair_count;
      sys[k] += pair.system[k].nll / pair_count;
    }
  return {circular_block_length(influence),
          std::max(circular_block_length(base), circular_block_length(sys))};
}

}  // namespace

SerialBlocks serial_block_lengths(const std::vector<NllPair>& pairs) {
  return serial_blocks(pairs, perplexity_difference_influence(pairs));
}

PairedBootstrap pooled_paired_bootstrap_perplexity(const std::vector<NllPair>& pairs, int samples,
                                                   uint64_t seed, SegmentOrder order) {
  check_pairs(pairs);
  const double pair_count = static_cast<double>(pairs.size());
  std::pair<double, double> whole{0, 0};
  for (const auto& pair : pairs) {
    whole.first += corpus_perplexity(pair.baseline) / pair_count;
    whole.second += corpus_perplexity(pair.system) / pair_count;
  }
  const auto score = [&](const std::vector<size_t>& drawn) {
    std::pair<double, double> mean{0, 0};
    for (const auto& pair : pairs) {
      double base = 0, sys = 0;
      int64_t tokens = 0;  // the same for both systems (checked)
      for (size_t k : drawn) {
        base += pair.baseline[k].nll;
        sys += pair.system[k].nll;
        tokens += pair.baseline[k].tokens;
      }
      mean.first += perplexity_of(base, tokens) / pair_count;
      mean.second += perplexity_of(sys, tokens) / pair_count;
    }
    return mean;
  };
  const size_t n = pairs.front().baseline.size();
  const int threads = usable_cores();  // `score` reads the pairs only
  if (order == SegmentOrder::independent)
    return paired_bootstrap(n, whole, score, samples, seed, 1, {}, threads);
  // The verdict's draws in the difference's own blocks; each system's interval, where its own
  // series needs other blocks (a hardness both share drifts further than their difference),
  // from draws in those -- one length for both cost the test its size either way: 7 % at 0.05
  // with the longer, an interval too narrow for a system with the shorter.
  const std::vector<double> influence = perplexity_difference_influence(pairs);
  const SerialBlocks blocks = serial_blocks(pairs, influence);
  PairedBootstrap out =
      paired_bootstrap(n, whole, score, samples, seed, blocks.difference,
                       blocks.difference > 1 ? influence : std::vector<double>{}, threads);
  if (blocks.scores != blocks.difference) {
    const PairedBootstrap scores =
        paired_bootstrap(n, whole, score, samples, seed, blocks.scores, {}, threads);
    out.baseline = scores.baseline;
    out.system = scores.system;
    out.score_block_length = scores.block_length;
  }
  return out;
}

PairedBootstrap paired_bootstrap_perplexity(const std::vector<SegmentNll>& baseline,
                                            const std::vector<SegmentNll>& system, int samples,
                                            uint64_t seed, SegmentOrder order) {
  return pooled_paired_bootstrap_perplexity({NllPair{baseline, system}}, samples, seed, order);
}

SeedArmsTest seed_arms_perplexity(const std::vector<std::vector<SegmentNll>>& a,
                                  const std::vector<std::vector<SegmentNll>>& b,
                                  SegmentOrder order) {
  if (a.empty() || b.empty())
    throw std::invalid_argument("seed test of perplexity: an arm without runs");
  std::vector<const std::vector<SegmentNll>*> runs;
  for (const auto& run : a) runs.push_back(&run);
  for (const auto& run : b) runs.push_back(&run);
  // Every run against the first: the same segments, counted in the same tokens.
  for (size_t r = 1; r < runs.size(); ++r) check_pairs({NllPair{*runs.front(), *runs[r]}});
  const size_t n = runs.front()->size();
  std::vector<std::vector<double>> influence;
  std::vector<double> whole_a, whole_b, difference(n, 0.0);
  for (size_t r = 0; r < runs.size(); ++r) {
    std::vector<double> psi = perplexity_influence(*runs[r]);
    const bool in_a = r < a.size();
    const double weight =
        in_a ? 1.0 / static_cast<double>(a.size()) : -1.0 / static_cast<double>(b.size());
    for (size_t k = 0; k < n; ++k) difference[k] += weight * psi[k];
    influence.push_back(std::move(psi));
    (in_a ? whole_a : whole_b).push_back(corpus_perplexity(*runs[r]));
  }
  const size_t width = order == SegmentOrder::serial ? flat_top_width(difference) : 0;
  SeedArmsTest t =
      seed_arms_test(whole_a, whole_b, arms_error_of_influence(influence, a.size(), width));
  t.lag_window = width;
  return t;
}

SeedArmsTest seed_paired_perplexity(const std::vector<std::vector<SegmentNll>>& a,
                                    const std::vector<std::vector<SegmentNll>>& b,
                                    SegmentOrder order) {
  if (a.size() != b.size() || a.size() < 2)
    throw std::invalid_argument("seed-paired test of perplexity: " + std::to_string(a.size()) +
                                " and " + std::to_string(b.size()) +
                                " runs, not two pairs or more");
  for (size_t j = 0; j < a.size(); ++j) check_pairs({NllPair{a.front(), a[j]}, {a.front(), b[j]}});
  const size_t n = a.front().size();
  std::vector<std::vector<double>> influence;
  std::vector<double> whole_a, whole_b, mean(n, 0.0);
  for (size_t j = 0; j < a.size(); ++j) {
    std::vector<double> psi = perplexity_influence(a[j]);
    const std::vector<double> of_b = perplexity_influence(b[j]);
    for (size_t k = 0; k < n; ++k) {
      psi[k] -= of_b[k];
      mean[k] += psi[k] / static_cast<double>(a.size());
    }
    influence.push_back(std::move(psi));
    whole_a.push_back(corpus_perplexity(a[j]));
    whole_b.push_back(corpus_perplexity(b[j]));
  }
  const size_t width = order == SegmentOrder::serial ? flat_top_width(mean) : 0;
  SeedArmsTest t =
      seed_paired_test(whole_a, whole_b, test_set_error_of_influence(influence, width));
  t.lag_window = width;
  return t;
}

SeedPooledTest seed_pooled_perplexity(const std::vector<SegmentNll>& baseline,
                                      const std::vector<std::vector<SegmentNll>>& systems,
                                      SegmentOrder order) {
  if (systems.size() < 2)
    throw std::invalid_argument("seed-pooled perplexity: fewer than two seeds");
  return as_pooled(seed_arms_perplexity(systems, {baseline}, order));
}

std::string segment_nll_text(const std::vector<SegmentNll>& segments) {
  std::string text = std::string(kHeader) + "\n";
  char line[64];
  for (const auto& s : segments) {
    // 17 significant digits: the file gives back each value as the run computed it.
    std::snprintf(line, sizeof line, "%.17g\t%lld\n", s.nll, static_cast<long long>(s.tokens));
    text += line;
  }
  return text;
}

std::vector<SegmentNll> read_segment_nll_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot be read");
  std::string line;
  if (!std::getline(in, line) || line != kHeader)
    throw InputError(path, 1, "header", "expected \"nll<TAB>tokens\", got \"" + line + "\"");
  std::vector<SegmentNll> out;
  for (int number = 2; std::getline(in, line); ++number) {
    const size_t tab = line.find('\t');
    if (tab == std::string::npos)
      throw InputError(path, number, "nll", "expected NLL<TAB>TOKENS, got \"" + line + "\"");
    SegmentNll s;
    size_t used = 0;
    try {
      s.nll = std::stod(line.substr(0, tab), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != tab || !std::isfinite(s.nll) || s.nll < 0)
      throw InputError(path, number, "nll",
                       "not a non-negative number: \"" + line.substr(0, tab) + "\"");
    const std::string tokens = line.substr(tab + 1);
    try {
      s.tokens = std::stoll(tokens, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != tokens.size() || tokens.empty() || s.tokens < 0)
      throw InputError(path, number, "tokens", "not a token count: \"" + tokens + "\"");
    out.push_back(s);
  }
  return out;
}

}  // namespace fathom
