#include "core/data/prepared_corpus.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/util/content_hash.h"
#include "base/util/error.h"
#include "base/util/file_lock.h"
#include "base/util/file_write.h"
#include "base/util/mapped_file.h"
#include "base/util/progress.h"
#include "core/data/cache_names.h"
#include "core/data/earlier_cache.h"
#include "core/data/text_reader.h"
#include "core/data/vocab.h"
#include "core/data/vocab_cache.h"
#include "core/train/stop_request.h"  // header-only: the one stop exception

namespace fs = std::filesystem;

namespace fathom {
namespace {

// Bump when the layout or anything that changes the ids changes.
constexpr const char* kFormat = "fathom-corpus-v1";
constexpr const char* kCorpusEntryPrefix = "corpus-";  // an entry's folder: this + its hash
constexpr const char* kPartialSuffix = ".partial";     // "." + key + this: stopped chunks
constexpr const char* kTemporaryInfix = ".tmp-";       // "." + key + this + suffix: being prepared

// A file written in pieces with every error checked; its hash is taken as it is written.
class CheckedWriter {
 public:
  explicit CheckedWriter(fs::path path) : path_(std::move(path)) {
    f_ = std::fopen(path_.c_str(), "wb");
    if (!f_) fail();
  }
  ~CheckedWriter() {
    if (f_) std::fclose(f_);
  }
  void write(const void* data, std::size_t n) {
    if (n == 0) return;
    if (std::fwrite(data, 1, n, f_) != n) fail();
    hash_.add(data, n);
  }
  // Flushes and closes; returns the hash of what was written.
  std::string close() {
    const bool ok = std::fflush(f_) == 0 && ::fsync(::fileno(f_)) == 0;
    const int err = errno;
    const bool closed = std::fclose(f_) == 0;
    f_ = nullptr;
    if (!ok || !closed) {
      errno = ok ? errno : err;
      fail();
    }
    return hash_.hex();
  }

 private:
  [[noreturn]] void fail() {
    const std::string reason = std::strerror(errno);
    if (f_) std::fclose(f_);
    f_ = nullptr;
    std::error_code ec;
    fs::remove(path_, ec);
    throw FileWriteError(path_.string() + ": cannot write the prepared corpus: " + reason);
  }
  fs::path path_;
  std::FILE* f_ = nullptr;
  ContentHash hash_;
};

// An exclusive lock on a file beside the entry, held while it is prepared. Waiting is said once.
class EntryLock {
 public:
  explicit EntryLock(const fs::path& path) {
    fd_ = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw FileWriteError(path.string() +
                           ": cannot create the corpus lock: " + std::strerror(errno));
    bool said = false;
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK && errno != EINTR)
        throw FileWriteError(path.string() + ": cannot lock: " + std::strerror(errno));
      if (!said)
        std::fprintf(stderr, "waiting for another process preparing this corpus (%s)\n",
                     path.c_str());
      said = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  ~EntryLock() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }

