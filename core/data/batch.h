#pragma once
// A batch as tensors: the examples of a plan's batch (core/data/batch_plan.h) collated.
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "core/data/batch_plan.h"
#include "core/data/example.h"
#include "core/data/token_pairs.h"

namespace fathom {

// A padded mini-batch, on the CPU unless moved with to().
struct Batch {
  torch::Tensor src;            // [B, S] int64, pad-padded (pad = 0)
  torch::Tensor tgt_in;         // [B, T] int64: bos + tgt[:-1] (decoder input, teacher forcing)
  torch::Tensor tgt_out;        // [B, T] int64: tgt (what the decoder must predict), pad-padded
  std::int64_t src_tokens = 0;  // non-pad source tokens (eos included)
  std::int64_t tgt_tokens = 0;  // non-pad target tokens (eos included): the loss denominator
  // Over the rows, sums of S_i^2, T_i^2 and S_i T_i (non-pad lengths): what attention's score
  // products cost (core/train/training_flops.h).
  double src_sq = 0, tgt_sq = 0, src_tgt = 0;
  void add_row(std::int64_t src_len, std::int64_t tgt_len);  // its tokens and the sums above
  std::vector<std::size_t> ids;                              // row i is example ids[i] of the split
  Batch to(torch::Device device) const;
  std::int64_t rows() const { return static_cast<std::int64_t>(ids.size()); }
};

// Stacks examples[ids[0]], examples[ids[1]], ... into one Batch. The training split is read
// where it lies (TokenPairs: in memory or a prepared corpus's mapping); evaluation sets are
// vectors of Examples. Both give the same Batch for the same ids. With pad_multiple > 1 each
// side's columns are padded up to a multiple of it (data.pad_to_multiple): more pad columns,
// which every attention mask, the loss and the token counts already leave out -- fewer batch
// shapes for train.cuda_graphs and tensor-core-friendly lengths.
Batch collate(const TokenPairs& examples, const std::vector<std::size_t>& ids,
              std::int64_t pad_multiple = 1);
// The batch's ids and token counts without its tensors: a batch another data-parallel rank
// trains on, which this one only counts (core/train/batch_stream.h).
Batch count_only(const TokenPairs& examples, const std::vector<std::size_t>& ids);
Batch collate(const std::vector<Example>& examples, const std::vector<std::size_t>& ids,
              std::int64_t pad_multiple = 1);

}  // namespace fathom
