#include "core/train/shared_evaluation.h"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include "core/train/rank_group.h"
#include "core/train/stop_request.h"

namespace fathom {

LossReport loss_over_ranks(TransformerImpl& model, const std::vector<Example>& examples,
                           int64_t max_tokens, torch::Device device, double label_smoothing,
                           RankGroup* ranks, std::vector<SegmentNll>* segments,
                           ProgressBar* progress) {
  LossTotals totals = evaluate_loss_totals(model, examples, max_tokens, device, label_smoothing,
                                           ranks ? ranks->rank() : 0, ranks ? ranks->world() : 1,
                                           segments, progress);
  if (ranks) {
    std::vector<torch::Tensor> sums{torch::tensor(
        {totals.smoothed, totals.nll, static_cast<double>(totals.tokens)}, torch::kFloat64)};
    // Each example is one rank's: the others add zeros, so the sum is exactly its value.
    if (segments) {
      std::vector<double> flat;
      for (const auto& s : *segments)
        flat.insert(flat.end(), {s.nll, static_cast<double>(s.tokens)});
      sums.push_back(torch::tensor(flat, torch::kFloat64));
    }
    ranks->all_reduce_sum(sums);
    const double* s = sums[0].data_ptr<double>();
    totals.smoothed = s[0];
    totals.nll = s[1];
    totals.tokens = static_cast<int64_t>(std::llround(s[2]));
    if (segments)
      for (size_t i = 0; i < segments->size(); ++i)
        (*segments)[i] = SegmentNll{sums[1].data_ptr<double>()[2 * i],
                                    std::llround(sums[1].data_ptr<double>()[2 * i + 1])};
  }
  return loss_report(totals);
}

std::vector<std::string> translate_over_ranks(TransformerImpl& model,
                                              const std::vector<Example>& examples,
                                              const Vocab& vocab, const SearchOptions& options,
                                              int64_t max_tokens, torch::Device device,
                                              ProgressBar* progress, const std::atomic<bool>* stop,
                                              RankGroup* ranks, const std::string& key) {
  if (!ranks) return translate(model, examples, vocab, options, max_tokens, device, progress, stop);
  std::vector<size_t> own;
  std::vector<std::string> all;
  // A stop request ends a rank's share at its next batch; the rank still meets the others in
  // the barrier, which counts the shares cut short, so that every rank leaves the decode with
  // StopRequested together (one leaving alone would next call another collective than theirs).
  bool cut_short = false;
  try {
    all = translate(model, examples, vocab, options, max_tokens, device, progress, stop,
                    ranks->rank(), ranks->world(), &own);
  } catch (const StopRequested&) {
    cut_short = true;
  }
  // Sent before the barrier, so rank 0 finds every share there once it has passed it; a rank
  // that died or hung ends the barrier as it ends an update's all-reduce (RankLost).
  if (!ranks->leads() && !cut_short) {
    std::vector<std::string> pairs;  // example index, its translation
    for (size_t i : own) pairs.insert(pairs.end(), {std::to_string(i), all[i]});
    ranks->publish(key + "/" + std::to_string(ranks->rank()), pack_lines(pairs));
  }
  std::vector<torch::Tensor> barrier{torch::full({1}, cut_short ? 1.0 : 0.0, torch::kFloat64)};
  ranks->all_reduce_sum(barrier);
  if (barrier[0].item<double>() > 0) throw StopRequested("the decode (" + key + ")");
  if (!ranks->leads()) return {};
  size_t filled = own.size();
  for (int r = 1; r < ranks->world(); ++r) {
    const std::vector<std::string> pairs =
        unpack_lines(ranks->fetch(key + "/" + std::to_string(r), std::chrono::minutes(1)));
    for (size_t p = 0; p + 1 < pairs.size(); p += 2) {
      const size_t i = std::stoul(pairs[p]);
      if (i >= all.size())
        throw std::runtime_error("rank " + std::to_string(r) + " sent example " + pairs[p] +
                                 " of " + std::to_string(all.size()));
      all[i] = pairs[p + 1];
    }
    filled += pairs.size() / 2;
  }
  if (filled != all.size())
    throw std::runtime_error("the ranks translated " + std::to_string(filled) + " of " +
                             std::to_string(all.size()) + " test sentences");
  return all;
}

std::string pack_lines(const std::vector<std::string>& lines) {
  std::string packed;
  for (const std::string& line : lines) packed += std::to_string(line.size()) + ":" + line;
  return packed;
}

std::vector<std::string> unpack_lines(const std::string& packed) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < packed.size()) {
    const size_t colon = packed.find(':', at);
    if (colon == std::string::npos) throw std::runtime_error("packed lines cut short");
    const size_t length = std::stoul(packed.substr(at, colon - at));
    if (colon + 1 + length > packed.size()) throw std::runtime_error("packed lines cut short");
    lines.push_back(packed.substr(colon + 1, length));
    at = colon + 1 + length;
  }
  return lines;
}

}  // namespace fathom
