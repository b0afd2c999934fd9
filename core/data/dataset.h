#pragma once
// The top-level data loader: from a DataConfig to encoded train/valid/test examples plus the
// raw valid/test text that BLEU is computed against.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "core/data/example.h"
#include "core/data/prepared_corpus.h"
#include "core/data/token_pairs.h"
#include "core/data/vocab.h"

namespace fathom {

struct Dataset {
  std::shared_ptr<Vocab> vocab;  // joint source/target vocabulary
  // The training pairs where they lie: a prepared corpus's mapping (data.task parallel) or
  // memory (synthetic, lm); pairs longer than data.max_len already left out.
  TokenPairs train;
  std::vector<Example> valid, test;
  // Raw text of the evaluation sets, aligned with valid/test (BLEU references and sources).
  // A language model (lm_text.h): the documents in *_target, no *_source.
  std::vector<std::string> valid_source, valid_target, test_source, test_target;
  // UTF-8 bytes of the valid/test text for bits per byte (lm_text.h); 0: not text (no bpb).
  std::int64_t valid_bytes = 0, test_bytes = 0;
  std::size_t dropped_long = 0;    // training pairs removed by data.max_len
  std::size_t one_side_empty = 0;  // training pairs with exactly one empty side (kept)
  std::string description;         // a few lines for logs and the run store
};

// Loads the data for cfg.task:
//  - "parallel": maps the training pairs from their prepared corpus under cache_dir, preparing
//    it first if needed (prepared_corpus.h: `prepare` sets its threads and progress bar), and
//    reads the valid/test pairs as text (optional: both paths empty -> empty split; one of the
//    two empty -> InputError). Paths are plain or gzip text; relative paths are resolved
//    against config_dir (empty: current directory). The SentencePiece vocabulary is the one
//    the corpus was prepared with (trained on its training text, vocab_cache.h).
//  - "synthetic": generates the task of synthetic.h with a word vocabulary; no files.
//  - "lm": language-model text (lm_text.h).
// Training pairs longer than cfg.max_len on either side are dropped (valid/test are kept whole;
// lm: documents, not blocks).
// Throws InputError for every user-facing problem, naming the file or the config field.
Dataset load_dataset(const DataConfig& cfg, const std::string& cache_dir,
                     const std::string& config_dir, const PrepareOptions& prepare = {});

// The data a run of `config` trains on: load_dataset(), and for a decoder-only model a
// synthetic pair read as one sequence (as_language_model in lm_text.h). A corpus is prepared
// on config.train.threads threads (prepare.threads is set from it).
Dataset load_run_dataset(const RunConfig& config, const std::string& cache_dir,
                         const std::string& config_dir, PrepareOptions prepare = {});

}  // namespace fathom
