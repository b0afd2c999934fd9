#include "core/data/corpus_fetch.h"

#include <zlib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/config/corpus_path.h"
#include "base/util/error.h"
#include "base/util/file_lock.h"
#include "base/util/file_write.h"
#include "base/util/process.h"
#include "base/util/progress.h"

namespace fathom {
namespace fs = std::filesystem;
namespace {

constexpr double kDownloadTimeoutSeconds = 48 * 3600.0;  // a slow link and a 2 GB archive
constexpr double kToolTimeoutSeconds = 6 * 3600.0;       // tar and sha256sum on the same

std::string mib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return text;
}

class Fetcher {
 public:
  Fetcher(const CorpusCatalog& catalog, const CorpusFetchOptions& options)
      : c_(catalog), o_(options) {
    if (!o_.say) o_.say = [](const std::string& line) { std::cerr << line << "\n"; };
  }

  CorpusFetchResult run() {
    const fs::path home = o_.home.empty() ? corpora_home() : o_.home;
    fs::create_directories(home);
    const fs::path dir = home / c_.name;
    // One lock per corpus, so that two `data get` (or two workers) fetch it once.
    const FileLock lock(home / ("." + c_.name + ".lock"), FileLock::Mode::kWait);
    CorpusFetchResult result;
    result.dir = dir.string();
    if (fs::exists(dir / "corpus.json")) {
      result.already = true;
      result.files = listed_files(dir);
      return result;
    }
    downloads_ = home / ".downloads" / c_.name;
    fs::create_directories(downloads_);
    for (const auto& d : c_.downloads) obtain(d);
    const fs::path staging = home / ("." + c_.name + ".partial-" + unique_temp_suffix());
    fs::create_directories(staging);
    try {
      result.files = make_files(staging);
      write_record(staging, result.files);
      fs::remove_all(dir);  // a folder without corpus.json is a leftover, not a corpus
      fs::rename(staging, dir);
    } catch (...) {
      std::error_code ec;
      fs::remove_all(staging, ec);
      throw;
    }
    fs::remove_all(downloads_);
    std::error_code ec;
    fs::remove(downloads_.parent_path(), ec);  // only when no other corpus's downloads wait there
    return result;
  }

 private:
  const CorpusCatalog& c_;
  CorpusFetchOptions o_;
  fs::path downloads_;

  [[noreturn]] void fail(const CorpusDownload& d, const std::string& message) const {
    throw InputError(c_.origin, 0, d.file, message);
  }

  static std::vector<std::string> listed_files(const fs::path& dir) {
    std::ifstream in(dir / "corpus.json");
    const auto record = nlohmann::json::parse(in, nullptr, false);
    std::vector<std::string> files;
    if (record.is_object() && record.contains("files"))
      for (const auto& f : record["files"]) files.push_back(f.value("file", ""));
    return files;
  }

  // A download in downloads_/file, checked; fetched or copied only when it is not there yet.
  void obtain(const CorpusDownload& d) {
    const fs::path path = downloads_ / d.file;
    if (fs::exists(path) && matches(d, path, /*quiet=*/true)) {
      o_.say(c_.name + ": " + d.file + " already downloaded and checked");
      return;
    }
    const fs::path part = path.string() + ".part";
    if (!o_.from_dir.empty()) {
      const fs::path local = fs::path(o_.from_dir) / d.file;
      if (!fs::exists(local))
        fail(d, "not in " + o_.from_dir + " (--from): the folder must hold " + d.file +
                    (d.url.empty() ? "" : ", as " + d.url + " serves it"));
      o_.say(c_.name + ": " + d.file + " from " + local.string());
      std::error_code ec;
      fs::remove(part, ec);  // a stopped copy's leftover, perhaps read-only like its source
      fs::copy_file(local, part);
    } else {
      download(d, part);
    }
    try {
      matches(d, part, /*quiet=*/false);
    } catch (...) {
      std::error_code ec;
      fs::remove(part, ec);
      throw;
    }
    fs::rename(part, path);
  }

