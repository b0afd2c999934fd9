#include "core/data/batch.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <tuple>

#include "core/data/rng.h"
#include "core/data/vocab.h"

namespace fathom {
namespace {

// The two kinds of split the batcher reads, seen alike: lengths with eos, and ids copied out.
struct ExampleVectorAccess {
  const std::vector<Example>& v;
  std::size_t size() const { return v.size(); }
  std::int64_t src_len(std::size_t i) const { return static_cast<std::int64_t>(v[i].src.size()); }
  std::int64_t tgt_len(std::size_t i) const { return static_cast<std::int64_t>(v[i].tgt.size()); }
  void copy_src(std::size_t i, std::int64_t* out) const {
    std::copy(v[i].src.begin(), v[i].src.end(), out);
  }
  void copy_tgt(std::size_t i, std::int64_t* out) const {
    std::copy(v[i].tgt.begin(), v[i].tgt.end(), out);
  }
};

// Rows of one side, left-aligned and padded with kPadId; with shift_right each row is bos
// followed by the sequence minus its last id (the decoder input under teacher forcing).
template <class Copy, class Length>
torch::Tensor pack(const std::vector<std::size_t>& ids, std::int64_t cols, bool shift_right,
                   Copy copy, Length length) {
  const auto rows = static_cast<std::int64_t>(ids.size());
  auto out = torch::full({rows, cols}, kPadId, torch::kInt64);
  std::int64_t* p = out.data_ptr<std::int64_t>();
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::size_t id = ids[static_cast<std::size_t>(r)];
    std::int64_t* row = p + r * cols;
    copy(id, row);
    const std::int64_t n = length(id);
    if (shift_right && n > 0) {
      std::memmove(row + 1, row, static_cast<std::size_t>(n - 1) * sizeof(std::int64_t));
      row[0] = kBosId;
    }
  }
  return out;
}

template <class Access>
Batch collate_from(const Access& a, const std::vector<std::size_t>& ids,
                   std::int64_t pad_multiple) {
  Batch b;
  std::int64_t s_len = 0, t_len = 0;
  for (std::size_t id : ids) {
    if (id >= a.size()) throw std::out_of_range("collate: example index out of range");
    s_len = std::max(s_len, a.src_len(id));
    t_len = std::max(t_len, a.tgt_len(id));
    b.src_tokens += a.src_len(id);
    b.tgt_tokens += a.tgt_len(id);
  }
  s_len = padded_length(s_len, pad_multiple);
  t_len = padded_length(t_len, pad_multiple);
  auto copy_src = [&](std::size_t id, std::int64_t* out) { a.copy_src(id, out); };
  auto copy_tgt = [&](std::size_t id, std::int64_t* out) { a.copy_tgt(id, out); };
  auto src_len = [&](std::size_t id) { return a.src_len(id); };
  auto tgt_len = [&](std::size_t id) { return a.tgt_len(id); };
  b.src = pack(ids, s_len, false, copy_src, src_len);
  b.tgt_in = pack(ids, t_len, true, copy_tgt, tgt_len);
  b.tgt_out = pack(ids, t_len, false, copy_tgt, tgt_len);
  b.ids = ids;
  return b;
}

}  // namespace

Batch count_only(const TokenPairs& examples, const std::vector<std::size_t>& ids) {
  Batch b;
  for (std::size_t id : ids) {
    if (id >= examples.size()) throw std::out_of_range("count_only: example index out of range");
    b.src_tokens += examples.src_len(id);
    b.tgt_tokens += examples.tgt_len(id);
  }
  b.ids = ids;
  return b;
}

