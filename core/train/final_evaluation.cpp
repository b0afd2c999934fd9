#include "core/train/final_evaluation.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "base/util/progress.h"
#include "core/data/lm_text.h"
#include "core/model/transformer.h"
#include "core/train/rank_group.h"
#include "core/train/shared_evaluation.h"
#include "core/train/stop_request.h"
#include "db/metric_names.h"

namespace fathom {

SearchOptions eval_search(const RunConfig& config) {
  return SearchOptions{config.eval.beam, config.eval.length_penalty, config.eval.max_len_a,
                       config.eval.max_len_b};
}

std::optional<BleuScore> validation_bleu(TransformerImpl& model, const Dataset& data,
                                         const RunConfig& config, torch::Device device,
                                         size_t count, RankGroup* ranks, const std::string& key,
                                         const std::atomic<bool>* stop) {
  count = std::min(count, data.valid.size());
  const std::vector<Example> sources(data.valid.begin(), data.valid.begin() + count);
  const std::vector<std::string> hypotheses =
      translate_over_ranks(model, sources, *data.vocab, eval_search(config), config.data.max_tokens,
                           device, nullptr, stop, ranks, key);
  if (ranks && !ranks->leads()) return std::nullopt;
  return corpus_bleu(hypotheses, std::vector<std::string>(data.valid_target.begin(),
                                                          data.valid_target.begin() + count));
}

FinalEvaluation final_evaluation(TransformerImpl& model, const Dataset& data,
                                 const RunConfig& config, torch::Device device,
                                 const FinalEvaluationOptions& options) {
  FinalEvaluation out;
  const double smoothing = config.train.label_smoothing;
  throw_if_stop_requested(options.stop, "the final evaluation");
  RankGroup* ranks = options.ranks;
  // A pass over a split: minutes on WMT's, with a bar of this rank's share.
  const auto loss_pass = [&](const char* label, const std::vector<Example>& split,
                             std::vector<SegmentNll>* segments) {
    const size_t share = evaluated_by_rank(split, config.data.max_tokens, ranks ? ranks->rank() : 0,
                                           ranks ? ranks->world() : 1);
    ProgressBar bar(label, static_cast<int64_t>(share), options.progress);
    const LossReport report = loss_over_ranks(model, split, config.data.max_tokens, device,
                                              smoothing, ranks, segments, &bar);
    char status[64];
    std::snprintf(status, sizeof status, "ppl %.4g", report.ppl);
    bar.finish(status);
    return report;
  };
  if (options.valid && !data.valid.empty())
    out.valid = loss_pass("valid loss", data.valid, &out.valid_segments);
  if (data.test.empty()) return out;
  throw_if_stop_requested(options.stop, "the final evaluation");
  if (options.test_loss) out.test = loss_pass("test loss", data.test, &out.test_segments);
  // A language model has no translations to decode (model.arch: decoder_only).
  if (!options.decode || is_decoder_only(config.model)) return out;

  size_t count = data.test.size();
  if (config.eval.max_sentences > 0) count = std::min<size_t>(count, config.eval.max_sentences);
  const std::vector<Example> sources(data.test.begin(), data.test.begin() + count);
  const std::vector<std::string> references(data.test_target.begin(),
                                            data.test_target.begin() + count);
  const SearchOptions search = eval_search(config);
  // With ranks, the bar counts rank 0's share.
  const size_t share = ranks ? translated_by_rank(sources, search, config.data.max_tokens,
                                                  ranks->rank(), ranks->world())
                             : count;
  ProgressBar bar("decode", static_cast<int64_t>(share), options.progress);
  const auto start = std::chrono::steady_clock::now();
  out.hypotheses = translate_over_ranks(model, sources, *data.vocab, search, config.data.max_tokens,
                                        device, &bar, options.stop, ranks, "final/hypotheses");
  out.decode_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (options.valid && config.train.valid_bleu > 0 && !data.valid.empty())
    out.valid_bleu = validation_bleu(model, data, config, device, config.train.valid_bleu, ranks,
                                     "final/valid", options.stop);
  if (ranks && !ranks->leads()) return out;  // rank 0 scores every rank's translations
  out.bleu = corpus_bleu(out.hypotheses, references);
  bar.finish(out.bleu->format());
  return out;
}

void add_evaluation_metrics(const FinalEvaluation& final, const Dataset& data,
                            std::map<std::string, double>& metrics) {
  if (final.valid_bleu) metrics[db::metric::kValidBleu] = final.valid_bleu->score;
  if (final.valid) {
    metrics[db::metric::kValidLoss] = final.valid->loss;
    metrics[db::metric::kValidPpl] = final.valid->ppl;
    if (data.valid_bytes > 0)
      metrics[db::metric::kValidBpb] =
          bits_per_byte(final.valid->nll * final.valid->tokens, data.valid_bytes);
  }
  if (final.test) {
    metrics[db::metric::kTestLoss] = final.test->loss;
    metrics[db::metric::kTestPpl] = final.test->ppl;
    if (data.test_bytes > 0)
      metrics[db::metric::kTestBpb] =
          bits_per_byte(final.test->nll * final.test->tokens, data.test_bytes);
  }
}

}  // namespace fathom
