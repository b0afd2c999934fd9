#pragma once
// What the ranks of a data-parallel run evaluate together (docs/distributed.md): a split's
// loss -- each rank its share of the split's batches, the sums added up in one float64
// all-reduce -- and translations -- each rank every world-th of the decode's batches (the
// batches one process decodes: the same translations), rank 0 gathering them back in order. Without
// ranks (null), one process does it all. Every rank must call these in the same order; rank 0 alone
// gets the translations.
#include <torch/torch.h>

#include <atomic>
#include <string>
#include <vector>

#include "core/data/batch.h"
#include "core/data/vocab.h"
#include "core/decode/search.h"
#include "core/train/evaluate.h"

namespace fathom {

class RankGroup;
class ProgressBar;
class TransformerImpl;

// With `segments` set, every example's NLL and tokens too (on every rank: added up with the
// sums).
LossReport loss_over_ranks(TransformerImpl& model, const std::vector<Example>& examples,
                           int64_t max_tokens, torch::Device device, double label_smoothing,
                           RankGroup* ranks, std::vector<SegmentNll>* segments = nullptr,
                           ProgressBar* progress = nullptr);

// Rank 0: every example's translation, in order; the other ranks: an empty list (they send
// theirs, as index/text pairs, to rank 0 through the rendezvous store under `key`, once per
// session). A set `stop` ends the decode between batches with StopRequested -- with ranks, on
// every rank together, once any rank's share was cut short (pass the ranks' relayed flag,
// RankGroup::stop_flag(), so that all of them stop soon).
std::vector<std::string> translate_over_ranks(TransformerImpl& model,
                                              const std::vector<Example>& examples,
                                              const Vocab& vocab, const SearchOptions& options,
                                              int64_t max_tokens, torch::Device device,
                                              ProgressBar* progress, const std::atomic<bool>* stop,
                                              RankGroup* ranks, const std::string& key);

// The text lines packed into one string and back, each prefixed with its length (a line may
// hold any byte).
std::string pack_lines(const std::vector<std::string>& lines);
std::vector<std::string> unpack_lines(const std::string& packed);

}  // namespace fathom
