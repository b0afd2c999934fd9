#pragma once
// Runs a model in eval mode (dropout off) with an observer installed, and puts both back --
// the observer removed, the training flag restored -- however the scope is left, exceptions
// included. Every analysis that watches a forward pass uses this.
#include "core/model/observer.h"
#include "core/model/transformer.h"

namespace fathom {

class ObservedEval {
 public:
  ObservedEval(TransformerImpl& model, SublayerObserver* observer)
      : model_(model), was_training_(model.is_training()) {
    model_.eval();
    model_.hooks().observer = observer;
  }
  ~ObservedEval() {
    model_.hooks().observer = nullptr;
    model_.train(was_training_);
  }
  ObservedEval(const ObservedEval&) = delete;
  ObservedEval& operator=(const ObservedEval&) = delete;

  // Stops observing before the scope ends (e.g. before a backward pass).
  void detach() { model_.hooks().observer = nullptr; }

 private:
  TransformerImpl& model_;
  bool was_training_;
};

}  // namespace fathom
