#pragma once
// Synthetic corpora shaped like WMT text for the data benchmarks (bench_data,
// bench_data_cache): Zipf s = 1 over 50,000 words, 5-60 words a sentence, the target saying
// each source word with a word of its own; deterministic. Header-only.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace fathom::bench {

// A word of the synthetic language: frequent ranks get short words, as in natural text.
inline std::string word(std::uint32_t rank, std::uint32_t salt) {
  std::string w;
  std::uint32_t x = rank * 2654435761u + salt;
  const int length = 2 + static_cast<int>(std::log2(2.0 + rank));
  for (int k = 0; k < length; ++k) {
    w.push_back(static_cast<char>('a' + x % 26));
    x = x * 1103515245u + 12345u;
  }
  return w;
}

// Writes `pairs` sentence pairs (Zipf s = 1 over 50,000 words, 5-60 words a sentence; the
// target says each source word with a word of its own), deterministic from the seed.
inline void write_corpus(const std::string& src_path, const std::string& tgt_path,
                         std::size_t pairs) {
  constexpr std::uint32_t kWords = 50'000;
  std::vector<double> cdf(kWords);
  double sum = 0;
  for (std::uint32_t r = 0; r < kWords; ++r) cdf[r] = (sum += 1.0 / (r + 1));
  for (double& c : cdf) c /= sum;
  std::vector<std::string> src_words(kWords), tgt_words(kWords);
  for (std::uint32_t r = 0; r < kWords; ++r) src_words[r] = word(r, 17), tgt_words[r] = word(r, 91);
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> length(5, 60);
  std::ofstream src(src_path), tgt(tgt_path);
  std::string s, t;
  for (std::size_t i = 0; i < pairs; ++i) {
    s.clear(), t.clear();
    const int n = length(rng);
    for (int k = 0; k < n; ++k) {
      const auto r = static_cast<std::uint32_t>(std::lower_bound(cdf.begin(), cdf.end(), u(rng)) -
                                                cdf.begin());
      s += (k ? " " : "") + src_words[std::min(r, kWords - 1)];
      t += (k ? " " : "") + tgt_words[std::min(r, kWords - 1)];
    }
    src << s << '\n';
    tgt << t << '\n';
  }
}

}  // namespace fathom::bench
