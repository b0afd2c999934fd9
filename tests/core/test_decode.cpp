// Tests for decoding (core/decode/search.h): greedy search is the step-by-step argmax path,
// beam search finds the exact best sequence when the beam is wide enough to be exhaustive and
// otherwise agrees with an independent fairseq-rule beam search, pad/bos are never emitted, lengths
// respect max_len_a * S + b (eos included), and a model trained on a copy task copies held-out
// sequences (an end-to-end check of model, loss, optimizer, schedule and search together).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <vector>

#include "base/config/config.h"
#include "base/config/lr_schedule.h"
#include "core/data/batch.h"
#include "core/data/vocab.h"
#include "core/decode/search.h"
#include "core/model/transformer.h"
#include "core/train/loss.h"
#include "core/train/optimizer.h"

using namespace fathom;

namespace test_decode {

constexpr int64_t kVocab = 20;
using Ids = std::vector<int64_t>;

RunConfig tiny_config(const std::string& norm = "post", bool tied = true) {
  RunConfig c;
  c.model.d_model = 16;
  c.model.heads = 2;
  c.model.d_ff = 32;
  c.model.encoder_layers = 2;
  c.model.decoder_layers = 2;
  c.model.dropout = 0.1;  // search must switch to eval mode itself
  c.model.norm = norm;
  c.model.tie_decoder_embeddings = tied;
  return c;
}

// Log-probabilities (over the full vocabulary) of the next token after each prefix row, read
// from model.decode directly; source is [1, S] or [rows, S].
torch::Tensor next_log_probs(TransformerImpl& model, const torch::Tensor& source,
                             const torch::Tensor& prefix) {
  torch::NoGradGuard no_grad;
  const torch::Tensor memory = model.encode(source).expand({prefix.size(0), -1, -1});
  const torch::Tensor padding = source.eq(kPadId).expand({prefix.size(0), -1});
  const torch::Tensor logits = model.decode(prefix, memory, padding);
  return torch::log_softmax(logits.select(1, prefix.size(1) - 1), -1);
}

torch::Tensor prefix_of(const Ids& tokens) {
  Ids row{kBosId};
  row.insert(row.end(), tokens.begin(), tokens.end());
  return torch::tensor(row, torch::kInt64).unsqueeze(0);
}

// Sum of log p of `tokens` followed by eos, under the model (teacher forcing, full softmax).
double sequence_log_prob(TransformerImpl& model, const torch::Tensor& source, const Ids& tokens) {
  double total = 0;
  Ids prefix;
  for (size_t i = 0; i <= tokens.size(); ++i) {
    const int64_t next = i < tokens.size() ? tokens[i] : kEosId;
    total += next_log_probs(model, source, prefix_of(prefix))[0][next].item<double>();
    if (i < tokens.size()) prefix.push_back(next);
  }
  return total;
}

int64_t max_len(int64_t S, const SearchOptions& o) {
  return static_cast<int64_t>(o.max_len_a * S) + o.max_len_b;
}

// Greedy output is the argmax path: recomputed one token at a time from model.decode on each
// sentence alone (no padding), never choosing pad or bos, stopping at eos, with eos forced at
// the last allowed position (max length counts eos). Fails if greedy picks another token,
// misaligns rows of a padded batch, emits pad/bos, or ignores the length limit.
TEST(Decode, GreedyIsTheArgmaxPath) {
  Transformer model = build_model(tiny_config(), kVocab, 21);
  model->train();  // greedy_search must evaluate in eval mode and restore the mode
  const torch::Tensor source =
      torch::tensor({{5, 9, 4, 11, 7, 3}, {8, 6, 13, 3, 0, 0}}, torch::kInt64);
  SearchOptions options;
  options.beam = 1;
  options.max_len_a = 0.0;  // the limit must not depend on the batch's padded width
  options.max_len_b = 6;
  const auto out = search(*model, source, options);
  EXPECT_TRUE(model->is_training());
  ASSERT_EQ(out.size(), 2u);
  model->eval();
  for (int64_t b = 0; b < 2; ++b) {
    SCOPED_TRACE(b);
    const torch::Tensor row = source[b].masked_select(source[b].ne(kPadId)).unsqueeze(0);
    Ids expected;
    for (int64_t step = 0; step < options.max_len_b - 1; ++step) {
      torch::Tensor lp = next_log_probs(*model, row, prefix_of(expected))[0].clone();
      lp[kPadId] = -INFINITY;
      lp[kBosId] = -INFINITY;
      const int64_t token = lp.argmax().item<int64_t>();
      if (token == kEosId) break;
      expected.push_back(token);
    }
    EXPECT_EQ(out[b], expected);
    EXPECT_LE(static_cast<int64_t>(out[b].size()), options.max_len_b - 1);
  }
}

// With a beam as wide as every candidate of the second step (17 live prefixes x 18 allowed
// tokens = 306 beams) and a limit of 3 tokens including eos, beam search is exhaustive: no
// candidate is ever cut, so its result must be the
// sequence with the best length-normalized log-prob among all outputs [eos], [a, eos],
// [a, b, eos], computed here by enumeration with model.decode, and at least as good as
// greedy's. Tried for length penalties 1 and 0. Fails on wrong parent/token bookkeeping,
// wrong scores or normalization, or a wrong length limit.
TEST(Decode, WideBeamIsExactSearch) {
  Transformer model = build_model(tiny_config(), kVocab, 22);
  model->eval();
  const torch::Tensor source = torch::tensor({{6, 14, 9, 3}}, torch::kInt64);
  Ids content;  // tokens a search may emit before eos
  for (int64_t v = 0; v < kVocab; ++v)
    if (v != kPadId && v != kBosId && v != kEosId) content.push_back(v);
  const int64_t C = static_cast<int64_t>(content.size());

  // Log-probs after [bos], after [bos, a], after [bos, a, b] for all a, b.
  const torch::Tensor lp0 = next_log_probs(*model, source, prefix_of({}))[0];
  std::vector<Ids> second;
  for (int64_t a : content) second.push_back({a});
  std::vector<Ids> third;
  for (int64_t a : content)
    for (int64_t b : content) third.push_back({a, b});
  auto batch_prefixes = [&](const std::vector<Ids>& rows) {
    std::vector<torch::Tensor> t;
    for (const auto& r : rows) t.push_back(prefix_of(r));
    return torch::cat(t, 0);
  };
  const torch::Tensor lp1 = next_log_probs(*model, source, batch_prefixes(second));
  const torch::Tensor lp2 = next_log_probs(*model, source, batch_prefixes(third));

  for (double penalty : {1.0, 0.0}) {
    SCOPED_TRACE(penalty);
    auto normalized = [&](double score, int length) { return score / std::pow(length, penalty); };
    Ids best = {};
    double best_score = normalized(lp0[kEosId].item<double>(), 1);
    for (int64_t i = 0; i < C; ++i) {
      const double s1 = lp0[content[i]].item<double>();
      const double with_eos = normalized(s1 + lp1[i][kEosId].item<double>(), 2);
      if (with_eos > best_score) best_score = with_eos, best = {content[i]};
      for (int64_t j = 0; j < C; ++j) {
        const double s2 = s1 + lp1[i][content[j]].item<double>();
        const double s3 = normalized(s2 + lp2[i * C + j][kEosId].item<double>(), 3);
        if (s3 > best_score) best_score = s3, best = {content[i], content[j]};
      }
    }
    SearchOptions options;
    options.beam = static_cast<int>(C * (C + 1));
    options.length_penalty = penalty;
    options.max_len_a = 0.0;
    options.max_len_b = 3;
    const auto beam = search(*model, source, options);
    ASSERT_EQ(beam.size(), 1u);
    EXPECT_EQ(beam[0], best) << "exhaustive best score " << best_score;
    EXPECT_NEAR(normalized(sequence_log_prob(*model, source, beam[0]),
                           static_cast<int>(beam[0].size()) + 1),
                best_score, 1e-4);

    options.beam = 1;
    const auto greedy = search(*model, source, options);
    EXPECT_GE(best_score + 1e-6, normalized(sequence_log_prob(*model, source, greedy[0]),
                                            static_cast<int>(greedy[0].size()) + 1));
  }
}

// An independent beam search with fairseq's rules (SequenceGenerator), written from its
// description, over model.decode: each step scores every live hypothesis's continuations
// (pad/bos excluded; eos only at the last allowed step), takes the best 2K candidates, ends
// the eos candidates among the best K (a hypothesis's score: sum log p / length^penalty, eos
// counted in the length), continues the first K others, and stops once K hypotheses ended.
Ids reference_beam(TransformerImpl& model, const torch::Tensor& source, int K, int64_t limit,
                   double penalty) {
  struct Hyp {
    Ids tokens;
    double score;
  };
  std::vector<Hyp> live{{{}, 0.0}}, finished;
  for (int64_t step = 0; step < limit; ++step) {
    std::vector<torch::Tensor> rows;
    for (const auto& h : live) rows.push_back(prefix_of(h.tokens));
    const torch::Tensor lp = next_log_probs(model, source, torch::cat(rows, 0)).to(torch::kFloat64);
    struct Candidate {
      double score;
      size_t hyp;
      int64_t token;
    };
    std::vector<Candidate> candidates;
    for (size_t i = 0; i < live.size(); ++i)
      for (int64_t v = 0; v < lp.size(1); ++v) {
        if (v == kPadId || v == kBosId) continue;
        if (step == limit - 1 && v != kEosId) continue;
        candidates.push_back({live[i].score + lp[i][v].item<double>(), i, v});
      }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
    if (candidates.size() > static_cast<size_t>(2 * K)) candidates.resize(2 * K);
    std::vector<Hyp> next;
    for (size_t j = 0; j < candidates.size(); ++j) {
      const Candidate& c = candidates[j];
      if (c.token == kEosId) {
        if (j < static_cast<size_t>(K))
          finished.push_back(
              {live[c.hyp].tokens, c.score / std::pow(static_cast<double>(step + 1), penalty)});
        if (finished.size() == static_cast<size_t>(K)) break;
        continue;
      }
      if (next.size() < static_cast<size_t>(K)) {
        Ids tokens = live[c.hyp].tokens;
        tokens.push_back(c.token);
        next.push_back({tokens, c.score});
      }
    }
    if (finished.size() >= static_cast<size_t>(K)) break;
    live = next;
  }
  size_t best = 0;
  for (size_t i = 1; i < finished.size(); ++i)
    if (finished[i].score > finished[best].score) best = i;
  return finished.empty() ? Ids{} : finished[best].tokens;
}

// Beam search against the reference above on random models whose eos is made likely (its
// embedding row scaled up), so hypotheses end at all steps: several batches with padding, beam
// sizes and length penalties; every sentence of the batch must get the reference's result for
// that sentence alone. Fails on any deviation in candidate selection, finishing, stopping,
// scoring, per-sentence bookkeeping in the batch, or padding rows given to the wrong sentence.
TEST(Decode, BeamMatchesReferenceImplementation) {
  std::mt19937 rng(77);
  std::uniform_int_distribution<int64_t> token(4, kVocab - 1);
  int compared = 0, nonempty = 0, shorter_than_limit = 0;
  // (seed, eos scale): seed 48 with scale 5 has a step where a second eos candidate ranks
  // below the K-th place, which fairseq drops (an implementation that finalized it differs).
  for (const auto& [seed, eos_scale] :
       std::vector<std::pair<uint64_t, double>>{{41, 2.5}, {42, 2.5}, {43, 2.5}, {48, 5.0}}) {
    Transformer model = build_model(tiny_config(seed % 2 ? "post" : "pre"), kVocab, seed);
    {
      torch::NoGradGuard no_grad;
      model->named_parameters()["source_embedding"][kEosId].mul_(eos_scale);
    }
    model->eval();
    // Three sentences of lengths 6, 4 and 2 (eos included), padded to 6.
    std::vector<Ids> sentences;
    for (int length : {6, 4, 2}) {
      Ids s;
      for (int i = 0; i + 1 < length; ++i) s.push_back(token(rng));
      s.push_back(kEosId);
      sentences.push_back(s);
    }
    torch::Tensor batch = torch::zeros({3, 6}, torch::kInt64);
    for (size_t b = 0; b < 3; ++b)
      for (size_t i = 0; i < sentences[b].size(); ++i) batch[b][i] = sentences[b][i];
    for (int K : {2, 3, 5}) {
      for (double penalty : {1.0, 0.6}) {
        SearchOptions options;
        options.beam = K;
        options.length_penalty = penalty;
        options.max_len_a = 0.0;
        options.max_len_b = 6;
        const auto out = search(*model, batch, options);
        ASSERT_EQ(out.size(), 3u);
        for (size_t b = 0; b < 3; ++b) {
          const torch::Tensor alone = torch::tensor(sentences[b], torch::kInt64).unsqueeze(0);
          const Ids expected = reference_beam(*model, alone, K, 6, penalty);
          EXPECT_EQ(out[b], expected)
              << "seed " << seed << " K " << K << " penalty " << penalty << " sentence " << b;
          ++compared;
          nonempty += !expected.empty();
          shorter_than_limit += static_cast<int64_t>(expected.size()) < 5;
        }
      }
    }
  }
  // The cases must be varied: some outputs stop early, some are non-empty.
  EXPECT_GT(nonempty, compared / 4);
  EXPECT_GT(shorter_than_limit, compared / 4);
}

// Beam search over a batch gives each sentence the same result as searching it alone (rows
// b*K .. b*K+K-1 must stay with sentence b), within the length limit, without specials.
// Fails if beams of different sentences mix or the batch's padding leaks into another
// sentence.
TEST(Decode, BeamBatchEqualsSentencesAlone) {
  Transformer model = build_model(tiny_config("pre"), kVocab, 23);
  const torch::Tensor source =
      torch::tensor({{5, 9, 4, 11, 7, 3}, {8, 6, 13, 3, 0, 0}, {12, 3, 0, 0, 0, 0}}, torch::kInt64);
  SearchOptions options;
  options.beam = 4;
  options.max_len_a = 0.0;
  options.max_len_b = 7;
  const auto batch = search(*model, source, options);
  ASSERT_EQ(batch.size(), 3u);
  for (int64_t b = 0; b < 3; ++b) {
    const torch::Tensor row = source[b].masked_select(source[b].ne(kPadId)).unsqueeze(0);
    const auto alone = search(*model, row, options);
    EXPECT_EQ(batch[b], alone[0]) << "sentence " << b;
    EXPECT_LE(static_cast<int64_t>(batch[b].size()), options.max_len_b - 1);
    for (int64_t t : batch[b]) {
      EXPECT_NE(t, kPadId);
      EXPECT_NE(t, kBosId);
      EXPECT_NE(t, kEosId);
    }
  }
}

// A model whose decoder output is a fixed vector h (Pre-LN final norm with gamma 0, beta h)
// and whose untied output rows make pad and bos the most likely tokens, then token 7, with eos
// least likely: neither search may emit pad or bos; greedy must emit 7s up to the limit, and
// beam too (every prefix has the same next-token distribution, so the all-7 sequence of
// maximal length has the best mean log-prob). Then raise eos above 7: both must return the
// empty output. Lengths: at most a * S + b tokens including eos (S = padded source width).
TEST(Decode, NeverEmitsPadOrBosAndRespectsTheLengthLimit) {
  Transformer model = build_model(tiny_config("pre", /*tied=*/false), kVocab, 24);
  const int64_t d = 16;
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor h = torch::ones({d}) / std::sqrt(static_cast<double>(d));  // |h| = 1
    for (auto& p : model->named_parameters()) {
      if (p.key() == "decoder.decoder_final_norm.ln.weight") p.value().zero_();
      if (p.key() == "decoder.decoder_final_norm.ln.bias") p.value().copy_(h);
      if (p.key() == "output_projection") {
        p.value()[kPadId].copy_(10 * h);
        p.value()[kBosId].copy_(10 * h);
        p.value()[7].copy_(5 * h);
        p.value()[kEosId].copy_(-5 * h);
      }
    }
  }
  const torch::Tensor source = torch::tensor({{5, 9, 4, 3}, {8, 3, 0, 0}}, torch::kInt64);
  SearchOptions options;
  options.max_len_a = 1.5;
  options.max_len_b = 2;
  const int64_t limit = max_len(source.size(1), options);  // 8 tokens including eos
  ASSERT_EQ(limit, 8);
  for (int beam : {1, 3}) {
    SCOPED_TRACE(beam);
    options.beam = beam;
    const auto out = search(*model, source, options);
    ASSERT_EQ(out.size(), 2u);
    for (const auto& row : out) EXPECT_EQ(row, Ids(limit - 1, 7));
  }
  {
    torch::NoGradGuard no_grad;
    model->named_parameters()["output_projection"][kEosId].copy_(8 * torch::ones({d}) /
                                                                 std::sqrt(static_cast<double>(d)));
  }
  for (int beam : {1, 3}) {
    SCOPED_TRACE(beam);
    options.beam = beam;
    const auto out = search(*model, source, options);
    ASSERT_EQ(out.size(), 2u);
    for (const auto& row : out) EXPECT_TRUE(row.empty());
  }
}

