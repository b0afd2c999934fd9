#pragma once
// The gradient analyses' one pass (grad-norms, rank-collapse): a forward of the batch with an
// observer watching the sub-layers, the mean label-smoothed loss per target token, its backward,
// and then what the caller reads of the gradients -- after which the model keeps none, also
// when something throws.
#include <functional>

#include "core/data/batch.h"
#include "core/model/observer.h"
#include "core/model/transformer.h"

namespace fathom::analysis {

void observed_loss_backward(TransformerImpl& model, const Batch& batch, double label_smoothing,
                            SublayerObserver* observer, const std::function<void()>& read);

}  // namespace fathom::analysis
