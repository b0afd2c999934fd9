// Every preset in configs/presets/ parses, expands into valid runs (the checks of
// `fathom train` that need no LibTorch) and states the direction its paper table leads us to
// expect, in its header comment.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "experiments/sweep_spec.h"
#include "tests/support/temp_dir.h"

namespace test_presets {
namespace fs = std::filesystem;

// The real-data presets name Multi30k's files as corpus:multi30k/FILE (base/config/
// corpus_path.h). While one of these lives, $FATHOM_DATA is a scratch corpora folder of
// stand-ins -- expanding a sweep only checks that its files exist -- so they expand anywhere.
class StandInMulti30k {
 public:
  StandInMulti30k() {
    fs::create_directories(dir_.path() / "multi30k");
    for (const char* f : {"train.de.gz", "train.en.gz", "val.de.gz", "val.en.gz",
                          "test_2016_flickr.de.gz", "test_2016_flickr.en.gz"})
      std::ofstream(dir_.path() / "multi30k" / f) << "a line\n";
    if (const char* before = std::getenv("FATHOM_DATA")) saved_ = before;
    setenv("FATHOM_DATA", dir_.path().c_str(), 1);
  }
  ~StandInMulti30k() {
    if (saved_)
      setenv("FATHOM_DATA", saved_->c_str(), 1);
    else
      unsetenv("FATHOM_DATA");
  }

 private:
  fathom::testing::TempDir dir_;
  std::optional<std::string> saved_;
};

TEST(Presets, EachExpandsAndStatesItsExpectedDirection) {
  const fs::path dir = fs::path(FATHOM_SOURCE_DIR) / "configs" / "presets";
  // Run counts from the paper tables they mirror (docs/sweeps.md).
  const std::map<std::string, size_t> expected{{"xu2020-table1.yaml", 6},
                                               {"xu2020-table3.yaml", 6},
                                               {"admin-table2.yaml", 18},
                                               {"dlstm-table5.yaml", 6},
                                               {"depth-study.yaml", 72},
                                               {"depth-study-multi30k.yaml", 27},
                                               {"depth-2025.yaml", 120},
                                               {"depth-2025-multi30k.yaml", 120},
                                               {"dlstm-longer.yaml", 6},
                                               {"lipschitz-embedding-multi30k.yaml", 12},
                                               {"linearize-multi30k.yaml", 2},
                                               {"depth-study-36.yaml", 15},
                                               {"probes-depth.yaml", 3},
                                               {"rank-collapse-multi30k.yaml", 3},
                                               {"probes-divergence.yaml", 15},
                                               {"depth-lr-study.yaml", 180},
                                               {"lm-depth-2025.yaml", 192},
                                               {"lm-depth-2025-edge.yaml", 30},
                                               {"lm-depth-2025-lns24.yaml", 6},
                                               {"depth-lr-study-edge.yaml", 6},
                                               {"lm-depth-61.yaml", 216},
                                               {"lm-depth-61-transfer.yaml", 72},
                                               {"lm-depth-61-transfer-edge.yaml", 36},
                                               {"lm-depth-61-transfer-mup.yaml", 54},
                                               {"lm-depth-61-connections.yaml", 108},
                                               {"replicate-18l-gpu.yaml", 3},
                                               {"depth-61-postln.yaml", 54},
                                               {"muon-depth.yaml", 24},
                                               {"sharpness-warmup.yaml", 12},
                                               {"sgd-vs-adam.yaml", 30},
                                               {"sgd-vs-adam-edge.yaml", 6},
                                               {"noise-scale-depth.yaml", 12},
                                               {"sgd-vs-adam-inits.yaml", 30},
                                               {"batch-size-scan.yaml", 30},
                                               {"sgd-vs-adam-inits-edge.yaml", 6},
                                               {"noise-scale-training.yaml", 6},
                                               {"noise-scale-training-dropout0.yaml", 2},
                                               {"batch-size-noise.yaml", 24},
                                               {"batch-size-noise-edge.yaml", 24},
                                               {"batch-size-noise-edge2.yaml", 12}};
  const StandInMulti30k corpora;
  size_t seen = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string file = entry.path().filename().string();
    SCOPED_TRACE(file);
    ++seen;
    fathom::experiments::SweepSpec spec;
    std::vector<fathom::experiments::SweepRun> runs;
    spec = fathom::experiments::load_sweep_file(entry.path().string());
    runs = fathom::experiments::expand_sweep(spec);
    ASSERT_TRUE(expected.count(file)) << "document new presets in docs/sweeps.md and here";
    EXPECT_EQ(runs.size(), expected.at(file));
    // Named after its file, or an extension of another preset's sweep (more rates for it):
    // FILE = NAME-what.yaml, its runs joining sweep NAME.
    EXPECT_TRUE(spec.name + ".yaml" == file ||
                (file.rfind(spec.name + "-", 0) == 0 && fs::exists(dir / (spec.name + ".yaml"))))
        << "the sweep is named after its file or extends a preset's sweep";
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("# Expected direction"), std::string::npos);
    EXPECT_NE(text.str().find("fathom export table --sweep " + spec.name), std::string::npos);
  }
  EXPECT_EQ(seen, expected.size());
}

// An extension (lm-depth-2025-edge.yaml) trains exactly its sweep's settings -- only the keys
// it sweeps may differ -- so the runs it adds compare with the sweep's own.
TEST(Presets, AnExtensionTrainsItsSweepsSettings) {
  const fs::path dir = fs::path(FATHOM_SOURCE_DIR) / "configs" / "presets";
  const StandInMulti30k corpora;
  size_t extensions = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    const auto spec = fathom::experiments::load_sweep_file(entry.path().string());
    if (spec.name + ".yaml" == entry.path().filename().string()) continue;
    SCOPED_TRACE(entry.path().filename().string());
    ++extensions;
    const auto base = fathom::experiments::load_sweep_file((dir / (spec.name + ".yaml")).string());
    std::set<std::string> swept;
    for (const auto* s : {&spec, &base})
      for (const auto& key : s->axis_keys()) swept.insert(key);
    swept.insert("name");
    auto settings = [&](const fathom::experiments::SweepSpec& s) {
      nlohmann::json flat =
          fathom::config_to_json(fathom::experiments::expand_sweep(s)[0].config).flatten();
      for (const auto& key : swept) {  // "/train/lr" in the flattened JSON
        std::string pointer = "/" + key;
        std::replace(pointer.begin(), pointer.end(), '.', '/');
        flat.erase(pointer);
      }
      return flat;
    };
    EXPECT_EQ(settings(spec), settings(base));
  }
  EXPECT_GE(extensions, 1u);
}

}  // namespace test_presets
