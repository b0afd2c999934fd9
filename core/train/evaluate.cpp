#include "core/train/evaluate.h"

#include <cmath>

#include "base/util/progress.h"
#include "core/model/transformer.h"
#include "core/train/loss.h"
#include "core/train/stop_request.h"

namespace fathom {

LossReport evaluate_loss(TransformerImpl& model, const std::vector<Example>& examples,
                         int64_t max_tokens, torch::Device device, double label_smoothing) {
  LossReport report;
  if (examples.empty()) return report;
  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  double smoothed = 0, nll = 0;
  for (const auto& ids : plan_batches(examples, max_tokens).all()) {
    Batch batch = collate(examples, ids).to(device);
    LossSums sums =
        label_smoothed_loss(model.forward(batch.src, batch.tgt_in), batch.tgt_out, label_smoothing);
    smoothed += sums.smoothed.item<double>();
    nll += sums.nll.item<double>();
    report.tokens += sums.tokens;
  }
  model.train(was_training);
  report.loss = smoothed / report.tokens;
  report.nll = nll / report.tokens;
  report.ppl = std::exp(report.nll);
  return report;
}

std::vector<std::string> translate(TransformerImpl& model, const std::vector<Example>& examples,
                                   const Vocab& vocab, const SearchOptions& options,
                                   int64_t max_tokens, torch::Device device, ProgressBar* progress,
                                   const std::atomic<bool>* stop) {
  std::vector<std::string> out(examples.size());
  // Beam search holds beam x rows sequences: shrink the batch budget accordingly.
  const int64_t budget = std::max<int64_t>(1, max_tokens / std::max(1, options.beam));
  int64_t done = 0;
  for (const auto& ids : plan_batches(examples, budget).all()) {
    throw_if_stop_requested(stop, "decoding the test set");
    Batch batch = collate(examples, ids);
    auto outputs = search(model, batch.src.to(device), options);
    for (size_t i = 0; i < ids.size(); ++i) out[ids[i]] = vocab.decode(outputs[i]);
    done += static_cast<int64_t>(ids.size());
    if (progress) progress->update(done, "");
  }
  return out;
}

}  // namespace fathom
