#include "base/metrics/tokenized_segments.h"

#include <stdexcept>

#include "base/metrics/ngram_matches.h"
#include "base/metrics/py_text.h"

namespace fathom {

TokenizedSegments::TokenizedSegments(const std::vector<std::string>& segments) {
  // The text first, whole, so that no view is taken before the buffer stops growing.
  std::vector<size_t> ends;
  ends.reserve(segments.size());
  for (const std::string& segment : segments) {
    const std::string tokenized = tokenize_13a(std::string(py_rstrip(segment)));
    text_.insert(text_.end(), tokenized.begin(), tokenized.end());
    ends.push_back(text_.size());
  }
  first_.reserve(segments.size() + 1);
  first_.push_back(0);
  size_t begin = 0;
  for (size_t end : ends) {
    for (std::string_view token : py_split(std::string_view(text_.data() + begin, end - begin)))
      tokens_.push_back(token);
    first_.push_back(tokens_.size());
    begin = end;
  }
}

TokenizedSegments tokenized_references(const std::vector<std::string>& references) {
  for (size_t i = 0; i < references.size(); ++i)
    if (references[i].empty())
      throw std::invalid_argument("corpus_bleu: reference " + std::to_string(i + 1) +
                                  " is empty (sacreBLEU refuses empty references)");
  return TokenizedSegments(references);
}

BleuStats tokens_bleu_stats(const std::string_view* hyp, size_t hyp_size,
                            const std::string_view* ref, size_t ref_size) {
  const NgramMatches counted = ngram_matches(hyp, hyp_size, ref, ref_size);
  BleuStats stats;
  stats.matches = counted.matches;  // clipped by the reference's counts
  stats.totals = counted.totals;
  stats.hyp_len = static_cast<int64_t>(hyp_size);
  stats.ref_len = static_cast<int64_t>(ref_size);
  return stats;
}

}  // namespace fathom
