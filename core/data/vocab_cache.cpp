#include "core/data/vocab_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <unordered_map>

#include "base/util/error.h"
#include "base/util/file_lock.h"
#include "base/util/file_write.h"
#include "core/data/cache_names.h"
#include "core/data/earlier_cache.h"
#include "core/data/sentencepiece_runtime.h"

namespace fs = std::filesystem;

namespace fathom {
namespace {

constexpr const char* kLearningFolderInfix = ".tmp-";

// An flock(2) on a folder for the life of the object (vocabulary_being_learnt asks for it).
// Best effort: a folder that cannot be opened or locked is learnt into all the same.
struct FolderLock {
  explicit FolderLock(const fs::path& folder)
      : fd(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd >= 0) ::flock(fd, LOCK_EX | LOCK_NB);
  }
  ~FolderLock() {
    if (fd >= 0) ::close(fd);
  }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  int fd;
};

// Bump when anything that changes the trained model changes (options, subsampling, ...), so old
// cache entries are not mistaken for new ones.
constexpr const char* kFormatVersion = "fathom-spm-v1";
constexpr const char* kVocabEntryPrefix = "spm-";

// "spm-<type>-<size>-<hash>": an entry's folder.
std::string entry_name(const VocabConfig& cfg, const std::string& hash) {
  return kVocabEntryPrefix + cfg.type + "-" + std::to_string(cfg.size) + "-" + hash;
}

// Fixed rather than hardware-dependent: the unigram trainer's sums depend on how sentences are
// split across threads, so a machine-dependent count could give a different model.
constexpr int kTrainThreads = 8;
// Beyond this many lines SentencePiece gains little and needs a lot of memory.
constexpr std::size_t kMaxTrainLines = 2'000'000;

// 64-bit FNV-1a: small and stable; collisions only matter within one cache folder.
struct Fnv1a {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  void add(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  }
  void add(const std::string& s) {
    add(s.data(), s.size());
    add("\n", 1);  // terminator: ("ab","c") and ("a","bc") must differ
  }
  void add(std::uint64_t v) { add(std::to_string(v)); }
};

void check_config(const VocabConfig& cfg) {
  if (cfg.type != "bpe" && cfg.type != "unigram")
    throw InputError("", 0, "data.vocab.type",
                     "unknown vocabulary type '" + cfg.type + "' (expected bpe or unigram)");
  if (cfg.size < 8)
    throw InputError("", 0, "data.vocab.size",
                     "vocabulary size " + std::to_string(cfg.size) + " is too small (minimum 8)");
}

// Writes the joint training text: non-empty lines of both sides, evenly subsampled to the cap.
std::size_t write_training_text(const fs::path& path, const std::vector<std::string>& source,
                                const std::vector<std::string>& target) {
  std::size_t n = 0;
  for (const auto* side : {&source, &target})
    for (const auto& line : *side) n += !line.empty();
  TrainingTextWriter out(path.string(), n);
  for (const auto* side : {&source, &target})
    for (const auto& line : *side) out.offer(line);
  return out.close();
}

// What train_into writes beside the model, for whoever looks in the cache.
struct TrainingTextCounts {
  std::size_t source_lines = 0, target_lines = 0;
};

void train_into(const fs::path& dir, const std::function<std::size_t(const std::string&)>& write,
                const TrainingTextCounts& counts, const VocabConfig& cfg) {
  const fs::path text = dir / "train.txt";
  const std::size_t lines = write(text.string());
  if (lines == 0)
    throw InputError("", 0, "data.train_source", "no non-empty training lines for the vocabulary");
  // The map form passes paths verbatim (the string form would split them at spaces).
  const std::unordered_map<std::string, std::string> args = {
      {"input", text.string()},
      {"model_prefix", (dir / "spm").string()},
      {"model_type", cfg.type},
      {"vocab_size", std::to_string(cfg.size)},
      {"hard_vocab_limit", "false"},
      {"character_coverage", "1.0"},
      {"pad_id", "0"},
      {"unk_id", "1"},
      {"bos_id", "2"},
      {"eos_id", "3"},
      {"pad_piece", "<pad>"},
      {"unk_piece", "<unk>"},
      {"bos_piece", "<s>"},
      {"eos_piece", "</s>"},
      {"input_sentence_size", "0"},  // use every line written above (already capped)
      {"shuffle_input_sentence", "false"},
      {"num_threads", std::to_string(kTrainThreads)},
      // No "minloglevel": logging must stay off (see sentencepiece_runtime.h).
  };
  // Nothing random should remain with shuffling off; the fixed seed covers anything left.
  const auto status = spm::train(args, /*seed=*/1);
  if (!status.ok())
    throw InputError("", 0, "data.vocab",
                     "SentencePiece training failed (" + cfg.type + ", size " +
                         std::to_string(cfg.size) + "): " + status.error_message());
  fs::remove(text);  // the corpus is the source of truth; keep the cache small
  fs::remove(dir / "spm.vocab");
  // Checked like every file a run keeps: a full disk must not leave a cache entry that
  // describes itself wrongly (the entry is renamed into place only after this).
  std::ostringstream meta;
  meta << "format " << kFormatVersion << "\ntype " << cfg.type << "\nsize " << cfg.size
       << "\nsource_lines " << counts.source_lines << "\ntarget_lines " << counts.target_lines
       << "\ntraining_lines " << lines << "\n";
  write_file_or_throw((dir / "meta.txt").string(), meta.str(), "the vocabulary cache's meta.txt");
}

}  // namespace

