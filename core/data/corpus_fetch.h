#pragma once
// `fathom data get NAME`: a corpus of its catalog (core/data/corpus_catalog.h) brought into
// <corpora_home>/NAME/ (base/config/corpus_path.h), where configs name its files as
// corpus:NAME/FILE. Each download comes from its official address (curl) or, with a local
// copy, from `from_dir`, and is checked against the SHA-256 its catalog records before
// anything is made of it. The corpus is built in a temporary folder and renamed into place, so
// a stopped or failed call leaves no half corpus; verified downloads are kept under
// <corpora_home>/.downloads/NAME/ until the corpus is made, so a second call does not fetch
// them again.
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "core/data/corpus_catalog.h"

namespace fathom {

struct CorpusFetchOptions {
  std::string home;         // "" = corpora_home()
  std::string from_dir;     // "" = download; else take each download's file from this folder
  bool unverified = false;  // accept a download whose catalog records no SHA-256
  bool progress = true;
  // Where a report of each step goes (stderr by default).
  std::function<void(const std::string&)> say;
};

struct CorpusFetchResult {
  std::string dir;
  bool already = false;  // it was there: nothing fetched
  std::vector<std::string> files;
};

// Throws InputError (file = the download or catalog, field = the download's name) for a hash
// or size that does not match, a file missing from `from_dir`, a download that fails (with how
// to use --from), a catalog without a hash unless `unverified`, or a member not in its archive.
CorpusFetchResult fetch_corpus(const CorpusCatalog& catalog, const CorpusFetchOptions& options);

// The SHA-256 of a file as 64 lowercase hex digits (coreutils' sha256sum).
std::string sha256_of_file(const std::string& path);
// The MD5 as 32 lowercase hex digits (md5sum): only for files whose publisher recorded no more.
std::string md5_of_file(const std::string& path);

// Appends the text of every <seg ...>...</seg> of a WMT SGML file to `out`, one a line, with the
// tags and surrounding blanks removed; the segment's text is kept as written (entities too, as
// the publishers' plain-text versions have them). Returns the segments written.
size_t append_sgml_segments(const std::string& sgml_path, std::ostream& out);

}  // namespace fathom
