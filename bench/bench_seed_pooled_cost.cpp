// What the tests over seeds and the test set cost at the sizes users reach: a configuration of
// k seeds against one run on test BLEU (seed_pooled_bleu: k + 1 corpora scored on 1,000 draws
// of sentences) and on test perplexity (seed_arms_perplexity: each run's influence and the
// flat-top window, no draws), side by side with one run's paired bootstrap (what each fork's
// own row costs). Milliseconds a test and the process's peak resident memory after it. Then a
// draw's corpus statistics side by side: the drawn segments gathered one by one (the earlier
// scorer) against the columns weighted by each segment's count (base/metrics/bleu_segments.h);
// and building the systems' statistics: each segment's n-grams in hash maps with the references
// tokenised for every system (the earlier count) against sorted integer ids with the references
// tokenised once (base/metrics/ngram_matches.h, tokenized_segments.h).
//   bench_seed_pooled_cost [bleu_sentences=3003,30000,100000]
//                          [ppl_segments=100000,1000000,3000000] [seeds=3]
// Run by hand (never in ctest): about a minute at the defaults.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/metrics/bleu.h"
#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/bleu_segments.h"
#include "base/metrics/paired_bootstrap.h"
#include "base/metrics/perplexity_bootstrap.h"
#include "base/metrics/py_text.h"
#include "base/metrics/tokenized_segments.h"
#include "bench/bench_program.h"
#include "bench/size_list.h"

