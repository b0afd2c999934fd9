// Cross-field checks (check_config) and `--set` overrides, whose errors name the key that
// breaks the rule. Torch-free.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "base/config/config.h"
#include "base/config/config_io.h"
#include "base/util/error.h"
#include "tests/support/config_test_helpers.h"
#include "tests/support/input_error.h"

namespace fathom {
namespace test_config_checks {
namespace fs = std::filesystem;

using fathom::testing::ConfigFiles;
using fathom::testing::contains;
using fathom::testing::expect_input_error;
using fathom::testing::synthetic_config;
using fathom::testing::yaml_lines;

// ---- check_config --------------------------------------------------------------------------

// heads must divide d_model; the error points at model.heads where heads was set.
TEST(ConfigCheck, HeadsMustDivideDModelAndTheErrorPointsAtHeads) {
  const RunConfig c = synthetic_config({
      "model:",          // 3
      "  d_model: 100",  // 4
      "  heads: 3",      // 5
  });
  const InputError e = expect_input_error([&] { check_config(c); });
  EXPECT_EQ(e.file(), "check.yaml");
  EXPECT_EQ(e.field(), "model.heads");
  EXPECT_EQ(e.line(), 5);
  // 4 heads divide 100: fine.
  EXPECT_NO_THROW(check_config(synthetic_config({"model:", "  d_model: 100", "  heads: 4"})));
}

TEST(ConfigCheck, RangesAreChecked) {
  const InputError e = expect_input_error([&] {
    check_config(synthetic_config({"model:", "  dropout: 1.5"}));
  });
  EXPECT_EQ(e.field(), "model.dropout");
  EXPECT_EQ(e.line(), 4);
  EXPECT_EQ(expect_input_error([&] {
              check_config(synthetic_config({"train:", "  lr: -0.1"}));
            }).field(),
            "train.lr");
  EXPECT_EQ(expect_input_error([&] {
              check_config(synthetic_config({"train:", "  betas: [0.9, 1.0]"}));
            }).field(),
            "train.betas");
  EXPECT_EQ(expect_input_error([&] { check_config(synthetic_config({"device: tpu"})); }).field(),
            "device");
  EXPECT_EQ(expect_input_error([&] {
              check_config(synthetic_config({"  synthetic: {min_len: 5, max_len: 4}"}));
            }).field(),
            "data.synthetic.max_len");
  // Edge of the probability range: 0 is allowed.
  EXPECT_NO_THROW(check_config(synthetic_config({"model:", "  dropout: 0"})));
}

// train.cuda_graphs refuses what a recorded forward and backward cannot do, at its own line,
// saying which key it clashes with; device auto or cuda with bf16 passes.
TEST(ConfigCheck, CudaGraphsRefuseTheCpuFp16CheckpointingAndRanks) {
  const std::vector<std::pair<std::string, std::string>> clashes{
      {"device: cpu", "device is cpu"},
      {"  precision: fp16", "train.precision: fp16"},
      {"  checkpoint_activations: true", "train.checkpoint_activations"},
      {"  processes: 2", "train.processes"}};
  for (const auto& [line, says] : clashes) {
    SCOPED_TRACE(line);
    std::vector<std::string> lines{"train:", "  cuda_graphs: true"};  // line 4
    if (line.rfind("device", 0) == 0) {
      lines.insert(lines.begin(), line);
    } else {
      lines.push_back(line);
    }
    if (line.find("processes") != std::string::npos) lines.push_back("  update_tokens: 100000");
    const InputError e = expect_input_error([&] { check_config(synthetic_config(lines)); });
    EXPECT_EQ(e.field(), "train.cuda_graphs");
    EXPECT_EQ(e.line(), line.rfind("device", 0) == 0 ? 5 : 4);
    EXPECT_TRUE(contains(e.message(), says)) << e.what();
  }
  EXPECT_NO_THROW(check_config(synthetic_config({"train:", "  cuda_graphs: true"})));
  EXPECT_NO_THROW(check_config(
      synthetic_config({"device: cuda", "train:", "  cuda_graphs: true", "  precision: bf16"})));
}

// train.precision: tf32 names a CUDA tensor-core format: a config that says device cpu is
// refused at the key's line; cuda and auto (decided when the device is known) pass.
TEST(ConfigCheck, Tf32IsRefusedOnTheCpuAtItsLine) {
  try {
    check_config(synthetic_config({"device: cpu", "train:", "  precision: tf32"}));  // line 5
    FAIL() << "tf32 on the CPU passed";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "train.precision");
    EXPECT_EQ(e.line(), 5);
    EXPECT_TRUE(contains(e.message(), "CUDA")) << e.what();
  }
  EXPECT_NO_THROW(check_config(synthetic_config({"device: cuda", "train:", "  precision: tf32"})));
  EXPECT_NO_THROW(check_config(synthetic_config({"train:", "  precision: tf32"})));
}

// train.noise_scale compares an update's batches with the whole update: one process needs
// updates of more target tokens than a batch holds (data.max_tokens, 4096 by default); ranks
// compare their batches with all ranks' update, so several processes need nothing more.
TEST(ConfigCheck, NoiseScaleNeedsUpdatesOfSeveralBatches) {
  const InputError e = expect_input_error([&] {
    check_config(synthetic_config({"train:", "  noise_scale: true"}));
  });  // line 4
  EXPECT_EQ(e.field(), "train.noise_scale");
  EXPECT_EQ(e.line(), 4);
  EXPECT_TRUE(contains(e.message(), "train.update_tokens")) << e.what();
  EXPECT_THROW(
      check_config(synthetic_config({"train:", "  noise_scale: true", "  update_tokens: 4096"})),
      InputError);
  EXPECT_NO_THROW(
      check_config(synthetic_config({"train:", "  noise_scale: true", "  update_tokens: 4097"})));
  EXPECT_NO_THROW(check_config(synthetic_config(
      {"train:", "  noise_scale: true", "  processes: 2", "  update_tokens: 100000"})));
}

TEST_F(ConfigFiles, MissingDataFileNamesTheKeyAndThePath) {
  write("train.en", "hello\n");
  const std::string config_path = write("c.yaml", yaml_lines({
                                                      "data:",                     // 1
                                                      "  train_source: train.de",  // 2 missing
                                                      "  train_target: train.en",  // 3
                                                  }));
  const RunConfig c = load_config_file(config_path);
  const InputError e = expect_input_error([&] { check_config(c); });
  EXPECT_EQ(e.field(), "data.train_source");
  EXPECT_EQ(e.file(), config_path);
  EXPECT_EQ(e.line(), 2);
  EXPECT_TRUE(contains(e.message(), (fs::absolute(dir_) / "train.de").string())) << e.what();
  // Once the file exists the config passes.
  write("train.de", "hallo\n");
  EXPECT_NO_THROW(check_config(c));
}

TEST(ConfigCheck, ParallelTaskNeedsTrainingFiles) {
  const RunConfig c = load_config_string("name: p\n", "p.yaml", "");  // task defaults to parallel
  const InputError e = expect_input_error([&] { check_config(c); });
  EXPECT_EQ(e.field(), "data.train_source");
  EXPECT_TRUE(contains(e.message(), "parallel")) << e.what();
}

TEST_F(ConfigFiles, ValidSourceWithoutValidTargetIsAnError) {
  write("t.de", "a\n");
  write("t.en", "b\n");
  write("v.de", "c\n");
  const RunConfig c = load_config_file(write("c.yaml", yaml_lines({
                                                           "data:",
                                                           "  train_source: t.de",
                                                           "  train_target: t.en",
                                                           "  valid_source: v.de",
                                                       })));
  const InputError e = expect_input_error([&] { check_config(c); });
  EXPECT_TRUE(e.field() == "data.valid_target" || e.field() == "data.valid_source") << e.what();
  EXPECT_TRUE(contains(e.message(), "valid_target")) << e.what();
}

// ---- --set overrides ------------------------------------------------------------------------

TEST(ConfigOverrides, SetValuesOfEveryKind) {
  RunConfig c = synthetic_config({"model:", "  d_model: 64"});
  apply_overrides(
      c, {"model.d_model=256", "train.betas=[0.9, 0.99]", "model.tie_decoder_embeddings=false",
          "train.lr=3e-4", "model.norm=pre", "train.seed=42", " name =  sweep-a"});
  EXPECT_EQ(c.model.d_model, 256);
  EXPECT_DOUBLE_EQ(c.train.betas[0], 0.9);
  EXPECT_DOUBLE_EQ(c.train.betas[1], 0.99);
  EXPECT_FALSE(c.model.tie_decoder_embeddings);
  EXPECT_DOUBLE_EQ(c.train.lr, 3e-4);
  EXPECT_EQ(c.model.norm, "pre");
  EXPECT_EQ(c.train.seed, 42u);
  EXPECT_EQ(c.name, "sweep-a");
  // The location now says the value came from --set, so later errors point there (with no
  // line: a command-line value has none).
  EXPECT_EQ(c.where("model.d_model").file, "--set");
  EXPECT_EQ(c.where("model.d_model").line, 0);
  // Later overrides win.
  apply_overrides(c, {"model.d_model=128", "model.d_model=32"});
  EXPECT_EQ(c.model.d_model, 32);
}

TEST(ConfigOverrides, UnknownKeyAndBadValuesAreInputErrors) {
  RunConfig c;
  const InputError unknown = expect_input_error([&] { apply_overrides(c, {"model.dmodel=256"}); });
  EXPECT_EQ(unknown.file(), "--set");
  EXPECT_EQ(unknown.field(), "model.dmodel");
  EXPECT_TRUE(contains(unknown.message(), "did you mean 'model.d_model'")) << unknown.what();

  // The misplaced-key hint works for --set as for files.
  const InputError misplaced =
      expect_input_error([&] { apply_overrides(c, {"train.d_model=256"}); });
  EXPECT_TRUE(contains(misplaced.message(), "did you mean 'model.d_model'")) << misplaced.what();

  const InputError bad = expect_input_error([&] { apply_overrides(c, {"model.d_model=big"}); });
  EXPECT_EQ(bad.field(), "model.d_model");
  EXPECT_EQ(bad.file(), "--set");
  EXPECT_EQ(bad.line(), 0);
  EXPECT_EQ(c.model.d_model, 512);  // unchanged after the failed override

  EXPECT_EQ(expect_input_error([&] { apply_overrides(c, {"train.betas=[0.9]"}); }).field(),
            "train.betas");
  EXPECT_EQ(expect_input_error([&] { apply_overrides(c, {"train.optimizer=sgdd"}); }).field(),
            "train.optimizer");
  expect_input_error([&] { apply_overrides(c, {"model.d_model"}); });  // no '='
  expect_input_error([&] { apply_overrides(c, {"=3"}); });
  expect_input_error([&] { apply_overrides(c, {"train.betas=[0.9, 0.99"}); });  // YAML error
}

// An override that breaks a cross-field rule is caught by check_config, naming the key.
TEST(ConfigOverrides, CheckConfigSeesOverriddenValues) {
  RunConfig c = synthetic_config({"model:", "  d_model: 16", "  heads: 2"});
  apply_overrides(c, {"model.heads=3"});
  const InputError e = expect_input_error([&] { check_config(c); });
  EXPECT_EQ(e.field(), "model.heads");
  EXPECT_EQ(e.file(), "--set");
}

}  // namespace test_config_checks
}  // namespace fathom
