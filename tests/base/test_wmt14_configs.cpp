// The WMT'14 configs and sweeps at the papers' size (configs/wmt14/) need corpora no machine
// here has: each is copied into a scratch tree beside a data/ folder of one-line stand-ins,
// where it must expand into the papers' runs with the papers' settings (configs/wmt14/README.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "experiments/sweep_spec.h"
#include "tests/support/temp_dir.h"

namespace test_wmt14_configs {
namespace fs = std::filesystem;

class Wmt14Configs : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path source = fs::path(FATHOM_SOURCE_DIR) / "configs" / "wmt14";
    fs::create_directories(root() / "configs" / "wmt14");
    for (const auto& e : fs::directory_iterator(source))
      if (e.path().extension() == ".yaml")
        fs::copy_file(e.path(), root() / "configs" / "wmt14" / e.path().filename());
    const std::vector<std::pair<std::string, std::vector<std::string>>> files = {
        {"wmt14-en-de", {"train", "newstest2013", "newstest2014"}},
        {"wmt14-en-fr", {"train", "newstest2012+2013", "newstest2014"}}};
    for (const auto& [folder, stems] : files) {
      fs::create_directories(root() / "data" / folder);
      const std::string other = folder == "wmt14-en-de" ? ".de" : ".fr";
      for (const auto& stem : stems)
        for (const std::string& ext : {std::string(".en"), other})
          std::ofstream(root() / "data" / folder / (stem + ext)) << "a line\n";
    }
  }
  fs::path root() const { return scratch_.path(); }
  std::vector<fathom::experiments::SweepRun> expand(const std::string& file) {
    const auto spec =
        fathom::experiments::load_sweep_file((root() / "configs" / "wmt14" / file).string());
    return fathom::experiments::expand_sweep(spec);
  }
  fathom::testing::TempDir scratch_;
};

TEST_F(Wmt14Configs, AdminTable2IsThreeMethodsAtThreeDepthsOfTransformerBase) {
  const auto runs = expand("admin-table2.yaml");
  ASSERT_EQ(runs.size(), 9u);
  for (const auto& run : runs) {
    const auto& c = run.config;
    EXPECT_EQ(c.model.d_model, 512);
    EXPECT_EQ(c.model.heads, 8);
    EXPECT_EQ(c.model.d_ff, 2048);
    EXPECT_EQ(c.model.encoder_layers, c.model.decoder_layers);
    EXPECT_EQ(c.train.optimizer, "radam");
    EXPECT_DOUBLE_EQ(c.train.lr, 1e-3);
    EXPECT_EQ(c.train.warmup, 8000);
    EXPECT_EQ(c.train.update_tokens, 32784);  // 4 GPUs x 8,196 tokens
    EXPECT_EQ(c.data.vocab.size, 32000);
    EXPECT_EQ(c.train.checkpoint_activations, c.model.encoder_layers > 6);
  }
  EXPECT_EQ(runs[8].config.model.encoder_layers, 18);
  EXPECT_EQ(runs[8].config.model.init, "admin");
}

TEST_F(Wmt14Configs, EnFrSixtyTwelveKeepsFiftyEpochsAtEitherUpdateSize) {
  const auto runs = expand("en-fr-60-12.yaml");
  ASSERT_EQ(runs.size(), 4u);
  for (const auto& run : runs) {
    const auto& t = run.config.train;
    // 50 epochs of ~1.15B target tokens: the same tokens at 32,000 or 80,000 an update.
    EXPECT_NEAR(static_cast<double>(t.max_updates) * t.update_tokens, 5.76e10, 0.01e10);
    EXPECT_DOUBLE_EQ(t.lr, 7e-4);
    if (run.config.model.encoder_layers == 60) EXPECT_EQ(run.config.model.decoder_layers, 12);
  }
}

}  // namespace test_wmt14_configs