namespace fathom::bench::bench_seed_pooled_cost {

namespace {

// VmHWM of /proc/self/status in MiB: the peak resident memory so far.
double peak_mib() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024;
  return 0;
}

template <typename F>
double ms_of(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// n sentences of 20 words from a 5,000-word vocabulary; a hypothesis keeps each word with
// probability `keep`.
std::vector<std::string> sentences(size_t n, double keep, std::mt19937_64& rng,
                                   const std::vector<std::string>* of = nullptr) {
  std::uniform_int_distribution<int> word(0, 4999);
  std::bernoulli_distribution kept(keep);
  std::vector<std::string> out(n);
  for (size_t i = 0; i < n; ++i) {
    std::string s;
    size_t at = 0;
    for (int w = 0; w < 20; ++w) {
      std::string token = "w" + std::to_string(word(rng));
      if (of) {  // the reference's word, or another
        const size_t space = (*of)[i].find(' ', at);
        const std::string theirs = (*of)[i].substr(at, space - at);
        at = space == std::string::npos ? (*of)[i].size() : space + 1;
        if (kept(rng)) token = theirs;
      }
      s += (w ? " " : "") + token;
    }
    out[i] = s;
  }
  return out;
}

// 1,000 draws of one system's corpus statistics, gathered and weighted, at n sentences.
void print_draw_cost(const std::vector<std::string>& hyps, const std::vector<std::string>& refs) {
  std::vector<BleuStats> rows;
  for (size_t i = 0; i < hyps.size(); ++i) rows.push_back(sentence_bleu_stats(hyps[i], refs[i]));
  const SegmentBleuStats columns(hyps, refs);
  std::vector<size_t> drawn(hyps.size());
  std::vector<uint32_t> times(hyps.size());
  double gathered_ms = 0, weighted_ms = 0;
  int64_t agree = 0;
  std::mt19937_64 random(7);
  for (int draw = 0; draw < 1000; ++draw) {
    draw_segments(drawn, 1, random);
    BleuStats gathered, weighted;
    gathered_ms += ms_of([&] {
      for (size_t k : drawn) gathered += rows[k];
    });
    weighted_ms += ms_of([&] {
      count_draws(drawn, times);
      weighted = columns.drawn(times);
    });
    agree += gathered == weighted;
  }
  std::printf("%10zu %12.0f %12.0f %8.2fx  (%ld of 1000 draws equal)\n", hyps.size(), gathered_ms,
              weighted_ms, gathered_ms / weighted_ms, static_cast<long>(agree));
  std::fflush(stdout);
}

// The earlier count of one segment: both sides tokenised, each order's n-grams in a hash map of
// strings, the hypothesis's clipped by the reference's.
BleuStats map_counted_stats(const std::string& hyp, const std::string& ref) {
  const std::string hyp_text = tokenize_13a(std::string(py_rstrip(hyp)));
  const std::string ref_text = tokenize_13a(std::string(py_rstrip(ref)));
  const auto hyp_tokens = py_split(hyp_text), ref_tokens = py_split(ref_text);
  BleuStats stats;
  stats.hyp_len = static_cast<int64_t>(hyp_tokens.size());
  stats.ref_len = static_cast<int64_t>(ref_tokens.size());
  for (size_t n = 1; n <= 4; ++n) {
    std::unordered_map<std::string_view, int64_t> in_hyp, in_ref;
    const auto count = [n](const std::vector<std::string_view>& tokens, auto& into) {
      for (size_t i = 0; i + n <= tokens.size(); ++i) {
        const char* end = tokens[i + n - 1].data() + tokens[i + n - 1].size();
        ++into[std::string_view(tokens[i].data(), static_cast<size_t>(end - tokens[i].data()))];
      }
    };
    count(hyp_tokens, in_hyp);
    count(ref_tokens, in_ref);
    for (const auto& [gram, times] : in_hyp) {
      stats.totals[n - 1] += times;
      if (auto it = in_ref.find(gram); it != in_ref.end())
        stats.matches[n - 1] += std::min(times, it->second);
    }
  }
  return stats;
}

// Building `systems`' statistics against one test set: each segment counted in maps with the
// references tokenised for every system (the earlier way), against sorted ids with the
// references tokenised once (tokenized_segments.h) -- side by side, and the same sums.
void print_stats_cost(const std::vector<std::vector<std::string>>& systems,
                      const std::vector<std::string>& refs) {
  BleuStats earlier_sum, now_sum;
  const double earlier_ms = ms_of([&] {
    for (const auto& hyps : systems)
      for (size_t i = 0; i < refs.size(); ++i) earlier_sum += map_counted_stats(hyps[i], refs[i]);
  });
  const double now_ms = ms_of([&] {
    const TokenizedSegments tokenized = tokenized_references(refs);
    for (const auto& hyps : systems) now_sum += SegmentBleuStats(hyps, tokenized).whole();
  });
  std::printf("%10zu %8zu %12.0f %12.0f %8.2fx  (same statistics: %s)\n", refs.size(),
              systems.size(), earlier_ms, now_ms, earlier_ms / now_ms,
              earlier_sum == now_sum ? "yes" : "NO");
  std::fflush(stdout);
}

}  // namespace

int bench_main(int argc, char** argv) {
  const auto bleu_sizes = parse_size_list(argc > 1 ? argv[1] : "3003,30000,100000");
  const auto ppl_sizes = parse_size_list(argc > 2 ? argv[2] : "100000,1000000,3000000");
  const size_t k = static_cast<size_t>(argc > 3 ? parse_size_list(argv[3]).front() : 3);
  std::mt19937_64 rng(1);
  std::printf("test BLEU, %zu seeds against one run, 1,000 draws\n%10s %12s %12s %10s\n", k,
              "sentences", "one run ms", "seeds ms", "peak MiB");
  for (long n : bleu_sizes) {
    const auto refs = sentences(static_cast<size_t>(n), 1, rng);
    const auto base = sentences(refs.size(), 0.5, rng, &refs);
    std::vector<std::vector<std::string>> seeds;
    for (size_t j = 0; j < k; ++j) seeds.push_back(sentences(refs.size(), 0.55, rng, &refs));
    const double one = ms_of([&] { paired_bootstrap_bleu(base, seeds[0], refs); });
    double p = 0;
    const double all = ms_of([&] { p = seed_pooled_bleu(base, seeds, refs).p; });
    std::printf("%10ld %12.0f %12.0f %10.0f  (p %.3f)\n", n, one, all, peak_mib(), p);
    std::fflush(stdout);
  }
  std::printf(
      "\n%zu + 1 systems' BLEU statistics against one test set: maps, references tokenised "
      "each time (earlier), against sorted ids, references tokenised once (now)\n%10s %8s %12s "
      "%12s %9s\n",
      k, "sentences", "systems", "earlier ms", "now ms", "ratio");
  for (long n : bleu_sizes) {
    const auto refs = sentences(static_cast<size_t>(n), 1, rng);
    std::vector<std::vector<std::string>> systems;
    for (size_t j = 0; j <= k; ++j) systems.push_back(sentences(refs.size(), 0.55, rng, &refs));
    print_stats_cost(systems, refs);
  }
  std::printf("\na draw's BLEU statistics, one system, 1,000 draws\n%10s %12s %12s %9s\n",
              "sentences", "gathered ms", "weighted ms", "ratio");
  for (long n : bleu_sizes) {
    const auto refs = sentences(static_cast<size_t>(n), 1, rng);
    print_draw_cost(sentences(refs.size(), 0.5, rng, &refs), refs);
  }
  std::printf(
      "\ntest perplexity of a cut text, %zu seeds against one run (influence, flat-top "
      "window)\n%10s %12s %12s %10s\n",
      k, "segments", "one run ms", "seeds ms", "peak MiB");
  for (long n : ppl_sizes) {
    std::normal_distribution<double> e(0, 0.1);
    const auto text = [&](double by) {
      std::vector<SegmentNll> s(static_cast<size_t>(n));
      double own = 0;
      for (auto& x : s) {
        own = 0.7 * own + e(rng);
        x = {64 * (3 + by + own), 64};
      }
      return s;
    };
    const auto base = text(0);
    std::vector<std::vector<SegmentNll>> seeds;
    for (size_t j = 0; j < k; ++j) seeds.push_back(text(-0.01));
    // One run's test at 100 draws (its studentised blocks cost n x M a draw): a tenth of 1,000.
    const double one =
        ms_of([&] { paired_bootstrap_perplexity(base, seeds[0], 100, 1, SegmentOrder::serial); });
    size_t window = 0;
    const double all = ms_of(
        [&] { window = seed_pooled_perplexity(base, seeds, SegmentOrder::serial).lag_window; });
    std::printf("%10ld %12.0f %12.0f %10.0f  (window %zu; one run at 100 draws)\n", n, one, all,
                peak_mib(), window);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace fathom::bench::bench_seed_pooled_cost

FATHOM_BENCH_PROGRAM(bench_seed_pooled_cost,
                     "ms and memory of the tests over seeds at test sets of users' sizes");
