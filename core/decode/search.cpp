#include "core/decode/search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/data/vocab.h"
#include "core/model/decoding_cache.h"
#include "core/model/transformer.h"

namespace fathom {
namespace {

int64_t max_output_length(const torch::Tensor& source, const SearchOptions& options) {
  const int64_t source_length = source.size(1);
  return std::max<int64_t>(
      1, static_cast<int64_t>(options.max_len_a * source_length) + options.max_len_b);
}

// Log-probabilities of the next token after each prefix: [rows, V]. With a cache the decoder
// reads only what it has not cached yet: the whole prefix at the first step, then its last
// token.
torch::Tensor next_log_probs(TransformerImpl& model, const torch::Tensor& prefix,
                             const torch::Tensor& memory, const torch::Tensor& padding,
                             DecodingCache* cache) {
  const torch::Tensor input =
      cache && cache->length() > 0 ? prefix.slice(1, cache->length(), prefix.size(1)) : prefix;
  torch::Tensor logits = model.decode(input, memory, padding, cache).select(1, input.size(1) - 1);
  torch::Tensor log_probs = torch::log_softmax(logits.to(torch::kFloat32), -1);
  // Never emit pad or bos.
  log_probs.index_fill_(1, torch::tensor({kPadId, kBosId}, torch::kInt64).to(log_probs.device()),
                        -std::numeric_limits<float>::infinity());
  return log_probs;
}

// A hypothesis that ended with eos.
struct FinishedHypothesis {
  std::vector<int64_t> tokens;
  double score;  // length-normalized
};

// A step's beams, K rows per sentence: the row each continues, its token and its score.
struct NextBeams {
  std::vector<int64_t> parent_rows, tokens;
  std::vector<double> scores;
};

// The beams of sentence b after a step: its best candidates (`values`, `indices` over its K
// beams' V tokens each, best first) that go on, K at most. As fairseq, only an eos among the
// top K candidates ends a hypothesis (into `finished`); one ranked lower is dropped (it would
// otherwise fill the K finished slots early). `done` once K hypotheses ended.
void select_beams(int64_t b, int64_t K, int64_t V, int64_t step, double length_penalty,
                  torch::TensorAccessor<float, 2> values, torch::TensorAccessor<int64_t, 2> indices,
                  torch::TensorAccessor<int64_t, 2> prefix_rows, int64_t prefix_length,
                  std::vector<FinishedHypothesis>& finished, std::vector<bool>& done,
                  NextBeams& next) {
  int64_t kept = 0;
  for (int64_t j = 0; j < values.size(1) && !done[b] && kept < K; ++j) {
    const double score = values[b][j];
    if (!std::isfinite(score)) break;
    const int64_t beam = indices[b][j] / V, token = indices[b][j] % V;
    const int64_t row = b * K + beam;
    if (token == kEosId) {
      if (j >= K) continue;
      FinishedHypothesis f;
      for (int64_t t = 1; t < prefix_length; ++t) f.tokens.push_back(prefix_rows[row][t]);
      f.score = score / std::pow(static_cast<double>(step + 1), length_penalty);
      finished.push_back(std::move(f));
      if (static_cast<int64_t>(finished.size()) >= K) done[b] = true;
      continue;
    }
    next.parent_rows[b * K + kept] = row;
    next.tokens[b * K + kept] = token;
    next.scores[b * K + kept] = score;
    ++kept;
  }
  // Rows of a finished sentence keep decoding padding with -inf score (ignored).
  for (int64_t k = kept; k < K; ++k) next.parent_rows[b * K + k] = b * K;
}

}  // namespace

std::vector<std::vector<int64_t>> greedy_search(TransformerImpl& model, const torch::Tensor& source,
                                                const SearchOptions& options) {
  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  const int64_t B = source.size(0);
  const int64_t max_len = max_output_length(source, options);
  torch::Tensor memory = model.encode(source);
  torch::Tensor padding = source.eq(kPadId);
  torch::Tensor prefix = torch::full({B, 1}, kBosId, source.options());
  std::vector<std::vector<int64_t>> out(B);
  std::vector<bool> done(B, false);
  DecodingCache cache;
  DecodingCache* cached = options.incremental ? &cache : nullptr;
  for (int64_t step = 0; step < max_len; ++step) {
    torch::Tensor next = next_log_probs(model, prefix, memory, padding, cached).argmax(-1);
    if (step == max_len - 1) next.fill_(kEosId);
    prefix = torch::cat({prefix, next.unsqueeze(1)}, 1);
    auto tokens = next.cpu();
    auto accessor = tokens.accessor<int64_t, 1>();
    bool all_done = true;
    for (int64_t b = 0; b < B; ++b) {
      if (done[b]) continue;
      if (accessor[b] == kEosId)
        done[b] = true;
      else
        out[b].push_back(accessor[b]);
      all_done = all_done && done[b];
    }
    if (all_done) break;
  }
  model.train(was_training);
  return out;
}

std::vector<std::vector<int64_t>> beam_search(TransformerImpl& model, const torch::Tensor& source,
                                              const SearchOptions& options) {
  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  const int64_t B = source.size(0), K = options.beam;
  const int64_t max_len = max_output_length(source, options);
  const double neg_inf = -std::numeric_limits<double>::infinity();

  // Every sentence's encoder output repeated K times: rows b*K .. b*K+K-1 are sentence b.
  torch::Tensor memory = model.encode(source).repeat_interleave(K, 0);
  torch::Tensor padding = source.eq(kPadId).repeat_interleave(K, 0);
  torch::Tensor prefix = torch::full({B * K, 1}, kBosId, source.options());
  // Only the first beam of each sentence is live at the start.
  std::vector<double> scores(B * K, neg_inf);
  for (int64_t b = 0; b < B; ++b) scores[b * K] = 0.0;

  std::vector<std::vector<FinishedHypothesis>> finished(B);
  std::vector<bool> done(B, false);
  DecodingCache cache;
  DecodingCache* cached = options.incremental ? &cache : nullptr;

  for (int64_t step = 0; step < max_len; ++step) {
    torch::Tensor log_probs =
        next_log_probs(model, prefix, memory, padding, cached).cpu();  // [B*K, V]
    const int64_t V = log_probs.size(1);
    const bool last_step = step == max_len - 1;
    if (last_step) {
      // The limit counts eos (as greedy_search): every live beam ends here with eos, scored
      // with eos's log-prob, so a truncated hypothesis gets no free pass on its final term.
      torch::Tensor eos = log_probs.select(1, kEosId).clone();
      log_probs.fill_(-std::numeric_limits<float>::infinity());
      log_probs.select(1, kEosId).copy_(eos);
    }
    torch::Tensor base = torch::tensor(scores, torch::kFloat64).to(torch::kFloat32).unsqueeze(1);
    torch::Tensor candidates = (log_probs + base).view({B, K * V});
    // 2K candidates: enough that K continue even if K of them end with eos.
    auto top = candidates.topk(std::min<int64_t>(2 * K, K * V), 1);
    auto values = std::get<0>(top).accessor<float, 2>();
    auto indices = std::get<1>(top).accessor<int64_t, 2>();

    NextBeams next{std::vector<int64_t>(B * K, 0), std::vector<int64_t>(B * K, kPadId),
                   std::vector<double>(B * K, neg_inf)};
    auto prefix_cpu = prefix.cpu();
    for (int64_t b = 0; b < B; ++b)
      select_beams(b, K, V, step, options.length_penalty, values, indices,
                   prefix_cpu.accessor<int64_t, 2>(), prefix.size(1), finished[b], done, next);
    if (std::all_of(done.begin(), done.end(), [](bool d) { return d; })) break;
    torch::Tensor parents = torch::tensor(next.parent_rows, torch::kInt64).to(prefix.device());
    torch::Tensor tokens = torch::tensor(next.tokens, torch::kInt64).to(prefix.device());
    prefix = torch::cat({prefix.index_select(0, parents), tokens.unsqueeze(1)}, 1);
    if (cached) cache.reorder(parents);  // each row's past becomes its parent's
    scores = next.scores;
  }

  std::vector<std::vector<int64_t>> out(B);
  for (int64_t b = 0; b < B; ++b) {
    auto best = std::max_element(
        finished[b].begin(), finished[b].end(),
        [](const FinishedHypothesis& x, const FinishedHypothesis& y) { return x.score < y.score; });
    if (best != finished[b].end()) out[b] = best->tokens;
  }
  model.train(was_training);
  return out;
}

std::vector<std::vector<int64_t>> search(TransformerImpl& model, const torch::Tensor& source,
                                         const SearchOptions& options) {
  return options.beam <= 1 ? greedy_search(model, source, options)
                           : beam_search(model, source, options);
}

}  // namespace fathom
