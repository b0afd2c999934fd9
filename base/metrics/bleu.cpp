#include "base/metrics/bleu.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string_view>

#include "base/metrics/py_text.h"
#include "base/metrics/tokenized_segments.h"

namespace fathom {

namespace {

constexpr int kMaxOrder = 4;

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);  // rounds like Python's f"{x:.Nf}"
  return buf;
}

}  // namespace

BleuStats& BleuStats::operator+=(const BleuStats& other) {
  for (int n = 0; n < kMaxOrder; ++n) {
    matches[n] += other.matches[n];
    totals[n] += other.totals[n];
  }
  hyp_len += other.hyp_len;
  ref_len += other.ref_len;
  return *this;
}

bool BleuStats::operator==(const BleuStats& other) const {
  return matches == other.matches && totals == other.totals && hyp_len == other.hyp_len &&
         ref_len == other.ref_len;
}

std::string bleu_signature(bool effective_order) {
  // "version" names the sacreBLEU release whose behaviour is reproduced, not Fathom's version,
  // so scores can be compared with numbers reported by sacreBLEU users.
  return std::string("nrefs:1|case:mixed|eff:") + (effective_order ? "yes" : "no") +
         "|tok:13a|smooth:exp|version:" + kSacreBleuVersion;
}

BleuStats sentence_bleu_stats(const std::string& hyp, const std::string& ref) {
  const std::string hyp_tok = tokenize_13a(std::string(py_rstrip(hyp)));
  const std::string ref_tok = tokenize_13a(std::string(py_rstrip(ref)));
  const auto hyp_tokens = py_split(hyp_tok);
  const auto ref_tokens = py_split(ref_tok);
  return tokens_bleu_stats(hyp_tokens.data(), hyp_tokens.size(), ref_tokens.data(),
                           ref_tokens.size());
}

BleuScore corpus_bleu(const std::vector<std::string>& hyps, const std::vector<std::string>& refs) {
  if (hyps.size() != refs.size()) {
    throw std::invalid_argument("corpus_bleu: " + std::to_string(hyps.size()) + " hypotheses but " +
                                std::to_string(refs.size()) + " references");
  }
  BleuStats total;
  for (std::size_t i = 0; i < hyps.size(); ++i) {
    if (refs[i].empty()) {
      throw std::invalid_argument("corpus_bleu: reference " + std::to_string(i + 1) +
                                  " is empty (sacreBLEU refuses empty references)");
    }
    total += sentence_bleu_stats(hyps[i], refs[i]);
  }
  return bleu_from_stats(total);
}

BleuScore sentence_bleu(const std::string& hyp, const std::string& ref) {
  return bleu_from_stats(sentence_bleu_stats(hyp, ref), true);
}

BleuScore bleu_from_stats(const BleuStats& stats, bool effective_order) {
  BleuScore out;
  out.stats = stats;
  out.hyp_len = stats.hyp_len;
  out.ref_len = stats.ref_len;
  out.signature = bleu_signature(effective_order);
  out.ratio = stats.ref_len > 0 ? static_cast<double>(stats.hyp_len) / stats.ref_len : 0.0;
  if (stats.hyp_len < stats.ref_len) {
    out.bp = stats.hyp_len > 0 ? std::exp(1.0 - static_cast<double>(stats.ref_len) / stats.hyp_len)
                               : 0.0;
  }

  // No match of any order: score and all precisions are 0 (sacreBLEU's early exit).
  if (std::all_of(stats.matches.begin(), stats.matches.end(), [](int64_t m) { return m == 0; })) {
    return out;
  }

  // 'exp' smoothing (mteval-v13a): the k-th order with no match gets precision 1 / (2^k * total).
  // An order with no hypothesis n-grams stops the loop; it and higher orders keep precision 0,
  // which makes the score 0 below.
  double smooth = 1.0;
  int orders = kMaxOrder;  // how many precisions the mean takes
  for (int n = 0; n < kMaxOrder; ++n) {
    if (stats.totals[n] == 0) break;
    if (effective_order) orders = n + 1;
    if (stats.matches[n] == 0) {
      smooth *= 2;
      out.precisions[n] = 100.0 / (smooth * static_cast<double>(stats.totals[n]));
    } else {
      out.precisions[n] = 100.0 * static_cast<double>(stats.matches[n]) / stats.totals[n];
    }
  }

  // Geometric mean in percent; sacreBLEU floors log(0) at -9999999999, giving exp(...) == 0.
  double log_sum = 0.0;
  for (int n = 0; n < orders; ++n)
    log_sum += out.precisions[n] == 0.0 ? -9999999999.0 : std::log(out.precisions[n]);
  out.score = out.bp * std::exp(log_sum / orders);
  return out;
}

std::string BleuScore::verbose() const {
  std::string s;
  for (int n = 0; n < kMaxOrder; ++n) {
    if (n > 0) s += '/';
    s += fixed(precisions[n], 1);
  }
  return s + " (BP = " + fixed(bp, 3) + " ratio = " + fixed(ratio, 3) +
         " hyp_len = " + std::to_string(hyp_len) + " ref_len = " + std::to_string(ref_len) + ")";
}

std::string BleuScore::format(int width) const {
  return "BLEU = " + fixed(score, width) + " " + verbose();
}

}  // namespace fathom
