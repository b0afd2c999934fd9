// `fathom data get [NAME] [--catalog FILE] [--from DIR] [--unverified]`: brings a public corpus of
// its catalog (configs/corpora/NAME.yaml) into the corpora folder, where configs name its files as
// corpus:NAME/FILE (core/data/corpus_fetch.h, docs/data.md). Without NAME: the catalogs.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/config/corpus_path.h"
#include "base/util/error.h"
#include "cli/commands.h"
#include "core/data/corpus_fetch.h"

namespace fathom::cli {
namespace {

struct DataGetArgs {
  std::string name;
  std::string catalog;
  std::string from;
  bool unverified = false;
  bool no_progress = false;
};

void list_corpora(const GlobalOptions& global) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& name : builtin_corpus_names()) {
    const CorpusCatalog c = builtin_corpus(name);
    const bool here =
        std::filesystem::exists(std::filesystem::path(corpora_home()) / name / "corpus.json");
    list.push_back({{"name", name}, {"about", c.about}, {"here", here}});
  }
  if (global.json) {
    std::cout << list.dump(2) << "\n";
    return;
  }
  std::printf("corpora folder: %s (set %s to move it)\n", corpora_home().c_str(), kCorporaEnv);
  for (const auto& c : list)
    std::printf("  %-14s %-8s %s\n", c["name"].get<std::string>().c_str(),
                c["here"].get<bool>() ? "here" : "-", c["about"].get<std::string>().c_str());
}

// A catalog of one's own (a corpus not in configs/corpora yet); NAME, when given, must be its.
CorpusCatalog catalog_file(const std::string& path, const std::string& name) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "--catalog", "cannot read the file");
  std::stringstream text;
  text << in.rdbuf();
  CorpusCatalog c = parse_corpus_catalog(text.str(), path);
  if (!name.empty() && name != c.name)
    throw InputError(path, 0, "name", "the catalog is '" + c.name + "', not " + name);
  return c;
}

void run_data_get(const GlobalOptions& global, const DataGetArgs& args) {
  if (args.name.empty() && args.catalog.empty()) {
    list_corpora(global);
    return;
  }
  const CorpusCatalog catalog =
      args.catalog.empty() ? builtin_corpus(args.name) : catalog_file(args.catalog, args.name);
  CorpusFetchOptions options;
  options.from_dir = args.from;
  options.unverified = args.unverified;
  options.progress = !args.no_progress && !global.json;
  const CorpusFetchResult r = fetch_corpus(catalog, options);
  if (global.json) {
    std::cout << nlohmann::json{{"name", catalog.name},
                                {"dir", r.dir},
                                {"already", r.already},
                                {"files", r.files}}
                     .dump(2)
              << "\n";
    return;
  }
  std::printf("%s %s: %s\n", r.already ? "already here:" : "got", catalog.name.c_str(),
              r.dir.c_str());
  for (const auto& f : r.files) std::printf("  corpus:%s/%s\n", catalog.name.c_str(), f.c_str());
}

}  // namespace

void add_data_get_command(CLI::App& data, GlobalOptions& options) {
  auto args = std::make_shared<DataGetArgs>();
  CLI::App* get = data.add_subcommand(
      "get",
      "Fetch a public corpus (its official files, checked against the SHA-256 in "
      "configs/corpora/NAME.yaml) into the corpora folder; without NAME, list them");
  get->add_option("name", args->name, "corpus, e.g. multi30k, wmt14-en-de, wmt14-en-fr");
  get->add_option("--catalog", args->catalog,
                  "a catalog file of your own (the form of configs/corpora/*.yaml)")
      ->check(CLI::ExistingFile);
  get->add_option("--from", args->from,
                  "take the downloads from this folder (a local copy) instead of the network")
      ->check(CLI::ExistingDirectory);
  get->add_flag("--unverified", args->unverified,
                "accept a file whose catalog records no SHA-256 (its hash is printed)");
  get->add_flag("--no-progress", args->no_progress, "no progress bar");
  get->callback([&options, args] { run_data_get(options, *args); });
}

}  // namespace fathom::cli
