#include "core/data/batch.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

#include "core/data/rng.h"
#include "core/data/vocab.h"

namespace fathom {
namespace {

std::int64_t len(const std::vector<std::int64_t>& v) { return static_cast<std::int64_t>(v.size()); }

// A [rows, cols] int64 tensor holding each sequence left-aligned and padded with kPadId; with
// shift_right, each row is bos followed by the sequence minus its last id.
torch::Tensor pack(const std::vector<const std::vector<std::int64_t>*>& rows_data,
                   std::int64_t cols, bool shift_right) {
  const auto rows = static_cast<std::int64_t>(rows_data.size());
  auto out = torch::full({rows, cols}, kPadId, torch::kInt64);
  std::int64_t* p = out.data_ptr<std::int64_t>();
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto& seq = *rows_data[static_cast<std::size_t>(r)];
    std::int64_t* row = p + r * cols;
    if (shift_right && !seq.empty()) {
      // Decoder input: bos, then the target without its last id (the final eos).
      row[0] = kBosId;
      for (std::int64_t c = 1; c < len(seq); ++c) row[c] = seq[static_cast<std::size_t>(c - 1)];
    } else {
      std::copy(seq.begin(), seq.end(), row);
    }
  }
  return out;
}

}  // namespace

Example make_example(std::vector<std::int64_t> src, std::vector<std::int64_t> tgt) {
  src.push_back(kEosId);
  tgt.push_back(kEosId);
  return Example{std::move(src), std::move(tgt)};
}

Batch Batch::to(torch::Device device) const {
  Batch b = *this;
  b.src = src.to(device);
  b.tgt_in = tgt_in.to(device);
  b.tgt_out = tgt_out.to(device);
  return b;
}

Batch collate(const std::vector<Example>& examples, const std::vector<std::size_t>& ids) {
  std::vector<const std::vector<std::int64_t>*> srcs, tgts;
  Batch b;
  std::int64_t s_len = 0, t_len = 0;
  for (std::size_t id : ids) {
    const Example& e = examples.at(id);
    srcs.push_back(&e.src);
    tgts.push_back(&e.tgt);
    s_len = std::max(s_len, len(e.src));
    t_len = std::max(t_len, len(e.tgt));
    b.src_tokens += len(e.src);
    b.tgt_tokens += len(e.tgt);
  }
  b.src = pack(srcs, s_len, false);
  b.tgt_in = pack(tgts, t_len, true);
  b.tgt_out = pack(tgts, t_len, false);
  b.ids = ids;
  return b;
}

std::int64_t padded_tokens(const std::vector<Example>& examples,
                           const std::vector<std::size_t>& ids) {
  std::int64_t longest = 0;
  for (std::size_t id : ids)
    longest = std::max({longest, len(examples[id].src), len(examples[id].tgt)});
  return longest * static_cast<std::int64_t>(ids.size());
}

BatchPlan plan_batches(const std::vector<Example>& examples, std::int64_t max_tokens) {
  if (max_tokens <= 0) throw std::invalid_argument("plan_batches: max_tokens must be positive");
  std::vector<std::size_t> order(examples.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  // Stable: equal-length examples keep corpus order, so the plan is fully determined.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Example& x = examples[a];
    const Example& y = examples[b];
    if (x.src.size() != y.src.size()) return x.src.size() < y.src.size();
    return x.tgt.size() < y.tgt.size();
  });

  BatchPlan plan;
  plan.max_tokens = max_tokens;
  plan.examples = examples.size();
  std::vector<std::size_t> current;
  std::int64_t longest = 0;
  for (std::size_t id : order) {
    const std::int64_t l = std::max(len(examples[id].src), len(examples[id].tgt));
    const std::int64_t grown = std::max(longest, l);
    if (!current.empty() && grown * static_cast<std::int64_t>(current.size() + 1) > max_tokens) {
      plan.batches.push_back(std::move(current));
      current.clear();
      longest = 0;
    }
    current.push_back(id);
    longest = std::max(longest, l);
  }
  if (!current.empty()) plan.batches.push_back(std::move(current));
  return plan;
}

std::vector<std::vector<std::size_t>> epoch_batches(const BatchPlan& plan, std::uint64_t seed,
                                                    std::int64_t epoch) {
  // A stream of its own, so other users of the same training seed draw unrelated numbers.
  constexpr std::uint64_t kBatchOrderStream = 0x6261746368ULL;  // "batch"
  std::mt19937_64 rng(
      derive_seed(derive_seed(seed, kBatchOrderStream), static_cast<std::uint64_t>(epoch)));
  const auto perm = random_permutation(plan.batches.size(), rng);
  std::vector<std::vector<std::size_t>> out;
  out.reserve(perm.size());
  for (std::size_t i : perm) out.push_back(plan.batches[i]);
  return out;
}

std::size_t drop_long_examples(std::vector<Example>& examples, std::int64_t max_len) {
  if (max_len <= 0) return 0;
  const std::size_t before = examples.size();
  examples.erase(std::remove_if(examples.begin(), examples.end(),
                                [&](const Example& e) {
                                  return len(e.src) - 1 > max_len || len(e.tgt) - 1 > max_len;
                                }),
                 examples.end());
  return before - examples.size();
}

}  // namespace fathom
