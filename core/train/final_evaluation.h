#pragma once
// The evaluation that ends a run (methods.md s1): validation and test loss/perplexity over the
// whole splits and test BLEU of `eval.max_sentences` decoded sentences (beam, length penalty
// and length limit from the config's `eval`). The trainer records it as the run's final
// metrics; analyses that change a model (layer linearization) call the same function, so a
// "BLEU change" and a run's `test_bleu` are always measured the same way.
#include <torch/torch.h>

#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "base/metrics/bleu.h"
#include "core/data/dataset.h"
#include "core/train/evaluate.h"

namespace fathom {

class RankGroup;
class TransformerImpl;

struct FinalEvaluation {
  std::optional<LossReport> valid;  // absent without a validation split
  std::optional<LossReport> test;   // absent without a test split
  // Every validation and test example's NLL and tokens, in the split's order, beside `valid`
  // and `test`: what a paired test of two runs' perplexities resamples.
  std::vector<SegmentNll> valid_segments, test_segments;
  std::vector<std::string> hypotheses;  // decoded test sentences, in order
  std::optional<BleuScore> bleu;        // of `hypotheses` against their references
  double decode_seconds = 0;
  // BLEU of the first train.valid_bleu validation sentences (where set), decoded the same way.
  std::optional<BleuScore> valid_bleu;
};

struct FinalEvaluationOptions {
  bool valid = true;      // validation loss/perplexity
  bool test_loss = true;  // test loss/perplexity
  bool decode = true;     // test BLEU (the slow part)
  bool progress = false;  // progress bars on stderr: each loss pass and the decode
  // Set (a signal): StopRequested between its steps and decode batches (stop_request.h).
  const std::atomic<bool>* stop = nullptr;
  // A data-parallel run's ranks: each evaluates its share (core/train/shared_evaluation.h),
  // every rank calls this; rank 0 gets the whole result, the others the losses only.
  RankGroup* ranks = nullptr;
};

// The search of the config's `eval` section (beam, length penalty, length limit): how a run
// decodes its test set, and what `fathom translate` uses unless told otherwise.
SearchOptions eval_search(const RunConfig& config);

// In eval mode; the model's observer (if any) stays installed, so a replaced layer is
// evaluated as replaced.
FinalEvaluation final_evaluation(TransformerImpl& model, const Dataset& data,
                                 const RunConfig& config, torch::Device device,
                                 const FinalEvaluationOptions& options = {});

// BLEU of the first `count` validation sentences, decoded as the test set is (the eval
// section's search): the run's valid_bleu, at each validation and at the end. With `ranks`
// every rank calls it and decodes its share (translate_over_ranks under `key`, a key new to
// the session); rank 0 gets the score, the others nullopt. A set `stop` ends the decode
// between batches with StopRequested, on every rank together (translate_over_ranks).
std::optional<BleuScore> validation_bleu(TransformerImpl& model, const Dataset& data,
                                         const RunConfig& config, torch::Device device,
                                         size_t count, RankGroup* ranks = nullptr,
                                         const std::string& key = "",
                                         const std::atomic<bool>* stop = nullptr);

// Its losses, perplexities and (where the data counted bytes) bits per byte as final metrics
// (valid_loss, valid_ppl, valid_bpb, valid_bleu, test_*): what a finished run records of it
// besides test BLEU.
void add_evaluation_metrics(const FinalEvaluation& final, const Dataset& data,
                            std::map<std::string, double>& metrics);

}  // namespace fathom
