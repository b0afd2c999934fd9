// Every preset in configs/presets/ parses, expands into valid runs (the checks of
// `fathom train` that need no LibTorch) and states the direction its paper table leads us to
// expect, in its header comment.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/util/error.h"
#include "experiments/sweep_spec.h"

namespace test_presets {
namespace fs = std::filesystem;

TEST(Presets, EachExpandsAndStatesItsExpectedDirection) {
  const fs::path dir = fs::path(FATHOM_SOURCE_DIR) / "configs" / "presets";
  // Run counts from the paper tables they mirror (docs/sweeps.md).
  const std::map<std::string, size_t> expected{
      {"xu2020-table1.yaml", 6},      {"xu2020-table3.yaml", 6},
      {"admin-table2.yaml", 18},      {"dlstm-table5.yaml", 6},
      {"depth-study.yaml", 72},       {"depth-study-multi30k.yaml", 27},
      {"depth-2025.yaml", 120},       {"depth-2025-multi30k.yaml", 120},
      {"dlstm-longer.yaml", 6},       {"lipschitz-embedding-multi30k.yaml", 12},
      {"linearize-multi30k.yaml", 2}, {"depth-study-36.yaml", 15},
      {"probes-depth.yaml", 3},       {"probes-divergence.yaml", 15},
      {"depth-lr-study.yaml", 180},   {"lm-depth-2025.yaml", 144}};
  // The real-data presets read ../shared/data (the repository's sibling): a clone without it
  // checks the others and says which it could not.
  const bool have_shared_data =
      fs::exists(fs::path(FATHOM_SOURCE_DIR).parent_path() / "shared" / "data");
  std::vector<std::string> need_shared_data;
  size_t seen = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string file = entry.path().filename().string();
    SCOPED_TRACE(file);
    ++seen;
    fathom::experiments::SweepSpec spec;
    std::vector<fathom::experiments::SweepRun> runs;
    try {
      spec = fathom::experiments::load_sweep_file(entry.path().string());
      runs = fathom::experiments::expand_sweep(spec);
    } catch (const fathom::InputError& e) {
      if (have_shared_data || std::string(e.what()).find("shared") == std::string::npos) throw;
      need_shared_data.push_back(file);
      continue;
    }
    ASSERT_TRUE(expected.count(file)) << "document new presets in docs/sweeps.md and here";
    EXPECT_EQ(runs.size(), expected.at(file));
    EXPECT_EQ(spec.name + ".yaml", file) << "the sweep is named after its file";
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("# Expected direction"), std::string::npos);
    EXPECT_NE(text.str().find("fathom export table --sweep " + spec.name), std::string::npos);
  }
  EXPECT_EQ(seen, expected.size());
  if (!need_shared_data.empty()) {
    std::string list;
    for (const auto& f : need_shared_data) list += " " + f;
    GTEST_SKIP() << "SKIPPED: ../shared/data is absent, so these presets were not expanded:"
                 << list;
  }
}

}  // namespace test_presets