 private:
  int fd_ = -1;
};

std::string read_small_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// What an entry's files hold, and the views of them; kept alive by the corpus's TokenPairs.
struct MappedEntry {
  std::shared_ptr<const MappedFile> tokens, index;
};

// Opens a finished entry, or says why it cannot be trusted (empty optional, `why` set).
std::optional<PreparedCorpus> open_entry(const fs::path& entry, const VocabConfig& cfg,
                                         std::string& why) {
  try {
    const nlohmann::json meta = nlohmann::json::parse(read_small_file(entry / "meta.json"));
    if (meta.value("format", "") != kFormat) {
      why = "its format is not " + std::string(kFormat);
      return std::nullopt;
    }
    const auto pairs = meta.at("pairs").get<std::uint64_t>();
    const auto tokens = meta.at("tokens").get<std::uint64_t>();
    const int width = meta.at("width").get<int>();
    auto mapped = std::make_shared<MappedEntry>();
    mapped->tokens = MappedFile::open((entry / "tokens.bin").string());
    mapped->index = MappedFile::open((entry / "index.bin").string());
    if (mapped->tokens->size() != tokens * static_cast<std::uint64_t>(width) ||
        mapped->index->size() != pairs * 16) {
      why = "its files are shorter or longer than meta.json says (truncated?)";
      return std::nullopt;
    }
    if (content_hash_hex(mapped->tokens->data(), mapped->tokens->size()) !=
            meta.at("tokens_hash").get<std::string>() ||
        content_hash_hex(mapped->index->data(), mapped->index->size()) !=
            meta.at("index_hash").get<std::string>()) {
      why = "its files do not match their hashes (damaged)";
      return std::nullopt;
    }
    PreparedCorpus c;
    c.vocab = std::make_shared<SentencePieceVocab>((entry / "spm.model").string(), cfg.type,
                                                   /*reused=*/true);
    if (c.vocab->size() != meta.at("vocab_size").get<std::int64_t>()) {
      why = "its vocabulary is not the one its ids were made with";
      return std::nullopt;
    }
    TokenPairs::Layout layout;
    layout.tokens = mapped->tokens->data();
    layout.width = width;
    const auto* index = mapped->index->data();
    layout.offsets = reinterpret_cast<const std::uint64_t*>(index);
    layout.src_lens = reinterpret_cast<const std::uint32_t*>(index + 8 * pairs);
    layout.tgt_lens = reinterpret_cast<const std::uint32_t*>(index + 12 * pairs);
    layout.pairs = static_cast<std::size_t>(pairs);
    c.train = TokenPairs(layout, mapped);
    c.one_side_empty = meta.at("one_side_empty").get<std::size_t>();
    c.entry = entry.string();
    c.reused = true;
    return c;
  } catch (const std::exception& e) {
    why = e.what();
    return std::nullopt;
  }
}

fs::path chunk_path(const fs::path& partial, std::size_t chunk, const char* what) {
  char name[48];
  std::snprintf(name, sizeof name, "chunk-%06zu.%s", chunk, what);
  return partial / name;
}

// Both sides read line by line in step, as read_parallel_text reads them whole. A document
// corpus (no source path) reads its one file as the target side, every source line empty.
class PairReader {
 public:
  PairReader(const std::string& source_path, const std::string& target_path)
      : target_(target_path) {
    if (!source_path.empty()) source_.emplace(source_path);
  }
  // The next pair; false at the end of both. Sides of different lengths are the text reader's
  // line count mismatch, counted to the end of the longer.
  bool next(std::string& source, std::string& target) {
    const bool t = target_.next(target);
    if (!source_) {
      source.clear();
      return t;
    }
    const bool s = source_->next(source);
    if (s == t) return s;
    std::string rest;
    while (source_->next(rest)) {
    }
    while (target_.next(rest)) {
    }
    throw line_count_mismatch(source_->path(), source_->lines_read(), target_.path(),
                              target_.lines_read());
  }

