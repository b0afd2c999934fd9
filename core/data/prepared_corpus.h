#pragma once
// A parallel training corpus prepared once and mapped by every run that trains on it.
//
// Preparing reads the two text files, trains (or reuses) the joint SentencePiece vocabulary
// (vocab_cache.h), encodes every pair on `threads` threads and writes, under the cache,
//     <cache_dir>/corpus-<hash>/  spm.model   the vocabulary
//                                 tokens.bin  every pair's source ids then its target ids, each
//                                             side ending with eos, 2 bytes an id up to 65,536
//                                             ids, else 4
//                                 index.bin   per pair: u64 offset (in ids), then all u32 source
//                                             lengths, then all u32 target lengths
//                                 meta.json   counts, widths, the files' hashes, the sources
// where <hash> covers the two files' bytes as stored (gzip or not), the vocabulary settings and
// a format version: a corpus that changes is prepared again under a new key. The work is done
// in chunks of pairs kept in a partial folder, so a preparation that was stopped or killed
// resumes where it stopped; the finished entry is assembled in a temporary folder and renamed into
// place, so no reader ever sees half of it. Processes that need the same entry at once take a lock
// file beside it: one prepares, the others wait and map its result.
//
// Loading an entry finds its key -- remembered from the files' stat() (size, inode, modification
// and change times) when they are as they were last hashed, else by hashing them (~1 s a GB) --
// checks the entry's sizes and hashes
// (a truncated or damaged entry is set aside and prepared again, with a warning) and maps
// tokens.bin and index.bin read-only (MappedFile): the text is not read, and the process holds
// no copy of the corpus.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/config/config.h"
#include "core/data/sentencepiece_vocab.h"
#include "core/data/token_pairs.h"

namespace fathom {

struct PrepareOptions {
  int threads = 1;        // encoding threads; 0: every core
  bool progress = false;  // a progress bar on stderr while preparing
  // Set (from a signal handler) to stop between chunks: StopRequested is thrown
  // (core/train/stop_request.h) and the chunks done are kept for the next try.
  const std::atomic<bool>* stop = nullptr;
  std::size_t chunk_pairs = std::size_t{1} << 17;  // pairs a chunk holds (what a stop loses)
};

struct PreparedCorpus {
  std::shared_ptr<SentencePieceVocab> vocab;
  TokenPairs train;                // every pair, mapped from the entry
  std::size_t one_side_empty = 0;  // pairs with exactly one empty side
  std::string entry;               // the entry's folder
  bool reused = false;             // true: the entry existed; false: prepared by this call
  std::size_t resumed_pairs = 0;   // pairs an earlier, stopped preparation had encoded
};

// The entry's folder name for these files and settings: "corpus-" + 32 hex digits (an empty
// source_path: the document corpus of target_path, as prepare_documents keys it). Reads both
// files whole (their bytes, not their text). Throws InputError naming a file that is missing,
// a directory or not a regular file (a FIFO or a device is refused, it could be endless).
std::string prepared_corpus_key(const std::string& source_path, const std::string& target_path,
                                const VocabConfig& vocab);

// The cache's folder names it owns: an entry's ("corpus-" + hash, prepared_corpus_key's), and a
// stopped preparation's chunks (".<key>.partial"), which the next start resumes from.
bool is_corpus_entry_name(const std::string& folder_name);
std::string partial_entry_name(const std::string& key);
// The key whose stopped preparation `folder_name` holds, "" where it is no such folder.
std::string key_of_partial_entry(const std::string& folder_name);
// The key whose preparation wrote into `folder_name` (".<key>.tmp-<suffix>", renamed into place
// when done), "" where it is no such folder; and whether a process is preparing `key` in
// `cache_dir` now (holds its entry's lock): a temporary folder of a key nobody holds was left
// by a process killed while preparing.
std::string key_of_temporary_entry(const std::string& folder_name);
bool corpus_entry_locked(const std::string& cache_dir, const std::string& key);

// prepared_corpus_key, taken without reading the text where `cache_dir`'s known-corpora/ has
// the files' stat() as it is now (what prepare_corpus does on every start); "" = documents.
std::string remembered_corpus_key(const std::string& cache_dir, const std::string& source_path,
                                  const std::string& target_path, const VocabConfig& vocab);

// The corpus's vocabulary alone, trained (or found) as prepare_corpus does it: what a
// benchmark times apart from the encoding.
std::shared_ptr<SentencePieceVocab> prepare_corpus_vocabulary(const std::string& source_path,
                                                              const std::string& target_path,
                                                              const VocabConfig& vocab,
                                                              const std::string& cache_dir);

// The corpus of (source_path, target_path) under `cache_dir` (empty: <system temp>/fathom-cache),
// prepared first if needed. Throws InputError for bad text (as read_parallel_text), a bad
// vocabulary config (data.vocab.*), or a cache that cannot be written (naming the folder).
PreparedCorpus prepare_corpus(const std::string& source_path, const std::string& target_path,
                              const VocabConfig& vocab, const std::string& cache_dir,
                              const PrepareOptions& options = {});

// A document corpus (data.task lm: one text file, a document a line) prepared the same way:
// row i is document i with no source side (length 0) and its ids then eos as the target, so
// tokens.bin is the documents' ids joined, each ended by eos -- the stream lm_block cuts into
// blocks (TokenPairs::joined_into_blocks). Keyed apart from any parallel corpus; its vocabulary
// is trained on the file's lines alone, the model the in-memory loader made.
PreparedCorpus prepare_documents(const std::string& path, const VocabConfig& vocab,
                                 const std::string& cache_dir, const PrepareOptions& options = {});

}  // namespace fathom