// Random untrained models, several sources: outputs stay within the limit and never contain
// pad, bos or eos, for greedy and beam.
TEST(Decode, OutputsStayWithinTheLimit) {
  Transformer model = build_model(tiny_config(), kVocab, 25);
  std::mt19937 rng(5);
  std::uniform_int_distribution<int64_t> token(4, kVocab - 1);
  for (int trial = 0; trial < 4; ++trial) {
    const int64_t S = 2 + trial;
    Ids ids;
    for (int64_t i = 0; i < S - 1; ++i) ids.push_back(token(rng));
    ids.push_back(kEosId);
    const torch::Tensor source = torch::tensor(ids, torch::kInt64).unsqueeze(0);
    for (int beam : {1, 3}) {
      SearchOptions options;
      options.beam = beam;
      options.max_len_a = 1.2;
      options.max_len_b = 1;
      const auto out = search(*model, source, options);
      EXPECT_LE(static_cast<int64_t>(out[0].size()) + 1, max_len(S, options));
      for (int64_t t : out[0]) EXPECT_GE(t, 4);
    }
  }
}

// ---------------------------------------------------------------- end to end: copy task

constexpr int kMinCopy = 3, kMaxCopy = 6;

Ids random_sequence(std::mt19937& rng) {
  std::uniform_int_distribution<int> length(kMinCopy, kMaxCopy);
  std::uniform_int_distribution<int64_t> token(4, 15);
  Ids s(static_cast<size_t>(length(rng)));
  for (auto& t : s) t = token(rng);
  return s;
}

