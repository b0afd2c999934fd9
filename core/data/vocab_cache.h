#pragma once
// Training the joint SentencePiece vocabulary, cached on disk. Training takes seconds to
// minutes, and every run over the same corpus and settings needs the identical model, so the
// model is stored under
//     <cache_dir>/spm-<type>-<size>-<hash>/spm.model
// where <hash> covers the training text (both sides), the type, the size and a format version.
// The entry is built in a temporary folder next to it and renamed into place, so concurrent
// processes never see a half-written model: whichever rename lands first wins and the others
// use its result.
#include <memory>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "core/data/sentencepiece_vocab.h"

namespace fathom {

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

}  // namespace fathom