std::string sentencepiece_cache_key(const std::vector<std::string>& source,
                                    const std::vector<std::string>& target,
                                    const VocabConfig& cfg) {
  Fnv1a h;
  h.add(std::string(kFormatVersion));
  h.add(cfg.type);
  h.add(static_cast<std::uint64_t>(cfg.size));
  h.add(static_cast<std::uint64_t>(source.size()));
  for (const auto& line : source) h.add(line);
  h.add(static_cast<std::uint64_t>(target.size()));
  for (const auto& line : target) h.add(line);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h.h));
  return entry_name(cfg, hex);
}

bool is_vocabulary_entry_name(const std::string& folder_name) {
  return folder_name.rfind(kVocabEntryPrefix, 0) == 0;
}

std::string key_of_vocabulary_temporary(const std::string& folder_name) {
  const std::size_t infix = folder_name.find(kLearningFolderInfix);
  if (infix != std::string::npos &&
      infix + std::string(kLearningFolderInfix).size() >= folder_name.size())
    return "";  // no suffix after the marker
  return key_after_dot(folder_name, infix, kVocabEntryPrefix);
}

bool vocabulary_being_learnt(const std::string& folder) { return locked_elsewhere(folder); }

TrainingTextWriter::TrainingTextWriter(const std::string& path, std::size_t non_empty_lines)
    : path_(path),
      out_(path, std::ios::binary),
      lines_(non_empty_lines),
      keep_(std::min(non_empty_lines, kMaxTrainLines)) {
  if (!out_) throw InputError(path, 0, "", "cannot write SentencePiece training text");
}

void TrainingTextWriter::offer(const std::string& line) {
  if (line.empty()) return;
  // Line j of the non-empty lines is kept when it is line k * n / keep for the next k.
  if (written_ < keep_ && seen_ == written_ * lines_ / keep_) {
    out_ << line << '\n';
    ++written_;
  }
  ++seen_;
}

std::size_t TrainingTextWriter::close() {
  out_.close();
  if (!out_) throw InputError(path_, 0, "", "cannot write SentencePiece training text");
  return written_;
}

namespace {

std::shared_ptr<SentencePieceVocab> train_or_load_entry(
    const std::string& key, const std::function<std::size_t(const std::string&)>& write,
    const TrainingTextCounts& counts, const VocabConfig& cfg, const std::string& cache_dir) {
  check_config(cfg);
  const fs::path root =
      cache_dir.empty() ? fs::temp_directory_path() / "fathom-cache" : fs::path(cache_dir);
  const fs::path entry = root / key;
  const fs::path model = entry / "spm.model";
  std::error_code ec;
  if (!fs::exists(model, ec)) adopt_earlier_entry(root, key, "spm.model");
  if (fs::exists(model)) {
    try {
      return std::make_shared<SentencePieceVocab>(model.string(), cfg.type, /*reused=*/true);
    } catch (const InputError& e) {
      // A cache entry is only ever a copy of what training makes: an unreadable one (a
      // truncated copy, a bad block) is set aside and rebuilt, said aloud, never fatal.
      std::fprintf(stderr, "warning: %s; rebuilding the cache entry\n", e.what());
      const fs::path aside = root / ("." + key + ".corrupt-" + unique_temp_suffix());
      fs::rename(entry, aside, ec);
      fs::remove_all(aside, ec);
    }
  }

  ec.clear();
  fs::create_directories(root, ec);
  if (ec) throw InputError(root.string(), 0, "", "cannot create cache folder: " + ec.message());
  const fs::path tmp = root / ("." + key + ".tmp-" + unique_temp_suffix());
  fs::create_directories(tmp, ec);
  if (ec) throw InputError(tmp.string(), 0, "", "cannot create cache folder: " + ec.message());
  const FolderLock learning(tmp);  // until the folder is the entry, or removed
  try {
    train_into(tmp, write, counts, cfg);
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
  // rename(2) of a folder is atomic; it fails if another process already placed the entry,
  // in which case theirs (identical inputs, deterministic training) is used.
  std::error_code rename_error;
  fs::rename(tmp, entry, rename_error);
  if (rename_error) {
    fs::remove_all(tmp, ec);
    if (!fs::exists(model))
      throw InputError(entry.string(), 0, "",
                       "cannot create cache entry: " + rename_error.message());
  }
  return std::make_shared<SentencePieceVocab>(model.string(), cfg.type, /*reused=*/false);
}

}  // namespace

std::shared_ptr<SentencePieceVocab> train_or_load_sentencepiece(
    const std::vector<std::string>& source, const std::vector<std::string>& target,
    const VocabConfig& cfg, const std::string& cache_dir) {
  check_config(cfg);
  return train_or_load_entry(
      sentencepiece_cache_key(source, target, cfg),
      [&](const std::string& path) { return write_training_text(path, source, target); },
      {source.size(), target.size()}, cfg, cache_dir);
}

std::shared_ptr<SentencePieceVocab> train_or_load_sentencepiece_streamed(
    const std::string& corpus_hash, std::size_t source_lines, std::size_t target_lines,
    const std::function<std::size_t(const std::string& path)>& write_training_text,
    const VocabConfig& cfg, const std::string& cache_dir) {
  check_config(cfg);
  Fnv1a h;
  h.add(std::string(kFormatVersion));
  h.add(cfg.type);
  h.add(static_cast<std::uint64_t>(cfg.size));
  h.add(corpus_hash);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h.h));
  return train_or_load_entry(entry_name(cfg, std::string("f") + hex), write_training_text,
                             {source_lines, target_lines}, cfg, cache_dir);
}

}  // namespace fathom