namespace {

template <class Access>
std::int64_t padded_from(const Access& a, const std::vector<std::size_t>& ids,
                         std::int64_t pad_multiple) {
  std::int64_t longest = 0;
  for (std::size_t id : ids) longest = std::max({longest, a.src_len(id), a.tgt_len(id)});
  return padded_length(longest, pad_multiple) * static_cast<std::int64_t>(ids.size());
}

template <class Access>
BatchPlan plan_from(const Access& a, std::int64_t max_tokens, std::int64_t pad_multiple) {
  if (max_tokens <= 0) throw std::invalid_argument("plan_batches: max_tokens must be positive");
  if (pad_multiple <= 0) throw std::invalid_argument("plan_batches: pad_multiple must be positive");
  if (a.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("plan_batches: more than 2^32 examples");
  BatchPlan plan;
  plan.max_tokens = max_tokens;
  plan.pad_multiple = pad_multiple;
  plan.examples = a.size();
  plan.order.resize(a.size());
  std::iota(plan.order.begin(), plan.order.end(), std::uint32_t{0});
  // Stable: equal-length examples keep corpus order, so the plan is fully determined.
  std::stable_sort(plan.order.begin(), plan.order.end(), [&](std::uint32_t x, std::uint32_t y) {
    const std::int64_t sx = a.src_len(x), sy = a.src_len(y);
    if (sx != sy) return sx < sy;
    return a.tgt_len(x) < a.tgt_len(y);
  });
  std::size_t in_batch = 0;
  std::int64_t longest = 0;
  for (std::size_t k = 0; k < plan.order.size(); ++k) {
    const std::uint32_t id = plan.order[k];
    const std::int64_t l = padded_length(std::max(a.src_len(id), a.tgt_len(id)), pad_multiple);
    const std::int64_t grown = std::max(longest, l);
    if (in_batch > 0 && grown * static_cast<std::int64_t>(in_batch + 1) > max_tokens) {
      in_batch = 0;
      longest = 0;
    }
    if (in_batch == 0) plan.starts.push_back(k);
    ++in_batch;
    longest = std::max(longest, l);
  }
  plan.starts.push_back(plan.order.size());
  if (plan.order.empty()) plan.starts.clear();
  return plan;
}

}  // namespace

Batch Batch::to(torch::Device device) const {
  Batch b = *this;
  b.src = src.to(device);
  b.tgt_in = tgt_in.to(device);
  b.tgt_out = tgt_out.to(device);
  return b;
}

std::int64_t padded_length(std::int64_t length, std::int64_t multiple) {
  if (multiple <= 1) return length;
  return (length + multiple - 1) / multiple * multiple;
}

Batch collate(const TokenPairs& examples, const std::vector<std::size_t>& ids,
              std::int64_t pad_multiple) {
  return collate_from(examples, ids, pad_multiple);
}

Batch collate(const std::vector<Example>& examples, const std::vector<std::size_t>& ids,
              std::int64_t pad_multiple) {
  return collate_from(ExampleVectorAccess{examples}, ids, pad_multiple);
}

std::int64_t padded_tokens(const TokenPairs& examples, const std::vector<std::size_t>& ids,
                           std::int64_t pad_multiple) {
  return padded_from(examples, ids, pad_multiple);
}

std::int64_t padded_tokens(const std::vector<Example>& examples,
                           const std::vector<std::size_t>& ids, std::int64_t pad_multiple) {
  return padded_from(ExampleVectorAccess{examples}, ids, pad_multiple);
}

std::vector<std::size_t> BatchPlan::batch(std::size_t b) const {
  return std::vector<std::size_t>(order.begin() + static_cast<std::ptrdiff_t>(starts.at(b)),
                                  order.begin() + static_cast<std::ptrdiff_t>(starts.at(b + 1)));
}

std::vector<std::vector<std::size_t>> BatchPlan::all() const {
  std::vector<std::vector<std::size_t>> out;
  out.reserve(size());
  for (std::size_t b = 0; b < size(); ++b) out.push_back(batch(b));
  return out;
}

BatchPlan plan_batches(const TokenPairs& examples, std::int64_t max_tokens,
                       std::int64_t pad_multiple) {
  return plan_from(examples, max_tokens, pad_multiple);
}

BatchPlan plan_batches(const std::vector<Example>& examples, std::int64_t max_tokens,
                       std::int64_t pad_multiple) {
  return plan_from(ExampleVectorAccess{examples}, max_tokens, pad_multiple);
}

BatchShapes batch_shapes(const TokenPairs& examples, const BatchPlan& plan) {
  BatchShapes out;
  std::set<std::tuple<std::size_t, std::int64_t, std::int64_t>> shapes;
  for (std::size_t b = 0; b < plan.size(); ++b) {
    std::int64_t s_len = 0, t_len = 0;
    for (std::size_t k = plan.starts[b]; k < plan.starts[b + 1]; ++k) {
      const std::uint32_t id = plan.order[k];
      s_len = std::max(s_len, examples.src_len(id));
      t_len = std::max(t_len, examples.tgt_len(id));
      out.longer_side_tokens += std::max(examples.src_len(id), examples.tgt_len(id));
    }
    s_len = padded_length(s_len, plan.pad_multiple);
    t_len = padded_length(t_len, plan.pad_multiple);
    const std::size_t rows = plan.starts[b + 1] - plan.starts[b];
    shapes.emplace(rows, s_len, t_len);
    out.padded_positions += static_cast<std::int64_t>(rows) * std::max(s_len, t_len);
  }
  out.distinct = shapes.size();
  return out;
}

std::string describe_batch_shapes(const BatchShapes& shapes, std::size_t batches,
                                  std::int64_t pad_multiple) {
  const double padding = shapes.longer_side_tokens > 0
                             ? 100.0 * (static_cast<double>(shapes.padded_positions) /
                                            static_cast<double>(shapes.longer_side_tokens) -
                                        1.0)
                             : 0.0;
  char text[200];
  std::snprintf(text, sizeof text,
                "%zu batches of %zu shapes (data.pad_to_multiple %lld; padding %.1f %% of the "
                "longer sides' tokens)",
                batches, shapes.distinct, static_cast<long long>(pad_multiple), padding);
  return text;
}

BatchPlan plan_source_batches(const std::vector<Example>& examples, std::int64_t max_tokens) {
  // The sources' lengths, every target its eos alone: no copy of the examples.
  struct SourcesOnly : ExampleVectorAccess {
    std::int64_t tgt_len(std::size_t) const { return 1; }
  };
  return plan_from(SourcesOnly{{examples}}, max_tokens, 1);
}

std::vector<std::size_t> epoch_order(const BatchPlan& plan, std::uint64_t seed,
                                     std::int64_t epoch) {
  // A stream of its own, so other users of the same training seed draw unrelated numbers.
  constexpr std::uint64_t kBatchOrderStream = 0x6261746368ULL;  // "batch"
  std::mt19937_64 rng(
      derive_seed(derive_seed(seed, kBatchOrderStream), static_cast<std::uint64_t>(epoch)));
  return random_permutation(plan.size(), rng);
}

std::vector<std::vector<std::size_t>> epoch_batches(const BatchPlan& plan, std::uint64_t seed,
                                                    std::int64_t epoch) {
  std::vector<std::vector<std::size_t>> out;
  for (std::size_t b : epoch_order(plan, seed, epoch)) out.push_back(plan.batch(b));
  return out;
}

std::size_t drop_long_examples(std::vector<Example>& examples, std::int64_t max_len) {
  if (max_len <= 0) return 0;
  const std::size_t before = examples.size();
  examples.erase(std::remove_if(examples.begin(), examples.end(),
                                [&](const Example& e) {
                                  return static_cast<std::int64_t>(e.src.size()) - 1 > max_len ||
                                         static_cast<std::int64_t>(e.tgt.size()) - 1 > max_len;
                                }),
                 examples.end());
  return before - examples.size();
}

}  // namespace fathom