std::string text(const Ids& ids) {
  std::string out;
  for (int64_t t : ids) out += (out.empty() ? "" : " ") + std::to_string(t);
  return out;
}

// Trains `model` to copy random sequences of ids 4..15 (64 fresh sequences per update, the
// trainer's recipe: label smoothing 0.1, per-token mean, Adam, inverse-sqrt schedule);
// returns the last update's smoothed loss per token.
double train_copy_model(Transformer& model, int updates) {
  TrainConfig tc;
  tc.optimizer = "adam";
  std::vector<std::pair<std::string, torch::Tensor>> named;
  for (const auto& p : model->named_parameters()) named.emplace_back(p.key(), p.value());
  Optimizer optimizer(named, tc);
  TrainConfig schedule;  // inverse_sqrt, peaking at 3e-3 after 40 updates
  schedule.lr = 3e-3;
  schedule.warmup = 40;
  std::mt19937 rng(1234);
  model->train();
  double loss = 0;
  for (int u = 1; u <= updates; ++u) {
    std::vector<Example> examples;
    std::vector<size_t> ids;
    for (size_t i = 0; i < 64; ++i) {
      const Ids s = random_sequence(rng);
      examples.push_back(make_example(s, s));
      ids.push_back(i);
    }
    const Batch batch = collate(examples, ids);
    optimizer.zero_grad();
    LossSums sums =
        label_smoothed_loss(model->forward(batch.src, batch.tgt_in), batch.tgt_out, 0.1);
    torch::Tensor mean = sums.smoothed / static_cast<double>(sums.tokens);
    mean.backward();
    optimizer.step(learning_rate(schedule, u));
    loss = mean.item<double>();
  }
  return loss;
}

