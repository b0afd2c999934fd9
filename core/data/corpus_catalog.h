#pragma once
// What a public corpus is made of, read from its catalog file `configs/corpora/NAME.yaml`
// (compiled into the binary, so `fathom data get NAME` works from any folder): the files to
// download, each with its official address, size and SHA-256, and the corpus files made from
// them -- a download as it is, or members of archives joined in order, SGML stripped to its
// segments (docs/data.md "Getting the corpora"). A new corpus is one new catalog file.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fathom {

struct CorpusDownload {
  std::string file;    // a plain name, as `--from DIR` must hold it
  std::string url;     // the publisher's own address
  std::string sha256;  // 64 lowercase hex digits; "" = none recorded
  // 32 lowercase hex digits: the only hash some publisher or tool recorded (sacrebleu's for
  // WMT'14 test-full.tgz). Checked where `sha256` is empty; neither = needs --unverified.
  std::string md5;
  std::optional<uint64_t> bytes;
};

// Part of a corpus file: a download, or one `member` of a download that is a tar archive;
// written as text (a gzip-compressed piece uncompressed).
struct CorpusPiece {
  std::string download;
  std::string member;  // "" = the download itself
  bool sgml = false;   // WMT's SGML test sets: the text of each <seg ...>...</seg>, one a line
};

struct CorpusOutput {
  std::string file;
  std::vector<CorpusPiece> from;  // joined in order, each ending in a newline
};

struct CorpusCatalog {
  std::string name, about, cite;
  std::string origin;  // the catalog file, for errors
  std::vector<CorpusDownload> downloads;
  // Empty: the corpus is its downloads, as they are.
  std::vector<CorpusOutput> outputs;
};

// Parses a catalog; InputError naming `origin`, the line and the key for anything malformed:
// an unknown key, a name with a '/', a SHA-256 that is not 64 hex digits (an MD5 not 32), a piece
// naming no download, a file made twice.
CorpusCatalog parse_corpus_catalog(const std::string& yaml, const std::string& origin);

// The catalogs built into the binary (configs/corpora/*.yaml), by name.
std::vector<std::string> builtin_corpus_names();
// InputError (field NAME) listing the known names when there is no such catalog.
CorpusCatalog builtin_corpus(const std::string& name);

}  // namespace fathom
