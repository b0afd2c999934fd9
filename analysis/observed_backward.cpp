#include "analysis/observed_backward.h"

#include <algorithm>

#include "core/model/observed_eval.h"
#include "core/train/loss.h"

namespace fathom::analysis {

void observed_loss_backward(TransformerImpl& model, const Batch& batch, double label_smoothing,
                            SublayerObserver* observer, const std::function<void()>& read) {
  model.zero_grad();
  try {
    ObservedEval observed(model, observer);
    LossSums sums =
        label_smoothed_loss(model.forward(batch.src, batch.tgt_in), batch.tgt_out, label_smoothing);
    observed.detach();
    (sums.smoothed / static_cast<double>(std::max<int64_t>(sums.tokens, 1))).backward();
    read();
  } catch (...) {
    model.zero_grad();
    throw;
  }
  model.zero_grad();
}

}  // namespace fathom::analysis
