#include "core/train/evaluate.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "base/util/progress.h"
#include "core/model/transformer.h"
#include "core/train/loss.h"
#include "core/train/stop_request.h"

namespace fathom {

LossTotals evaluate_loss_totals(TransformerImpl& model, const std::vector<Example>& examples,
                                int64_t max_tokens, torch::Device device, double label_smoothing,
                                int rank, int world, std::vector<SegmentNll>* segments,
                                ProgressBar* progress) {
  LossTotals totals;
  if (segments) segments->assign(examples.size(), SegmentNll{});
  if (examples.empty()) return totals;
  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  const auto batches = plan_batches(examples, max_tokens).all();
  int64_t done = 0;
  for (size_t b = static_cast<size_t>(rank); b < batches.size(); b += static_cast<size_t>(world)) {
    Batch batch = collate(examples, batches[b]).to(device);
    LossSums sums = label_smoothed_loss(model.forward(batch.src, batch.tgt_in), batch.tgt_out,
                                        label_smoothing, true, segments != nullptr);
    totals.smoothed += sums.smoothed.item<double>();
    totals.nll += sums.nll.item<double>();
    totals.tokens += sums.tokens;
    if (segments) {
      const torch::Tensor nll = sums.row_nll.to(torch::kCPU, torch::kFloat64).contiguous();
      const torch::Tensor tokens = sums.row_tokens.to(torch::kCPU, torch::kInt64).contiguous();
      for (size_t i = 0; i < batches[b].size(); ++i)
        (*segments)[batches[b][i]] =
            SegmentNll{nll.data_ptr<double>()[i], tokens.data_ptr<int64_t>()[i]};
    }
    done += static_cast<int64_t>(batches[b].size());
    if (progress) progress->update(done, "");
  }
  model.train(was_training);
  return totals;
}

size_t evaluated_by_rank(const std::vector<Example>& examples, int64_t max_tokens, int rank,
                         int world) {
  if (examples.empty()) return 0;
  const auto batches = plan_batches(examples, max_tokens).all();
  size_t count = 0;
  for (size_t b = static_cast<size_t>(rank); b < batches.size(); b += static_cast<size_t>(world))
    count += batches[b].size();
  return count;
}

LossReport loss_report(const LossTotals& totals) {
  LossReport report;
  report.tokens = totals.tokens;
  if (totals.tokens == 0) return report;
  report.loss = totals.smoothed / static_cast<double>(totals.tokens);
  report.nll = totals.nll / static_cast<double>(totals.tokens);
  report.ppl = std::exp(report.nll);
  return report;
}

LossReport evaluate_loss(TransformerImpl& model, const std::vector<Example>& examples,
                         int64_t max_tokens, torch::Device device, double label_smoothing) {
  return loss_report(
      evaluate_loss_totals(model, examples, max_tokens, device, label_smoothing, 0, 1));
}

namespace {
// The decode's batches: sorted by source length, within max_tokens / beam tokens (beam search
// holds beam x rows sequences). Planned on the sources alone: which sentences share a batch
// sets their output limit (max_len_a x the batch's longest source + max_len_b, as fairseq) and
// their padding, and a translation must not depend on its reference -- `fathom translate`,
// which has none, then decodes a run's test source to its test.hyp.
std::vector<std::vector<size_t>> decode_batches(const std::vector<Example>& examples,
                                                const SearchOptions& options, int64_t max_tokens) {
  const int64_t budget = std::max<int64_t>(1, max_tokens / std::max(1, options.beam));
  return plan_source_batches(examples, budget).all();
}
}  // namespace

size_t translated_by_rank(const std::vector<Example>& examples, const SearchOptions& options,
                          int64_t max_tokens, int rank, int world) {
  const auto batches = decode_batches(examples, options, max_tokens);
  size_t count = 0;
  for (size_t b = static_cast<size_t>(rank); b < batches.size(); b += static_cast<size_t>(world))
    count += batches[b].size();
  return count;
}

std::vector<std::string> translate(TransformerImpl& model, const std::vector<Example>& examples,
                                   const Vocab& vocab, const SearchOptions& options,
                                   int64_t max_tokens, torch::Device device, ProgressBar* progress,
                                   const std::atomic<bool>* stop, int rank, int world,
                                   std::vector<size_t>* translated) {
  std::vector<std::string> out(examples.size());
  const auto batches = decode_batches(examples, options, max_tokens);
  int64_t done = 0;
  for (size_t b = static_cast<size_t>(rank); b < batches.size(); b += static_cast<size_t>(world)) {
    const auto& ids = batches[b];
    throw_if_stop_requested(stop, "decoding the test set");
    Batch batch = collate(examples, ids);
    auto outputs = search(model, batch.src.to(device), options);
    for (size_t i = 0; i < ids.size(); ++i) {
      out[ids[i]] = vocab.decode(outputs[i]);
      if (translated) translated->push_back(ids[i]);
    }
    done += static_cast<int64_t>(ids.size());
    if (progress) progress->update(done, "");
  }
  return out;
}

}  // namespace fathom
