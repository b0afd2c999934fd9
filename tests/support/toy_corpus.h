#pragma once
// A toy German-English corpus for tests that train on real text files: seven words translated
// word for word, sentences of 2-7 words drawn from `rng`. Header-only.
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace fathom::testing {

// `folder`/`split`.de and `folder`/`split`.en, `pairs` lines each, line i translating line i.
inline void write_word_for_word_corpus(const std::filesystem::path& folder,
                                       const std::string& split, int pairs, std::mt19937_64& rng) {
  const std::vector<std::string> de = {"der", "Hund", "läuft", "im", "Park", "ein", "Mann"};
  const std::vector<std::string> en = {"the", "dog", "runs", "in", "park", "a", "man"};
  std::filesystem::create_directories(folder);
  std::ofstream src(folder / (split + ".de")), tgt(folder / (split + ".en"));
  for (int i = 0; i < pairs; ++i) {
    const int n = 2 + static_cast<int>(rng() % 6);
    for (int k = 0; k < n; ++k) {
      const size_t w = rng() % de.size();
      src << (k ? " " : "") << de[w];
      tgt << (k ? " " : "") << en[w];
    }
    src << "\n";
    tgt << "\n";
  }
}

}  // namespace fathom::testing
