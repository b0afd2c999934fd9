#include "core/data/lm_text.h"

#include <algorithm>
#include <cmath>

#include "base/util/error.h"
#include "core/data/prepared_corpus.h"
#include "core/data/text_reader.h"
#include "core/data/vocab.h"

namespace fathom {
namespace {

std::vector<std::string> read_split(const std::string& path, const std::string& config_dir) {
  if (path.empty()) return {};
  return read_lines(resolve_data_path(path, config_dir));
}

}  // namespace

std::vector<Example> language_model_examples(
    const std::vector<std::vector<std::int64_t>>& documents, int block) {
  std::vector<Example> out;
  if (block <= 0) {
    out.reserve(documents.size());
    for (const auto& d : documents) {
      Example e{{}, d};  // no source side
      e.tgt.push_back(kEosId);
      out.push_back(std::move(e));
    }
    return out;
  }
  std::vector<std::int64_t> running;
  for (const auto& d : documents) {
    running.insert(running.end(), d.begin(), d.end());
    running.push_back(kEosId);
  }
  for (std::size_t start = 0; start < running.size(); start += static_cast<std::size_t>(block)) {
    const std::size_t end = std::min(running.size(), start + static_cast<std::size_t>(block));
    out.push_back(
        Example{{}, std::vector<std::int64_t>(running.begin() + start, running.begin() + end)});
  }
  return out;
}

std::int64_t text_bytes(const std::vector<std::string>& documents) {
  std::int64_t bytes = 0;
  for (const auto& d : documents) bytes += static_cast<std::int64_t>(d.size()) + 1;
  return bytes;
}

double bits_per_byte(double nll_sum_nats, std::int64_t bytes) {
  return nll_sum_nats / (std::log(2.0) * static_cast<double>(bytes));
}

Dataset load_language_model_text(const DataConfig& cfg, const std::string& cache_dir,
                                 const std::string& config_dir, const PrepareOptions& prepare) {
  if (cfg.train_text.empty())
    throw InputError("", 0, "data.train_text", "required when data.task is lm");
  const std::string train_path = resolve_data_path(cfg.train_text, config_dir);
  // The training text is prepared once and mapped (prepared_corpus.h); valid and test stay
  // text, as bits per byte and samples need it.
  PreparedCorpus corpus = prepare_documents(train_path, cfg.vocab, cache_dir, prepare);
  std::vector<std::string> valid = read_split(cfg.valid_text, config_dir);
  std::vector<std::string> test = read_split(cfg.test_text, config_dir);

  const auto& vocab = corpus.vocab;
  Dataset d;
  d.vocab = vocab;
  d.train = cfg.lm_block > 0 ? corpus.train.joined_into_blocks(cfg.lm_block)
                             : corpus.train.without_longer_than(cfg.max_len, &d.dropped_long);
  d.valid = language_model_examples(encode_all(*vocab, valid), cfg.lm_block);
  d.test = language_model_examples(encode_all(*vocab, test), cfg.lm_block);
  d.valid_bytes = text_bytes(valid);
  d.test_bytes = text_bytes(test);
  d.valid_target = std::move(valid);
  d.test_target = std::move(test);
  d.description =
      "lm: train " + std::to_string(corpus.train.size()) + " documents (" + train_path + "), " +
      (cfg.lm_block > 0 ? "blocks of " + std::to_string(cfg.lm_block) + " tokens"
                        : std::string("one example per document")) +
      "; train " + std::to_string(d.train.size()) + ", valid " + std::to_string(d.valid.size()) +
      ", test " + std::to_string(d.test.size()) + " examples\nvocab: " + vocab->describe() +
      "\nprepared corpus: " + corpus.entry + (corpus.reused ? " (mapped)" : " (prepared now)");
  return d;
}

Dataset as_language_model(Dataset pairs) {
  auto join = [](std::vector<Example>& examples) {
    for (Example& e : examples) {
      std::vector<std::int64_t> sequence = std::move(e.src);        // source + eos
      sequence.insert(sequence.end(), e.tgt.begin(), e.tgt.end());  // target + eos
      e.src.clear();
      e.tgt = std::move(sequence);
    }
  };
  std::vector<Example> train = pairs.train.to_examples();
  join(train);
  pairs.train = TokenPairs::from_examples(train);
  join(pairs.valid);
  join(pairs.test);
  auto join_text = [](std::vector<std::string>& targets, const std::vector<std::string>& sources) {
    for (std::size_t i = 0; i < targets.size() && i < sources.size(); ++i)
      targets[i] = sources[i] + " " + targets[i];
  };
  join_text(pairs.valid_target, pairs.valid_source);
  join_text(pairs.test_target, pairs.test_source);
  pairs.valid_source.clear();
  pairs.test_source.clear();
  pairs.description += "\nread as a language model: source, eos, target, eos";
  return pairs;
}

}  // namespace fathom