 private:
  std::optional<LineReader> source_;
  LineReader target_;
};

struct CorpusCounts {
  std::size_t pairs = 0, one_side_empty = 0, source_non_empty = 0, target_non_empty = 0;
};

// The first pass: how many pairs, and every error of the text (UTF-8, alignment, gzip).
CorpusCounts count_pairs(const std::string& source_path, const std::string& target_path) {
  CorpusCounts c;
  PairReader pairs(source_path, target_path);
  for (std::string s, t; pairs.next(s, t);) {
    ++c.pairs;
    c.one_side_empty += !source_path.empty() && s.empty() != t.empty();
    c.source_non_empty += !s.empty();
    c.target_non_empty += !t.empty();
  }
  return c;
}

// The vocabulary, trained on the lines vocab_cache.h picks, streamed from the files.
std::shared_ptr<SentencePieceVocab> corpus_vocabulary(
    const std::string& key, const std::string& source_path, const std::string& target_path,
    const CorpusCounts& counts, const VocabConfig& cfg, const std::string& cache_dir) {
  auto write = [&](const std::string& path) {
    TrainingTextWriter out(path, counts.source_non_empty + counts.target_non_empty);
    for (const std::string& file : {source_path, target_path}) {
      if (file.empty()) continue;  // a document corpus
      LineReader lines(file);
      for (std::string line; lines.next(line);) out.offer(line);
    }
    return out.close();
  };
  // A document corpus's file is the one side the in-memory language-model loader trains on.
  const std::size_t target_lines = source_path.empty() ? 0 : counts.pairs;
  return train_or_load_sentencepiece_streamed(key, counts.pairs, target_lines, write, cfg,
                                              cache_dir);
}

// Encodes `src`/`tgt` (one chunk's lines) and writes them as chunk files, renamed into place
// last, so a chunk file that exists is whole.
// A document corpus (`documents`) has no source side at all: length 0, no eos.
void write_chunk(const fs::path& partial, std::size_t chunk, const std::vector<std::string>& src,
                 const std::vector<std::string>& tgt, const Vocab& vocab, int width, int threads,
                 bool documents) {
  const std::size_t n = src.size();
  const auto src_ids =
      documents ? std::vector<std::vector<std::int64_t>>(n) : encode_all(vocab, src, threads);
  const auto tgt_ids = encode_all(vocab, tgt, threads);
  const fs::path tokens = chunk_path(partial, chunk, "tokens"),
                 lens = chunk_path(partial, chunk, "lens");
  const fs::path tokens_tmp = tokens.string() + ".tmp", lens_tmp = lens.string() + ".tmp";
  CheckedWriter out_tokens(tokens_tmp), out_lens(lens_tmp);
  std::vector<std::uint16_t> narrow;
  std::vector<std::uint32_t> wide;
  std::vector<std::uint32_t> lengths(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    lengths[i] = documents ? 0 : static_cast<std::uint32_t>(src_ids[i].size() + 1);  // + eos
    lengths[n + i] = static_cast<std::uint32_t>(tgt_ids[i].size() + 1);
    for (const auto* side : {&src_ids[i], &tgt_ids[i]}) {
      if (documents && side == &src_ids[i]) continue;
      if (width == 2) {
        for (std::int64_t id : *side) narrow.push_back(static_cast<std::uint16_t>(id));
        narrow.push_back(static_cast<std::uint16_t>(kEosId));
      } else {
        for (std::int64_t id : *side) wide.push_back(static_cast<std::uint32_t>(id));
        wide.push_back(static_cast<std::uint32_t>(kEosId));
      }
    }
  }
  if (width == 2)
    out_tokens.write(narrow.data(), narrow.size() * 2);
  else
    out_tokens.write(wide.data(), wide.size() * 4);
  out_lens.write(lengths.data(), lengths.size() * 4);
  out_tokens.close();
  out_lens.close();
  fs::rename(tokens_tmp, tokens);
  fs::rename(lens_tmp, lens);
}

// A chunk left by an earlier preparation is whole when both files are there with the sizes its
// lengths imply.
bool chunk_is_whole(const fs::path& partial, std::size_t chunk, std::size_t n, int width) {
  std::error_code ec;
  const fs::path lens = chunk_path(partial, chunk, "lens"),
                 tokens = chunk_path(partial, chunk, "tokens");
  if (fs::file_size(lens, ec) != 8 * n || ec) return false;
  const std::string bytes = read_small_file(lens);
  std::uint64_t ids = 0;
  for (std::size_t k = 0; k < 2 * n; ++k) {
    std::uint32_t l = 0;
    std::memcpy(&l, bytes.data() + 4 * k, 4);
    ids += l;
  }
  return fs::file_size(tokens, ec) == ids * static_cast<std::uint64_t>(width) && !ec;
}

// Assembly: the tokens file is the chunks' tokens concatenated; the index is derived from
// their lengths (offsets, then source lengths, then target lengths). Returns the ids written.
std::uint64_t assemble_chunks(const fs::path& partial, std::size_t chunks, std::size_t pairs,
                              std::size_t chunk_pairs, CheckedWriter& tokens,
                              CheckedWriter& index) {
  std::vector<std::uint64_t> offsets;
  std::vector<std::uint32_t> src_lens, tgt_lens;
  offsets.reserve(pairs);
  src_lens.reserve(pairs);
  tgt_lens.reserve(pairs);
  std::uint64_t at = 0;
  std::vector<char> block(1 << 20);
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t n = std::min(chunk_pairs, pairs - c * chunk_pairs);
    const std::string lens = read_small_file(chunk_path(partial, c, "lens"));
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t s = 0, t = 0;
      std::memcpy(&s, lens.data() + 4 * i, 4);
      std::memcpy(&t, lens.data() + 4 * (n + i), 4);
      offsets.push_back(at);
      src_lens.push_back(s);
      tgt_lens.push_back(t);
      at += std::uint64_t{s} + t;
    }
    std::ifstream in(chunk_path(partial, c, "tokens"), std::ios::binary);
    while (in) {
      in.read(block.data(), static_cast<std::streamsize>(block.size()));
      tokens.write(block.data(), static_cast<std::size_t>(in.gcount()));
    }
  }
  index.write(offsets.data(), offsets.size() * 8);
  index.write(src_lens.data(), src_lens.size() * 4);
  index.write(tgt_lens.data(), tgt_lens.size() * 4);
  return at;
}

