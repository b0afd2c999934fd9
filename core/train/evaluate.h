#pragma once
// Loss/perplexity over a whole split and translation of a split, both in eval mode
// (dropout off) over length-sorted batches.
#include <torch/torch.h>

#include <atomic>

#include <string>
#include <vector>

#include "base/metrics/perplexity_bootstrap.h"
#include "core/data/batch.h"
#include "core/data/vocab.h"
#include "core/decode/search.h"

namespace fathom {

class TransformerImpl;
class ProgressBar;

struct LossReport {
  double loss = 0;  // label-smoothed loss per target token
  double nll = 0;   // unsmoothed negative log-likelihood per target token (nats)
  double ppl = 0;   // exp(nll)
  int64_t tokens = 0;
};

LossReport evaluate_loss(TransformerImpl& model, const std::vector<Example>& examples,
                         int64_t max_tokens, torch::Device device, double label_smoothing);

// The sums a LossReport divides, over rank `rank`'s share of the split's batches (every
// world-th of its plan, as batches_of_rank shares an update): what data-parallel ranks add up.
// With `segments` set, also every example's NLL and target tokens, in the examples' order (the
// examples of other ranks' batches left at zero). `progress` (if set) counts the examples done,
// of evaluated_by_rank's total.
struct LossTotals {
  double smoothed = 0, nll = 0;  // nats, summed over target tokens
  int64_t tokens = 0;
};
LossTotals evaluate_loss_totals(TransformerImpl& model, const std::vector<Example>& examples,
                                int64_t max_tokens, torch::Device device, double label_smoothing,
                                int rank = 0, int world = 1,
                                std::vector<SegmentNll>* segments = nullptr,
                                ProgressBar* progress = nullptr);
LossReport loss_report(const LossTotals& totals);
// How many examples rank `rank` of `world` evaluates (its progress bar's length).
size_t evaluated_by_rank(const std::vector<Example>& examples, int64_t max_tokens, int rank,
                         int world);

// Decoded text of every example's source, in the examples' order. A set `stop` ends it between
// batches with StopRequested (core/train/stop_request.h). With `world` > 1, only rank `rank`'s
// share: every world-th of the decode's batches (the same batches one process decodes, so the
// same translations: a hypothesis that never ends is cut at its batch's length limit), the
// others' entries left empty; `translated` (if set) gets the examples it decoded.
std::vector<std::string> translate(TransformerImpl& model, const std::vector<Example>& examples,
                                   const Vocab& vocab, const SearchOptions& options,
                                   int64_t max_tokens, torch::Device device,
                                   ProgressBar* progress = nullptr,
                                   const std::atomic<bool>* stop = nullptr, int rank = 0,
                                   int world = 1, std::vector<size_t>* translated = nullptr);
// How many examples rank `rank` of `world` decodes (its progress bar's length).
size_t translated_by_rank(const std::vector<Example>& examples, const SearchOptions& options,
                          int64_t max_tokens, int rank, int world);

}  // namespace fathom