// End to end: a 1+1-layer d=64 Post-LN model trained for 300 updates on random copy data
// (~10 s on one CPU thread) copies 30 held-out sequences exactly with greedy search, one at a
// time and as one padded batch. Its training loss must approach the label-smoothing floor
// H(q) = -(0.9 + 0.1/16) ln(0.9 + 0.1/16) - 15 (0.1/16) ln(0.1/16) = 0.565 (V = 16). Fails if
// anything in model, loss, optimizer, schedule, batching or search is wrong enough to prevent
// learning a trivial task. (Tuned over 20 model seeds x post/pre: all copy 30/30.)
// Beam search (K = 4) is held to 27/30 only: it stops, as fairseq's, once K hypotheses have
// ended, and with label smoothing every token (eos included) keeps p ~ 0.1/16, so short
// hypotheses can fill the K slots before the copy ends (seen: greedy right, beam truncated).
TEST(Decode, TrainedCopyModelCopiesHeldOutSequences) {
  const auto start = std::chrono::steady_clock::now();
  // Tiny matrices: more threads only add synchronization (and oversubscribe shared CI cores).
  torch::set_num_threads(1);
  RunConfig config;
  config.model.d_model = 64;
  config.model.heads = 4;
  config.model.d_ff = 128;
  config.model.encoder_layers = 1;
  config.model.decoder_layers = 1;
  config.model.dropout = 0.0;
  config.model.norm = "post";
  Transformer model = build_model(config, 16, 3);
  const double loss = train_copy_model(model, 300);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("copy task: final train loss %.3f after %.1f s\n", loss, seconds);
  const double floor =
      -(0.9 + 0.1 / 16) * std::log(0.9 + 0.1 / 16) - 15 * (0.1 / 16) * std::log(0.1 / 16);
  EXPECT_GT(loss, floor - 1e-3);  // nothing can beat the smoothed target's entropy
  EXPECT_LT(loss, floor + 0.05);

  std::mt19937 rng(999);  // held-out sequences: another stream than training
  const int trials = 30;
  std::vector<Ids> sources;
  for (int i = 0; i < trials; ++i) sources.push_back(random_sequence(rng));
  int exact_greedy = 0, exact_beam = 0;
  for (const auto& s : sources) {
    Ids with_eos = s;
    with_eos.push_back(kEosId);
    const torch::Tensor source = torch::tensor(with_eos, torch::kInt64).unsqueeze(0);
    SearchOptions options;
    options.beam = 1;
    const auto greedy = search(*model, source, options);
    exact_greedy += greedy[0] == s;
    if (greedy[0] != s)
      std::printf("greedy: [%s] -> [%s]\n", text(s).c_str(), text(greedy[0]).c_str());
    options.beam = 4;
    const auto beam = search(*model, source, options);
    exact_beam += beam[0] == s;
    if (beam[0] != s) {
      model->eval();
      std::printf("beam: [%s] (%.3f) -> [%s] (%.3f)\n", text(s).c_str(),
                  sequence_log_prob(*model, source, s) / (s.size() + 1), text(beam[0]).c_str(),
                  sequence_log_prob(*model, source, beam[0]) / (beam[0].size() + 1));
    }
  }
  EXPECT_EQ(exact_greedy, trials);
  EXPECT_GE(exact_beam, trials - 3);

  // Batched greedy with padding gives the same copies.
  std::vector<Example> examples;
  std::vector<size_t> ids;
  for (size_t i = 0; i < sources.size(); ++i) {
    examples.push_back(make_example(sources[i], sources[i]));
    ids.push_back(i);
  }
  SearchOptions options;
  options.beam = 1;
  const auto batched = search(*model, collate(examples, ids).src, options);
  int exact_batched = 0;
  for (size_t i = 0; i < sources.size(); ++i) exact_batched += batched[i] == sources[i];
  EXPECT_EQ(exact_batched, trials);
}

}  // namespace test_decode