// Encodes the corpus chunk by chunk into `partial` (skipping whole chunks of an earlier try),
// then assembles the entry's files in `tmp`. The text is streamed: one chunk's lines are held
// at a time, whatever the corpus's size. Returns the pairs found encoded by an earlier try.
std::size_t prepare_into(const std::string& key, const fs::path& tmp, const fs::path& partial,
                         const std::string& source_path, const std::string& target_path,
                         const VocabConfig& cfg, const std::string& cache_dir,
                         const PrepareOptions& options) {
  const std::size_t kChunkPairs = std::max<std::size_t>(1, options.chunk_pairs);
  const CorpusCounts counts = count_pairs(source_path, target_path);
  const auto vocab = corpus_vocabulary(key, source_path, target_path, counts, cfg, cache_dir);
  const int width = vocab->size() <= 65536 ? 2 : 4;
  const std::size_t pairs = counts.pairs;
  const std::size_t chunks = (pairs + kChunkPairs - 1) / kChunkPairs;
  std::error_code ec;
  fs::create_directories(partial, ec);
  if (ec) throw FileWriteError(partial.string() + ": cannot create: " + ec.message());

  ProgressBar bar("prepare", static_cast<std::int64_t>(pairs), options.progress);
  std::size_t resumed = 0;
  PairReader reader(source_path, target_path);
  std::vector<std::string> src, tgt;
  for (std::size_t c = 0; c < chunks; ++c) {
    throw_if_stop_requested(options.stop, "preparing the corpus");
    const std::size_t first = c * kChunkPairs, n = std::min(kChunkPairs, pairs - first);
    const bool whole = chunk_is_whole(partial, c, n, width);
    src.resize(n);
    tgt.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      if (!reader.next(src[i], tgt[i]))
        throw InputError(source_path, 0, "", "the corpus changed while it was being prepared");
    if (whole)
      resumed += n;
    else
      write_chunk(partial, c, src, tgt, *vocab, width, options.threads, source_path.empty());
    bar.update(static_cast<std::int64_t>(first + n),
               resumed > 0 ? std::to_string(resumed) + " pairs from an earlier try" : "");
  }

  CheckedWriter tokens(tmp / "tokens.bin"), index(tmp / "index.bin");
  const std::uint64_t at = assemble_chunks(partial, chunks, pairs, kChunkPairs, tokens, index);
  nlohmann::json meta = {{"format", kFormat},
                         {"pairs", pairs},
                         {"tokens", at},
                         {"width", width},
                         {"vocab_size", vocab->size()},
                         {"vocab", {{"type", cfg.type}, {"size", cfg.size}}},
                         {"one_side_empty", counts.one_side_empty},
                         {"documents", source_path.empty()},
                         // absolute, so `fathom data cache` can check them from anywhere
                         {"source", source_path.empty() ? "" : fs::absolute(source_path).string()},
                         {"target", fs::absolute(target_path).string()}};
  meta["tokens_hash"] = tokens.close();
  meta["index_hash"] = index.close();
  fs::copy_file(vocab->model_path(), tmp / "spm.model", ec);
  if (ec) throw FileWriteError((tmp / "spm.model").string() + ": cannot write: " + ec.message());
  write_file_or_throw((tmp / "meta.json").string(), meta.dump(2) + "\n",
                      "the prepared corpus's meta.json");
  bar.finish(std::to_string(pairs) + " pairs, " + std::to_string(at) + " ids of " +
             std::to_string(width) + " bytes");
  return resumed;
}

