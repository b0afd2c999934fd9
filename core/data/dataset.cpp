#include "core/data/dataset.h"

#include <filesystem>

#include "base/util/error.h"
#include "core/data/lm_text.h"
#include "core/data/synthetic.h"
#include "core/data/text_reader.h"
#include "core/data/vocab_cache.h"
#include "core/data/word_vocab.h"

namespace fathom {
namespace {

std::vector<Example> encode_pairs(const Vocab& vocab, const std::vector<std::string>& source,
                                  const std::vector<std::string>& target) {
  auto src = encode_all(vocab, source);
  auto tgt = encode_all(vocab, target);
  std::vector<Example> out;
  out.reserve(src.size());
  for (std::size_t i = 0; i < src.size(); ++i)
    out.push_back(make_example(std::move(src[i]), std::move(tgt[i])));
  return out;
}

// Reads an optional evaluation split: both paths or neither.
ParallelText read_optional(const std::string& source, const std::string& target,
                           const std::string& split, const std::string& config_dir) {
  if (source.empty() && target.empty()) return {};
  if (source.empty() || target.empty())
    throw InputError(
        "", 0, "data." + split + (source.empty() ? "_source" : "_target"),
        "missing: give both " + split + "_source and " + split + "_target, or neither");
  return read_parallel_text(resolve_data_path(source, config_dir),
                            resolve_data_path(target, config_dir));
}

Dataset load_parallel(const DataConfig& cfg, const std::string& cache_dir,
                      const std::string& config_dir, const PrepareOptions& prepare) {
  if (cfg.train_source.empty() || cfg.train_target.empty())
    throw InputError("", 0, cfg.train_source.empty() ? "data.train_source" : "data.train_target",
                     "required when data.task is parallel");
  const std::string train_src = resolve_data_path(cfg.train_source, config_dir);
  const std::string train_tgt = resolve_data_path(cfg.train_target, config_dir);
  PreparedCorpus corpus = prepare_corpus(train_src, train_tgt, cfg.vocab, cache_dir, prepare);
  ParallelText valid = read_optional(cfg.valid_source, cfg.valid_target, "valid", config_dir);
  ParallelText test = read_optional(cfg.test_source, cfg.test_target, "test", config_dir);

  const auto& vocab = corpus.vocab;
  Dataset d;
  d.vocab = vocab;
  d.train = corpus.train.without_longer_than(cfg.max_len, &d.dropped_long);
  d.valid = encode_pairs(*vocab, valid.source, valid.target);
  d.test = encode_pairs(*vocab, test.source, test.target);
  d.one_side_empty = corpus.one_side_empty;
  d.valid_source = std::move(valid.source);
  d.valid_target = std::move(valid.target);
  d.test_source = std::move(test.source);
  d.test_target = std::move(test.target);
  d.description = "parallel: train " + std::to_string(corpus.train.size()) + " pairs (" +
                  train_src + ", " + train_tgt + "), valid " + std::to_string(d.valid.size()) +
                  ", test " + std::to_string(d.test.size()) + "\nvocab: " + vocab->describe() +
                  "\nprepared corpus: " + corpus.entry +
                  (corpus.reused ? " (mapped)" : " (prepared now)");
  return d;
}

Dataset load_synthetic(const DataConfig& cfg, const std::string&, const std::string&,
                       const PrepareOptions&) {
  const SyntheticConfig& s = cfg.synthetic;
  SyntheticTask task = make_synthetic_task(s);
  auto vocab = make_synthetic_vocab(s);
  Dataset d;
  d.vocab = vocab;
  d.train = TokenPairs::from_examples(encode_pairs(*vocab, task.train.source, task.train.target))
                .without_longer_than(cfg.max_len, &d.dropped_long);
  d.valid = encode_pairs(*vocab, task.valid.source, task.valid.target);
  d.test = encode_pairs(*vocab, task.test.source, task.test.target);
  d.valid_source = std::move(task.valid.source);
  d.valid_target = std::move(task.valid.target);
  d.test_source = std::move(task.test.source);
  d.test_target = std::move(task.test.target);
  d.description = "synthetic: reverse, shift by V/2 after an odd neighbour, " +
                  std::to_string(s.vocab) + " symbols, lengths " + std::to_string(s.min_len) + "-" +
                  std::to_string(s.max_len) + ", seed " + std::to_string(s.seed) + "; train " +
                  std::to_string(task.train.source.size()) + ", valid " +
                  std::to_string(d.valid.size()) + ", test " + std::to_string(d.test.size()) +
                  "\nvocab: " + vocab->describe();
  return d;
}

// The data tasks: data.task names one (its schema lists the same names).
struct DataTask {
  const char* name;
  Dataset (*load)(const DataConfig&, const std::string& cache_dir, const std::string& config_dir,
                  const PrepareOptions& prepare);
};
constexpr DataTask kDataTasks[] = {
    {"parallel", load_parallel}, {"synthetic", load_synthetic}, {"lm", load_language_model_text}};

}  // namespace

Dataset load_dataset(const DataConfig& cfg, const std::string& cache_dir,
                     const std::string& config_dir, const PrepareOptions& prepare) {
  const DataTask* task = nullptr;
  for (const DataTask& t : kDataTasks)
    if (cfg.task == t.name) task = &t;
  if (!task)
    throw InputError("", 0, "data.task",
                     "unknown task '" + cfg.task + "' (expected parallel, synthetic or lm)");
  Dataset d = task->load(cfg, cache_dir, config_dir, prepare);
  if (d.dropped_long > 0)
    d.description += "\ndropped " + std::to_string(d.dropped_long) +
                     " training pairs longer than data.max_len = " + std::to_string(cfg.max_len);
  if (d.one_side_empty > 0)
    d.description +=
        "\n" + std::to_string(d.one_side_empty) + " training pairs have one empty side (kept)";
  if (d.train.empty())
    throw InputError("", 0,
                     d.dropped_long > 0        ? "data.max_len"
                     : cfg.task == "synthetic" ? "data.synthetic.train_size"
                     : cfg.task == "lm"        ? "data.train_text"
                                               : "data.train_source",
                     "no training examples" +
                         std::string(d.dropped_long > 0 ? " left after the length filter" : ""));
  return d;
}

Dataset load_run_dataset(const RunConfig& config, const std::string& cache_dir,
                         const std::string& config_dir, PrepareOptions prepare) {
  prepare.threads = config.train.threads;
  Dataset d = load_dataset(config.data, cache_dir, config_dir, prepare);
  if (is_decoder_only(config.model) && config.data.task == "synthetic")
    return as_language_model(std::move(d));
  return d;
}

}  // namespace fathom
