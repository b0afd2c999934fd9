#pragma once
// Token-budget batching: which examples go together and in which order, without tensors
// (fathom_data: `fathom data plan` reads a corpus's plan without LibTorch). Collation into
// tensors is core/data/batch.h.
//
// Batching: examples are stably sorted by (source length, target length) so rows of a batch
// have similar lengths (little padding), then cut greedily into batches whose padded size
// rows * max(longest source, longest target) stays within max_tokens. The batch *composition*
// is fixed for a corpus (a BatchPlan); each epoch visits the batches in an order that is a
// function of (seed, epoch) alone, so training can resume at exactly (epoch, batch index) and
// the order is the same with every standard library.
#include <cstdint>
#include <string>
#include <vector>

#include "core/data/example.h"
#include "core/data/token_pairs.h"

namespace fathom {

// `length` rounded up to a multiple of `multiple` (>= 1); 0 stays 0 (a decoder-only model's
// empty source).
std::int64_t padded_length(std::int64_t length, std::int64_t multiple);

// The padded size a batch of these examples would have: rows * max(longest src, longest tgt),
// each length rounded up to a multiple of pad_multiple.
std::int64_t padded_tokens(const TokenPairs& examples, const std::vector<std::size_t>& ids,
                           std::int64_t pad_multiple = 1);
std::int64_t padded_tokens(const std::vector<Example>& examples,
                           const std::vector<std::size_t>& ids, std::int64_t pad_multiple = 1);

// The fixed grouping of a split's examples into batches (in length-sorted order), held flat:
// 4 bytes an example and 8 a batch, so a plan of millions of pairs stays small.
struct BatchPlan {
  std::vector<std::uint32_t> order;  // example indices, length-sorted, batch after batch
  std::vector<std::size_t> starts;   // batch b is order[starts[b] .. starts[b + 1])
  std::int64_t max_tokens = 0;
  std::int64_t pad_multiple = 1;  // batches collate with their sides padded to a multiple of it
  std::size_t examples = 0;

  std::size_t size() const { return starts.empty() ? 0 : starts.size() - 1; }
  bool empty() const { return size() == 0; }
  std::vector<std::size_t> batch(std::size_t b) const;  // example indices of batch b
  std::vector<std::vector<std::size_t>> all() const;    // every batch, in plan order
};

// Greedy length-bucketed batching under the token budget, lengths counted padded to
// pad_multiple (so a full batch's rows follow from its rounded length: few distinct shapes).
// An example that alone exceeds the budget gets a batch of its own. max_tokens and pad_multiple
// must be > 0 (std::invalid_argument otherwise). At pad_multiple 1 the plan is the one Fathom
// always made.
BatchPlan plan_batches(const TokenPairs& examples, std::int64_t max_tokens,
                       std::int64_t pad_multiple = 1);
BatchPlan plan_batches(const std::vector<Example>& examples, std::int64_t max_tokens,
                       std::int64_t pad_multiple = 1);

// What a plan's batches are as tensors: how many distinct (rows, source length, target length)
// shapes they collate to (each is one CUDA graph under train.cuda_graphs) and the padded
// positions rows * max(sides) summed, beside the longer side's real tokens summed.
struct BatchShapes {
  std::size_t distinct = 0;
  std::int64_t padded_positions = 0;
  std::int64_t longer_side_tokens = 0;
  std::vector<std::uint32_t> of_batch;  // batch b's shape, numbered as the plan first meets it
  // The positions beyond the longer sides' tokens, in % of those tokens (0 with no tokens).
  double padding_percent() const;
};
BatchShapes batch_shapes(const TokenPairs& examples, const BatchPlan& plan);

// The most shapes train.cuda_graphs captures (core/train/graphed_updates.h); batches of the
// others run eagerly every time.
constexpr std::size_t kGraphedShapesLimit = 512;
// The share of `visits` (batch indices, an epoch's order) whose shape is among the first
// `max_shapes` distinct ones met along them: what train.cuda_graphs replays from then on.
double replayable_share(const BatchShapes& shapes, const std::vector<std::size_t>& visits,
                        std::size_t max_shapes = kGraphedShapesLimit);
// "6946 batches of 299 shapes (data.pad_to_multiple 8; padding 11.5 % of the longer sides'
// tokens)": a training run's tag data.batches.
std::string describe_batch_shapes(const BatchShapes& shapes, std::size_t batches,
                                  std::int64_t pad_multiple);
// The same plan made from the sources alone, every target counted as its eos: how a decode
// groups sentences (core/train/evaluate.cpp), which their references must not shape.
BatchPlan plan_source_batches(const std::vector<Example>& examples, std::int64_t max_tokens);

// The order in which one epoch visits the plan's batches: a permutation of 0..plan.size()-1
// that depends only on (seed, epoch). Evaluation can use the plan's order (sorted,
// deterministic).
std::vector<std::size_t> epoch_order(const BatchPlan& plan, std::uint64_t seed, std::int64_t epoch);
// The batches of one epoch, materialised: plan.batch(epoch_order(...)[k]) for each k.
std::vector<std::vector<std::size_t>> epoch_batches(const BatchPlan& plan, std::uint64_t seed,
                                                    std::int64_t epoch);

// Removes examples with a side longer than max_len ids, eos not counted (max_len <= 0: keep
// all). Returns how many were removed; the order of the rest is kept.
std::size_t drop_long_examples(std::vector<Example>& examples, std::int64_t max_len);

}  // namespace fathom