  void download(const CorpusDownload& d, const fs::path& part) const {
    o_.say(c_.name + ": downloading " + d.url + (d.bytes ? " (" + mib(*d.bytes) + ")" : ""));
    std::atomic<bool> done{false};
    std::thread watcher([&] {  // curl's own bar would be captured: draw ours from the file size
      ProgressBar bar(d.file, d.bytes ? static_cast<int64_t>(*d.bytes) : 0, o_.progress);
      while (!done) {
        std::error_code ec;
        const auto size = fs::file_size(part, ec);
        bar.update(ec ? 0 : static_cast<int64_t>(size), "");
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
      }
    });
    const ProgramResult r =
        run_program({"curl", "--fail", "--location", "--silent", "--show-error", "--retry", "2",
                     "--connect-timeout", "30", "--output", part.string(), d.url},
                    "", {}, kDownloadTimeoutSeconds);
    done = true;
    watcher.join();
    if (r.exit_code != 0) {
      std::error_code ec;
      fs::remove(part, ec);
      std::string why = r.err;  // curl repeats its error once per retry: the last says it
      while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
      why = why.substr(why.rfind('\n') == std::string::npos ? 0 : why.rfind('\n') + 1);
      fail(d, "could not download " + d.url + " (" + (why.empty() ? "curl failed" : why) +
                  "). Without a network, copy the corpus's files (" + download_list() +
                  ") into a folder and run `fathom data get " + c_.name + " --from DIR`");
    }
  }

  std::string download_list() const {
    std::string list;
    for (const auto& d : c_.downloads) list += (list.empty() ? "" : ", ") + d.file;
    return list;
  }

  // Size and SHA-256 against the catalog (its MD5 where it records no SHA-256). A mismatch throws
  // unless `quiet` (a leftover that is simply fetched again); a file with no recorded hash needs
  // --unverified; its SHA-256 is printed whenever the catalog lacks one, to be written there.
  bool matches(const CorpusDownload& d, const fs::path& path, bool quiet) const {
    const uint64_t size = fs::file_size(path);
    if (d.bytes && size != *d.bytes) {
      if (quiet) return false;
      fail(d, "is " + std::to_string(size) + " bytes where the catalog records " +
                  std::to_string(*d.bytes) + ": not the published file");
    }
    const std::string hash = sha256_of_file(path.string());
    if (!d.sha256.empty()) return same_digest(d, "SHA-256", hash, d.sha256, quiet);
    if (!d.md5.empty()) {
      if (!same_digest(d, "MD5", md5_of_file(path.string()), d.md5, quiet)) return false;
      o_.say(c_.name + ": " + d.file + " matches the recorded MD5; its SHA-256 is " + hash);
      return true;
    }
    if (quiet && !o_.unverified) return false;
    if (!o_.unverified)
      fail(d, "the catalog records no SHA-256 for it; this copy's is " + hash +
                  ". Check it against the publisher, then run again with --unverified (and "
                  "write it into " +
                  c_.origin + ")");
    o_.say(c_.name + ": " + d.file + " taken unverified, SHA-256 " + hash);
    return true;
  }

  bool same_digest(const CorpusDownload& d, const std::string& kind, const std::string& hash,
                   const std::string& recorded, bool quiet) const {
    if (hash == recorded) return true;
    if (quiet) return false;
    fail(d, kind + " " + hash + " where the catalog records " + recorded +
                ": a damaged or different file; nothing was installed");
  }

  std::vector<std::string> make_files(const fs::path& staging) const {
    std::vector<std::string> files;
    if (c_.outputs.empty()) {  // the corpus is its downloads: moved, not copied
      for (const auto& d : c_.downloads) {
        fs::rename(downloads_ / d.file, staging / d.file);
        files.push_back(d.file);
      }
      return files;
    }
    for (const auto& out : c_.outputs) {
      o_.say(c_.name + ": making " + out.file);
      std::ofstream stream(staging / out.file, std::ios::binary);
      for (const auto& piece : out.from) append_piece(piece, staging, stream);
      stream.close();
      if (!stream) throw std::runtime_error("could not write " + (staging / out.file).string());
      files.push_back(out.file);
    }
    return files;
  }

