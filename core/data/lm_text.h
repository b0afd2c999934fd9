#pragma once
// Language-model data for model.arch: decoder_only (issue 39 item 2). An example is one
// sequence, in Example::tgt (Example::src stays empty; the model reads bos + tgt[:-1] and
// predicts tgt, as a decoder does):
//  - data.task "lm": plain text, one document per line (read_lines: UTF-8, plain or gzip).
//    data.lm_block 0: each document is an example, ended by eos. K > 0: the documents joined,
//    each ended by eos, cut into blocks of K tokens (the last block may be shorter), so every
//    token of the text is predicted exactly once. The training text is prepared once into
//    mapped shards (prepare_documents, prepared_corpus.h) with its SentencePiece vocabulary,
//    trained on the training text alone; valid and test are read as text.
//  - data.task "synthetic" read as a language model: each pair joined into one sequence,
//    source, eos, target, eos (as_language_model()).
// Bits per byte need the text's size: each split's UTF-8 bytes, one newline per document
// counted (the eos stands for it), in Dataset::valid_bytes / test_bytes.
#include <cstdint>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "core/data/dataset.h"

namespace fathom {

// Loads data.task "lm". Throws InputError naming the file (and line) or the config key.
Dataset load_language_model_text(const DataConfig& cfg, const std::string& cache_dir,
                                 const std::string& config_dir, const PrepareOptions& = {});

// Every pair of `pairs` as one sequence (source, eos, target, eos); the raw texts joined the
// same way, and no byte counts (the synthetic symbols are not text).
Dataset as_language_model(Dataset pairs);

// The examples of `documents` (encoded, without eos) for data.lm_block = `block`.
std::vector<Example> language_model_examples(
    const std::vector<std::vector<std::int64_t>>& documents, int block);

// UTF-8 bytes of `documents` with one newline each.
std::int64_t text_bytes(const std::vector<std::string>& documents);

// Bits per byte of a split: its summed negative log-likelihood (nats) over ln 2 and its bytes.
double bits_per_byte(double nll_sum_nats, std::int64_t bytes);

}  // namespace fathom
