#include "core/data/batch_plan.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <tuple>

#include "core/data/example_access.h"
#include "core/data/rng.h"

namespace fathom {
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

std::int64_t padded_length(std::int64_t length, std::int64_t multiple) {
  if (multiple <= 1) return length;
  return (length + multiple - 1) / multiple * multiple;
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
  std::map<std::tuple<std::size_t, std::int64_t, std::int64_t>, std::uint32_t> shapes;
  out.of_batch.reserve(plan.size());
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
    const auto shape = shapes.emplace(std::make_tuple(rows, s_len, t_len),
                                      static_cast<std::uint32_t>(shapes.size()));
    out.of_batch.push_back(shape.first->second);
    out.padded_positions += static_cast<std::int64_t>(rows) * std::max(s_len, t_len);
  }
  out.distinct = shapes.size();
  return out;
}

double replayable_share(const BatchShapes& shapes, const std::vector<std::size_t>& visits,
                        std::size_t max_shapes) {
  if (visits.empty()) return 0.0;
  std::vector<char> captured(shapes.distinct, 0);
  std::size_t taken = 0, replayable = 0;
  for (std::size_t b : visits) {
    const std::uint32_t shape = shapes.of_batch.at(b);
    if (!captured[shape] && taken < max_shapes) {
      captured[shape] = 1;
      ++taken;
    }
    replayable += captured[shape];
  }
  return static_cast<double>(replayable) / static_cast<double>(visits.size());
}

double BatchShapes::padding_percent() const {
  if (longer_side_tokens <= 0) return 0.0;
  return 100.0 *
         (static_cast<double>(padded_positions) / static_cast<double>(longer_side_tokens) - 1.0);
}

std::string describe_batch_shapes(const BatchShapes& shapes, std::size_t batches,
                                  std::int64_t pad_multiple) {
  char text[200];
  std::snprintf(text, sizeof text,
                "%zu batches of %zu shapes (data.pad_to_multiple %lld; padding %.1f %% of the "
                "longer sides' tokens)",
                batches, shapes.distinct, static_cast<long long>(pad_multiple),
                shapes.padding_percent());
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