// What stat() says of a corpus file: if none of it changed, neither did its bytes (the change
// time cannot be set back by touch or a copy tool, unlike the modification time).
nlohmann::json file_stamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return nullptr;
  return {{"dev", st.st_dev},
          {"ino", st.st_ino},
          {"size", st.st_size},
          {"mtime_ns", st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec},
          {"ctime_ns", st.st_ctim.tv_sec * 1'000'000'000LL + st.st_ctim.tv_nsec}};
}

// The entry's key without reading the text when the files are as they were the last time they
// were hashed here (as git and ccache do): <root>/known-corpora/ remembers, per pair of paths and
// vocabulary, the files' stamps and the key they hashed to. Hashing is the one part of a start
// that grows with the corpus (about a second a GB; a WMT14 En-Fr start would pay ~10 s).
std::string remembered_key(const fs::path& root, const std::string& source_path,
                           const std::string& target_path, const VocabConfig& vocab) {
  if (!source_path.empty()) check_text_file(source_path);
  check_text_file(target_path);
  std::error_code ec;
  ContentHash name;
  name.add_field(kFormat);
  name.add_field(source_path.empty() ? std::string("(documents)")
                                     : fs::absolute(source_path, ec).lexically_normal().string());
  name.add_field(fs::absolute(target_path, ec).lexically_normal().string());
  name.add_field(vocab.type);
  name.add_field(std::to_string(vocab.size));
  const fs::path memo = root / "known-corpora" / (name.hex() + ".json");
  const nlohmann::json stamps = {{"source", file_stamp(source_path)},
                                 {"target", file_stamp(target_path)}};
  try {
    const nlohmann::json known = nlohmann::json::parse(read_small_file(memo));
    if (known.at("stamps") == stamps) return known.at("key").get<std::string>();
  } catch (const std::exception&) {
    // none yet, or unreadable: hash
  }
  const std::string key = prepared_corpus_key(source_path, target_path, vocab);
  // Best effort: a cache that cannot be written only costs the next start a hash.
  fs::create_directories(memo.parent_path(), ec);
  const fs::path tmp = memo.string() + ".tmp-" + unique_temp_suffix();
  std::ofstream(tmp) << nlohmann::json{
      {"source", source_path},
      {"target", target_path},
      {"stamps", stamps},
      {"key", key}}.dump(2);
  fs::rename(tmp, memo, ec);
  if (ec) fs::remove(tmp, ec);
  return key;
}

}  // namespace

std::string prepared_corpus_key(const std::string& source_path, const std::string& target_path,
                                const VocabConfig& vocab) {
  if (!source_path.empty()) check_text_file(source_path);
  check_text_file(target_path);
  ContentHash h;
  h.add_field(kFormat);
  h.add_field(vocab.type);
  h.add_field(std::to_string(vocab.size));
  if (source_path.empty())
    h.add_field("documents");  // one file, no source side: never a parallel corpus's key
  else
    h.add_file(source_path);
  h.add_file(target_path);
  return kCorpusEntryPrefix + h.hex();
}

bool is_corpus_entry_name(const std::string& folder_name) {
  return folder_name.rfind(kCorpusEntryPrefix, 0) == 0;
}

std::string partial_entry_name(const std::string& key) { return "." + key + kPartialSuffix; }

std::string key_of_temporary_entry(const std::string& folder_name) {
  return key_after_dot(folder_name, folder_name.rfind(kTemporaryInfix), kCorpusEntryPrefix);
}

bool corpus_entry_locked(const std::string& cache_dir, const std::string& key) {
  return locked_elsewhere(fs::path(cache_dir) / (key + ".lock"));  // none: nobody prepared here
}

