#pragma once
// Training the joint SentencePiece vocabulary, cached on disk. Training takes seconds to
// minutes, and every run over the same corpus and settings needs the identical model, so the
// model is stored under
//     <cache_dir>/spm-<type>-<size>-<hash>/spm.model
// where <hash> covers the training text (both sides), the type, the size and a format version.
// The entry is built in a temporary folder next to it and renamed into place, so concurrent
// processes never see a half-written model: whichever rename lands first wins and the others
// use its result.
#include <cstddef>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "core/data/sentencepiece_vocab.h"

namespace fathom {

// Whether a cache folder's name is a vocabulary entry's ("spm-..."; `fathom data cache`).
bool is_vocabulary_entry_name(const std::string& folder_name);
// The entry a folder named ".spm-<hash>.tmp-<suffix>" is learning ("spm-<hash>"): the folder a
// vocabulary is learnt in -- its training text, up to 2M lines, and the model -- until it is
// renamed into place. "" for any other name.
std::string key_of_vocabulary_temporary(const std::string& folder_name);
// Whether a process is learning into `folder` now: the learner holds an flock(2) on the folder
// itself while it writes there, which goes with a killed process (`fathom data cache` then
// lists the folder as a kill's leftover, prunable).
bool vocabulary_being_learnt(const std::string& folder);

// Folder name of the cache entry for this corpus and config (no I/O).
std::string sentencepiece_cache_key(const std::vector<std::string>& source,
                                    const std::vector<std::string>& target, const VocabConfig& cfg);

// One SentencePiece model for source and target, trained on both sides' lines with
// pad=0 unk=1 bos=2 eos=3, character coverage 1.0 and a soft size limit (small corpora yield
// fewer pieces instead of failing). Training is deterministic: fixed thread count, no input
// shuffling, and at most 2M lines, chosen by even striding rather than at random.
// Reuses the cache entry if it exists (the result's reused() is then true); an entry whose
// model cannot be loaded is set aside and rebuilt, with a warning on stderr. An empty cache_dir
// means <system temp>/fathom-cache. Throws InputError for a bad cfg (field data.vocab.*), for
// SentencePiece training errors, and for cache folders that cannot be written.
std::shared_ptr<SentencePieceVocab> train_or_load_sentencepiece(
    const std::vector<std::string>& source, const std::vector<std::string>& target,
    const VocabConfig& cfg, const std::string& cache_dir);

// The training text's lines as train_or_load_sentencepiece picks them, written as they are
// offered one by one: of the `non_empty_lines` non-empty lines offered (source's, then
// target's; empty lines are offered too and skipped), at most 2M, evenly strided.
class TrainingTextWriter {
 public:
  TrainingTextWriter(const std::string& path, std::size_t non_empty_lines);
  void offer(const std::string& line);
  std::size_t close();  // the lines written; InputError naming the file if writing failed

 private:
  std::string path_;
  std::ofstream out_;
  std::size_t lines_, keep_, seen_ = 0, written_ = 0;
};

// The same model for a corpus too large to hold: the lines are streamed by
// `write_training_text(path)` (with a TrainingTextWriter), called only when no cache entry
// exists, and the entry is keyed by `corpus_hash` (the prepared corpus's key) instead of the
// lines. Trained on the same lines, it is the model train_or_load_sentencepiece makes.
std::shared_ptr<SentencePieceVocab> train_or_load_sentencepiece_streamed(
    const std::string& corpus_hash, std::size_t source_lines, std::size_t target_lines,
    const std::function<std::size_t(const std::string& path)>& write_training_text,
    const VocabConfig& cfg, const std::string& cache_dir);

}  // namespace fathom
