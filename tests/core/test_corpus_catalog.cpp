// The corpus catalogs (core/data/corpus_catalog.h): every built-in one parses and is named
// after its file; every corpus:NAME/FILE a config in the repository names is a file its
// catalog makes; and a malformed catalog is refused at its line and key.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "base/config/corpus_path.h"
#include "base/util/error.h"
#include "core/data/corpus_catalog.h"
#include "core/data/corpus_fetch.h"

namespace test_corpus_catalog {
namespace fs = std::filesystem;

std::set<std::string> files_of(const fathom::CorpusCatalog& c) {
  std::set<std::string> files;
  if (c.outputs.empty())
    for (const auto& d : c.downloads) files.insert(d.file);
  for (const auto& o : c.outputs) files.insert(o.file);
  return files;
}

TEST(CorpusCatalog, EveryBuiltInCatalogIsItsFileAndEveryConfigNamesAFileItMakes) {
  std::set<std::string> on_disk;
  for (const auto& e : fs::directory_iterator(fs::path(FATHOM_SOURCE_DIR) / "configs" / "corpora"))
    on_disk.insert(e.path().stem().string());
  const auto names = fathom::builtin_corpus_names();
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), on_disk);
  for (const auto& name : names) EXPECT_EQ(fathom::builtin_corpus(name).name, name);

  const std::regex corpus_file("corpus:([A-Za-z0-9_.-]+)/([^\\s,}\\]\"']+)");
  int named = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(FATHOM_SOURCE_DIR) / "configs")) {
    if (e.path().extension() != ".yaml" || e.path().parent_path().filename() == "corpora") continue;
    std::ifstream in(e.path());
    std::string s, line;
    while (std::getline(in, line)) s += line.substr(0, line.find('#')) + "\n";  // not comments
    for (std::sregex_iterator m(s.begin(), s.end(), corpus_file), end; m != end; ++m) {
      SCOPED_TRACE(e.path().string() + ": " + m->str());
      ++named;
      const auto c = fathom::builtin_corpus((*m)[1]);
      EXPECT_TRUE(files_of(c).count((*m)[2])) << "not a file of corpus " << c.name;
    }
  }
  EXPECT_GE(named, 12) << "multi30k.yaml, lm-multi30k-en.yaml and the WMT'14 configs name theirs";
}

TEST(CorpusCatalog, TheWmt14CatalogsMakeWhatTheirConfigsRead) {
  for (const char* name : {"wmt14-en-de", "wmt14-en-fr"}) {
    const auto files = files_of(fathom::builtin_corpus(name));
    EXPECT_TRUE(files.count("train.en")) << name;
    EXPECT_TRUE(files.count("newstest2014.en")) << name;
    // Every archive is checked by a published hash: none needs --unverified.
    for (const auto& d : fathom::builtin_corpus(name).downloads)
      EXPECT_TRUE(!d.sha256.empty() || !d.md5.empty()) << name << ": " << d.file;
  }
}

void expect_refused(const std::string& yaml, int line, const std::string& field,
                    const std::string& words) {
  SCOPED_TRACE(yaml);
  try {
    fathom::parse_corpus_catalog(yaml, "bad.yaml");
    ADD_FAILURE() << "accepted";
  } catch (const fathom::InputError& e) {
    EXPECT_EQ(e.file(), "bad.yaml");
    EXPECT_EQ(e.line(), line);
    EXPECT_EQ(e.field(), field);
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(CorpusCatalog, AMalformedCatalogIsRefusedAtItsLineAndKey) {
  const std::string head = "name: x\ndownloads:\n";
  expect_refused(head + "  - {file: a, url: https://h/a, sha256: 12ab}\n", 3, "downloads[0].sha256",
                 "64 lowercase hex");
  expect_refused(head + "  - {file: sub/a, url: https://h/a}\n", 3, "downloads[0].file",
                 "plain file name");
  expect_refused(head + "  - {file: a, url: ftp://h/a}\n", 3, "downloads[0].url", "http(s)");
  expect_refused(head + "  - {file: a, url: https://h/a, md5: 1}\n", 3, "downloads[0].md5",
                 "32 lowercase hex");
  expect_refused(head + "  - {file: a, url: https://h/a, sha1: 1}\n", 3, "downloads[0].sha1",
                 "unknown key");
  expect_refused(head + "  - {file: a, url: https://h/a}\n  - {file: a, url: https://h/b}\n", 4,
                 "downloads[1].file", "listed twice");
  expect_refused(head +
                     "  - {file: a, url: https://h/a}\noutputs:\n  - file: t\n"
                     "    from: [{download: b}]\n",
                 6, "outputs[0].from[0].download", "no download");
  expect_refused("downloads: []\n", 1, "name", "required");
}

TEST(CorpusCatalog, ACorpusFileNameResolvesInTheCorporaFolder) {
  const char* before = std::getenv("FATHOM_DATA");
  const std::string saved = before ? before : "";
  setenv("FATHOM_DATA", "/data/corpora", 1);
  EXPECT_EQ(fathom::corpus_file_path("corpus:multi30k/train.de.gz"),
            std::optional<std::string>("/data/corpora/multi30k/train.de.gz"));
  EXPECT_EQ(fathom::corpus_file_path("data/train.de"), std::nullopt);
  EXPECT_THROW(fathom::corpus_file_path("corpus:multi30k"), std::invalid_argument);
  EXPECT_THROW(fathom::corpus_file_path("corpus:../etc/passwd"), std::invalid_argument);
  EXPECT_EQ(fathom::missing_corpus_of("/data/corpora/multi30k/train.de.gz"),
            std::optional<std::string>("multi30k"));
  EXPECT_EQ(fathom::missing_corpus_of("/elsewhere/train.de.gz"), std::nullopt);
  if (before)
    setenv("FATHOM_DATA", saved.c_str(), 1);
  else
    unsetenv("FATHOM_DATA");
}

TEST(CorpusCatalog, SgmlSegmentsAreTheTextBetweenTheTags) {
  const fs::path path = fs::temp_directory_path() / "fathom-test-segments.sgm";
  std::ofstream(path) << "<srcset>\n<doc>\n<seg id=\"1\">  a b  </seg>\n<p>\n<seg id=2>c</seg>\n";
  std::ostringstream out;
  EXPECT_EQ(fathom::append_sgml_segments(path.string(), out), 2u);
  EXPECT_EQ(out.str(), "a b\nc\n");
  fs::remove(path);
}

}  // namespace test_corpus_catalog