std::string key_of_partial_entry(const std::string& folder_name) {
  const std::string suffix = kPartialSuffix;
  const bool ends_so =
      folder_name.size() > suffix.size() &&
      folder_name.compare(folder_name.size() - suffix.size(), suffix.size(), suffix) == 0;
  return ends_so
             ? key_after_dot(folder_name, folder_name.size() - suffix.size(), kCorpusEntryPrefix)
             : "";
}

std::string remembered_corpus_key(const std::string& cache_dir, const std::string& source_path,
                                  const std::string& target_path, const VocabConfig& vocab) {
  return remembered_key(fs::path(cache_dir), source_path, target_path, vocab);
}

std::shared_ptr<SentencePieceVocab> prepare_corpus_vocabulary(const std::string& source_path,
                                                              const std::string& target_path,
                                                              const VocabConfig& vocab,
                                                              const std::string& cache_dir) {
  const fs::path root =
      cache_dir.empty() ? fs::temp_directory_path() / "fathom-cache" : fs::path(cache_dir);
  const std::string key = remembered_key(root, source_path, target_path, vocab);
  return corpus_vocabulary(key, source_path, target_path, count_pairs(source_path, target_path),
                           vocab, cache_dir);
}

PreparedCorpus prepare_corpus(const std::string& source_path, const std::string& target_path,
                              const VocabConfig& vocab, const std::string& cache_dir,
                              const PrepareOptions& options) {
  const fs::path root =
      cache_dir.empty() ? fs::temp_directory_path() / "fathom-cache" : fs::path(cache_dir);
  const std::string key = remembered_key(root, source_path, target_path, vocab);
  const fs::path entry = root / key;
  std::error_code ec;
  // An entry that cannot be trusted is set aside (renamed, so a reader that mapped it keeps its
  // pages) and prepared again, said aloud.
  auto open_or_set_aside = [&]() -> std::optional<PreparedCorpus> {
    if (!fs::exists(entry / "meta.json", ec)) return std::nullopt;
    std::string why;
    if (auto c = open_entry(entry, vocab, why)) return c;
    std::fprintf(stderr, "warning: prepared corpus %s: %s; preparing it again\n", entry.c_str(),
                 why.c_str());
    const fs::path aside = root / ("." + key + ".damaged-" + unique_temp_suffix());
    fs::rename(entry, aside, ec);
    fs::remove_all(aside, ec);
    return std::nullopt;
  };
  if (auto c = open_or_set_aside()) return *c;

  fs::create_directories(root, ec);
  if (ec) throw FileWriteError(root.string() + ": cannot create the cache folder: " + ec.message());
  const EntryLock lock(root / (key + ".lock"));
  if (auto c = open_or_set_aside()) return *c;  // prepared while we waited
  if (adopt_earlier_entry(root, key, "meta.json"))
    if (auto c = open_or_set_aside()) return *c;  // checked as any entry is

  const fs::path partial = root / partial_entry_name(key);
  const fs::path tmp = root / ("." + key + kTemporaryInfix + unique_temp_suffix());
  fs::create_directories(tmp, ec);
  if (ec) throw FileWriteError(tmp.string() + ": cannot create: " + ec.message());
  std::size_t resumed = 0;
  try {
    resumed = prepare_into(key, tmp, partial, source_path, target_path, vocab, cache_dir, options);
    fs::rename(tmp, entry, ec);
    if (ec)
      throw FileWriteError(entry.string() + ": cannot place the prepared corpus: " + ec.message());
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
  fs::remove_all(partial, ec);
  std::string why;
  auto c = open_entry(entry, vocab, why);
  if (!c)
    throw FileWriteError(entry.string() + ": the corpus just prepared cannot be read: " + why);
  c->reused = false;
  c->resumed_pairs = resumed;
  return *c;
}

PreparedCorpus prepare_documents(const std::string& path, const VocabConfig& vocab,
                                 const std::string& cache_dir, const PrepareOptions& options) {
  return prepare_corpus("", path, vocab, cache_dir, options);
}

}  // namespace fathom
