// The WMT'14 configs and sweeps at the papers' size (configs/wmt14/) need corpora no machine
// here has: they name them as corpus:wmt14-en-de/FILE, and a scratch corpora folder
// ($FATHOM_DATA) of one-line stand-ins lets each expand into the papers' runs with the papers'
// settings (configs/wmt14/README.md).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "base/util/error.h"
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
      fs::create_directories(root() / "corpora" / folder);
      const std::string other = folder == "wmt14-en-de" ? ".de" : ".fr";
      for (const auto& stem : stems)
        for (const std::string& ext : {std::string(".en"), other})
          std::ofstream(root() / "corpora" / folder / (stem + ext)) << "a line\n";
    }
    const char* before = std::getenv("FATHOM_DATA");
    saved_env_ = before ? std::optional<std::string>(before) : std::nullopt;
    setenv("FATHOM_DATA", (root() / "corpora").c_str(), 1);
  }
  void TearDown() override {
    if (saved_env_)
      setenv("FATHOM_DATA", saved_env_->c_str(), 1);
    else
      unsetenv("FATHOM_DATA");
  }
  std::optional<std::string> saved_env_;
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
  // The data are the corpus's files in the corpora folder, wherever the config is.
  EXPECT_EQ(runs[0].config.data.train_source, (root() / "corpora/wmt14-en-de/train.en").string());
  EXPECT_EQ(runs[0].config.data.test_target,
            (root() / "corpora/wmt14-en-de/newstest2014.de").string());
}

TEST_F(Wmt14Configs, AMissingCorpusSaysHowToGetIt) {
  fs::remove_all(root() / "corpora" / "wmt14-en-fr");
  try {
    expand("en-fr-60-12.yaml");
    FAIL() << "expanded without its corpus";
  } catch (const fathom::InputError& e) {
    EXPECT_EQ(e.field(), "data.train_source");
    EXPECT_NE(std::string(e.what()).find("fathom data get wmt14-en-fr"), std::string::npos)
        << e.what();
  }
}

TEST_F(Wmt14Configs, EnFrSixtyTwelveKeepsFiftyEpochsAtEitherUpdateSize) {
  const auto runs = expand("en-fr-60-12.yaml");
  ASSERT_EQ(runs.size(), 4u);
  for (const auto& run : runs) {
    const auto& t = run.config.train;
    // 50 epochs of ~1.15B target tokens: the same tokens at 32,000 or 80,000 an update.
    EXPECT_NEAR(static_cast<double>(t.max_updates) * t.update_tokens, 5.76e10, 0.01e10);
    EXPECT_DOUBLE_EQ(t.lr, 7e-4);
    if (run.config.model.encoder_layers == 60) {
      EXPECT_EQ(run.config.model.decoder_layers, 12);
    }
  }
}

}  // namespace test_wmt14_configs
