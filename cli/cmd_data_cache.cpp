// `fathom data cache [--prune]`: what the store's cache holds -- prepared corpora and
// vocabularies, their size, the text each came from -- and which entries no run can use
// again (core/data/cache_entries.h): a corpus whose text changed or went, an unreadable one,
// an earlier folder's copy of an entry the cache has. --prune removes those, nothing else.
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "base/util/strings.h"
#include "cli/commands.h"
#include "core/data/cache_entries.h"
#include "db/run_paths.h"

namespace fathom::cli {
namespace {

struct DataCacheArgs {
  bool prune = false;
};

nlohmann::json entry_json(const CacheEntry& e) {
  nlohmann::json j = {{"name", e.name},           {"folder", e.folder},
                      {"bytes", e.bytes},         {"state", e.state},
                      {"prunable", e.prunable()}, {"earlier_folder", e.in_earlier},
                      {"kind", e.kind_name()}};
  if (e.kind == CacheEntry::Kind::corpus) {
    j["pairs"] = e.pairs;
    j["source"] = e.source;
    j["target"] = e.target;
  }
  return j;
}

void print_entry(const CacheEntry& e) {
  const bool whole_corpus = e.kind == CacheEntry::Kind::corpus;
  const std::string what =
      whole_corpus ? std::to_string(e.pairs) + (e.source.empty() ? " documents" : " pairs") : "";
  const std::string text =
      whole_corpus ? (e.source.empty() ? e.target : e.source + ", " + e.target) : "";
  std::printf("  %-44s %-10s %15s %10s  %-22s %s\n", e.name.c_str(), e.kind_name(), what.c_str(),
              format_bytes(e.bytes).c_str(), e.state.c_str(), text.c_str());
}

void run_data_cache(const GlobalOptions& global, const DataCacheArgs& args) {
  const auto paths = resolve_store_paths(global);
  const std::string earlier = db::earlier_cache_root(paths.cache_root);
  const std::vector<CacheEntry> entries = cache_entries(paths.cache_root);
  std::uint64_t total = 0, prunable = 0, prunable_count = 0;
  for (const auto& e : entries) {
    total += e.bytes;
    if (e.prunable()) prunable += e.bytes, ++prunable_count;
  }
  const std::uint64_t freed = args.prune ? prune_cache_entries(entries) : 0;
  if (global.json) {
    nlohmann::json out = {{"cache", paths.cache_root},
                          {"earlier_folder", earlier},
                          {"bytes", total},
                          {"prunable_bytes", prunable},
                          {"entries", nlohmann::json::array()}};
    for (const auto& e : entries) out["entries"].push_back(entry_json(e));
    if (args.prune) out["freed_bytes"] = freed;
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::printf("cache %s\n", paths.cache_root.c_str());
  if (!entries.empty())
    std::printf("  %-44s %-10s %15s %10s  %-22s %s\n", "entry", "kind", "", "size", "state",
                "text");
  bool earlier_said = false;
  for (const auto& e : entries) {
    if (e.in_earlier && !earlier_said) {
      std::printf("earlier folder %s (where sweeps' workers kept it before 2026-12-04)\n",
                  earlier.c_str());
      earlier_said = true;
    }
    print_entry(e);
  }
  std::printf("%zu entries, %s", entries.size(), format_bytes(total).c_str());
  if (prunable_count == 0)
    std::printf("; every one can still be used\n");
  else if (args.prune)
    std::printf("; removed the %llu no run can use again (%s freed)\n",
                static_cast<unsigned long long>(prunable_count), format_bytes(freed).c_str());
  else
    std::printf("; %llu no run can use again (%s): `fathom data cache --prune` removes them\n",
                static_cast<unsigned long long>(prunable_count), format_bytes(prunable).c_str());
}

}  // namespace

void add_data_cache_command(CLI::App& data, GlobalOptions& options) {
  auto args = std::make_shared<DataCacheArgs>();
  CLI::App* cache = data.add_subcommand(
      "cache",
      "List the store's cache (prepared corpora, vocabularies, their size and text) and which "
      "entries no run can use again; --prune removes those");
  cache->add_flag("--prune", args->prune,
                  "remove the entries no run can use again (text changed or gone, unreadable, "
                  "an earlier folder's copy)");
  cache->callback([&options, args] { run_data_cache(options, *args); });
}

}  // namespace fathom::cli