  void append_piece(const CorpusPiece& piece, const fs::path& staging, std::ostream& out) const {
    fs::path source = downloads_ / piece.download;
    const fs::path unpacked = staging / ".unpacked";
    if (!piece.member.empty()) {
      fs::create_directories(unpacked);
      const ProgramResult r =
          run_program({"tar", "-xf", source.string(), "-C", unpacked.string(), piece.member}, "",
                      {}, kToolTimeoutSeconds);
      if (r.exit_code != 0)
        throw InputError(c_.origin, 0, piece.download,
                         "has no member " + piece.member + " (tar: " + r.err + ")");
      source = unpacked / piece.member;
    }
    if (piece.sgml) {
      append_sgml_segments(source.string(), out);
    } else {
      append_text(source, out);
    }
    if (!piece.member.empty()) fs::remove_all(unpacked);
  }

  // Copies a file, uncompressed if it is gzip (zlib reads a plain file as it is), ending it
  // with a newline so that the next piece's first line stays its own.
  static void append_text(const fs::path& path, std::ostream& out) {
    gzFile in = gzopen(path.c_str(), "rb");
    if (!in) throw std::runtime_error("cannot open " + path.string());
    std::vector<char> buffer(1 << 20);
    char last = '\n';
    int n = 0;
    while ((n = gzread(in, buffer.data(), static_cast<unsigned>(buffer.size()))) > 0) {
      out.write(buffer.data(), n);
      last = buffer[static_cast<size_t>(n) - 1];
    }
    const bool failed = n < 0;
    gzclose(in);
    if (failed) throw std::runtime_error("cannot read " + path.string());
    if (last != '\n') out.put('\n');
  }

  void write_record(const fs::path& staging, const std::vector<std::string>& files) const {
    nlohmann::json record{{"name", c_.name}, {"about", c_.about}, {"cite", c_.cite}};
    for (const auto& d : c_.downloads)
      record["downloads"].push_back({{"file", d.file}, {"url", d.url}, {"sha256", d.sha256}});
    for (const auto& f : files)
      record["files"].push_back({{"file", f}, {"bytes", fs::file_size(staging / f)}});
    std::ofstream(staging / "corpus.json") << record.dump(2) << "\n";
  }
};

}  // namespace

namespace {
// coreutils' `tool` (sha256sum, md5sum): its first `digits` characters are the file's digest.
std::string digest_of_file(const std::string& tool, const std::string& path, size_t digits) {
  const ProgramResult r = run_program({tool, "--binary", path}, "", {}, kToolTimeoutSeconds);
  if (r.exit_code != 0 || r.out.size() < digits)
    throw std::runtime_error(tool + " " + path + " failed: " + r.err);
  return r.out.substr(0, digits);
}
}  // namespace

std::string sha256_of_file(const std::string& path) {
  return digest_of_file("sha256sum", path, 64);
}

std::string md5_of_file(const std::string& path) { return digest_of_file("md5sum", path, 32); }

size_t append_sgml_segments(const std::string& sgml_path, std::ostream& out) {
  std::ifstream in(sgml_path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + sgml_path);
  size_t segments = 0;
  std::string line;
  auto blank = [](char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; };
  while (std::getline(in, line)) {
    const size_t open = line.find("<seg");
    if (open == std::string::npos) continue;
    const size_t text_start = line.find('>', open);
    const size_t close = line.rfind("</seg>");
    if (text_start == std::string::npos || close == std::string::npos || close <= text_start)
      throw std::runtime_error(sgml_path + ": a <seg> that does not end on its line: " + line);
    size_t a = text_start + 1, b = close;
    while (a < b && blank(line[a])) ++a;
    while (b > a && blank(line[b - 1])) --b;
    out.write(line.data() + a, static_cast<std::streamsize>(b - a));
    out.put('\n');
    ++segments;
  }
  return segments;
}

CorpusFetchResult fetch_corpus(const CorpusCatalog& catalog, const CorpusFetchOptions& options) {
  return Fetcher(catalog, options).run();
}

}  // namespace fathom
