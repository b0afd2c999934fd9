// A checkpoint read in one pass (core/train/checkpoint_contents.h) gives what the piecewise
// reads give -- the config text, the vocabulary size, every weight, the trainer state, the
// optimizer's moments -- and the archive's pickled index tells whether it holds the optimizer
// state exactly where loading the whole archive does, and says it cannot tell otherwise.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/config/config.h"
#include "base/config/config_io.h"
#include "base/util/error.h"
#include "core/model/depth_parameterization.h"
#include "core/model/transformer.h"
#include "core/train/checkpoint.h"
#include "core/train/checkpoint_contents.h"
#include "core/train/loss.h"
#include "core/train/optimizer.h"
#include "tests/support/temp_dir.h"

namespace fathom {
namespace test_checkpoint_contents {
using testing::TempDir;

RunConfig small_run() {
  RunConfig c;
  c.model.d_model = 16;
  c.model.heads = 2;
  c.model.d_ff = 32;
  c.model.encoder_layers = 1;
  c.model.decoder_layers = 1;
  c.model.dropout = 0.0;
  c.train.optimizer = "adam";
  return c;
}

// An optimizer as the trainer builds it, after two updates on a fixed batch.
std::unique_ptr<Optimizer> trained_optimizer(Transformer& model, const RunConfig& config) {
  auto optimizer =
      std::make_unique<Optimizer>(parameter_groups(*model, config.model), config.train,
                                  Optimizer::matrices_for(config.train, model->catalog()));
  const torch::Tensor src = torch::tensor({{5, 9, 4, 11, 3}}, torch::kInt64);
  const torch::Tensor in = torch::tensor({{2, 12, 5, 17}}, torch::kInt64);
  const torch::Tensor out = torch::tensor({{12, 5, 17, 3}}, torch::kInt64);
  for (int i = 0; i < 2; ++i) {
    optimizer->zero_grad();
    const LossSums sums = label_smoothed_loss(model->forward(src, in), out, 0.1);
    (sums.smoothed / static_cast<double>(sums.tokens)).backward();
    optimizer->step(1e-3);
  }
  return optimizer;
}

TEST(CheckpointContents, OneReadGivesWhatThePiecewiseReadsGive) {
  TempDir dir;
  const RunConfig config = small_run();
  const std::string yaml = config_to_yaml(config);
  Transformer model = build_model(config, 20, 1);
  auto optimizer = trained_optimizer(model, config);
  TrainerState state;
  state.update = 2;
  state.batch_in_epoch = 9;
  const std::string path = dir.file("ckpt.pt");
  save_checkpoint(path, *model, optimizer.get(), state, yaml);

  CheckpointContents read = read_checkpoint(path, /*with_optimizer=*/true);
  EXPECT_EQ(read.config_yaml, checkpoint_config(path));
  EXPECT_EQ(read.config.model.d_model, 16);
  EXPECT_EQ(read.model->vocab_size(), checkpoint_vocab_size(path));
  EXPECT_EQ(read.model->vocab_size(), 20);
  EXPECT_FALSE(read.model->is_training());
  for (const auto& p : model->named_parameters())
    EXPECT_TRUE(torch::equal(read.model->named_parameters()[p.key()], p.value())) << p.key();
  EXPECT_EQ(read.state.update, 2);
  EXPECT_EQ(read.state.batch_in_epoch, 9);
  ASSERT_TRUE(read.optimizer);
  EXPECT_EQ(read.optimizer->steps(), 2);
  // The moments came back: one more update from the read optimizer moves the read model as the
  // original optimizer moves the original.
  Transformer piecewise = build_model(config, checkpoint_vocab_size(path), 2);
  auto piecewise_optimizer = trained_optimizer(piecewise, config);
  load_checkpoint(path, *piecewise, piecewise_optimizer.get(), nullptr);
  read.model->train();
  const auto one_more = [](Transformer& m, Optimizer& o) {
    o.zero_grad();
    const LossSums sums = label_smoothed_loss(m->forward(torch::tensor({{7, 4, 3}}, torch::kInt64),
                                                         torch::tensor({{2, 9}}, torch::kInt64)),
                                              torch::tensor({{9, 3}}, torch::kInt64), 0.1);
    (sums.smoothed / static_cast<double>(sums.tokens)).backward();
    o.step(1e-3);
  };
  one_more(read.model, *read.optimizer);
  one_more(piecewise, *piecewise_optimizer);
  for (const auto& p : piecewise->named_parameters())
    EXPECT_TRUE(torch::equal(read.model->named_parameters()[p.key()], p.value())) << p.key();

  // Without the optimizer's state, asking for it is refused naming the file; so is a missing file.
  const std::string model_only = dir.file("model_only.pt");
  save_checkpoint(model_only, *model, nullptr, state, yaml);
  EXPECT_NO_THROW(read_checkpoint(model_only));
  try {
    read_checkpoint(model_only, /*with_optimizer=*/true);
    FAIL() << "a model-only checkpoint gave an optimizer";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), model_only);
  }
  EXPECT_THROW(read_checkpoint(dir.file("missing.pt")), InputError);
}

// The whole archive's answer: what checkpoint_has_optimizer_state answered before the index.
bool loaded_archive_has(const std::string& path, const std::string& key) {
  torch::serialize::InputArchive archive;
  archive.load_from(path);
  torch::Tensor t;
  return archive.try_read(key, t);
}

TEST(CheckpointContents, TheArchiveIndexTellsWhatTheWholeArchiveDoes) {
  TempDir dir;
  const RunConfig config = small_run();
  Transformer model = build_model(config, 20, 1);
  auto optimizer = trained_optimizer(model, config);
  const std::string with = dir.file("with.pt"), without = dir.file("without.pt");
  save_checkpoint(with, *model, optimizer.get(), TrainerState{}, config_to_yaml(config));
  // A config whose text names the key: a value, not an entry, so no answer of "yes".
  save_checkpoint(without, *model, nullptr, TrainerState{},
                  config_to_yaml(config) + "# optimizer_step\n");
  for (const auto& path : {with, without}) {
    const auto named = archive_index_names(path, "optimizer_step");
    ASSERT_TRUE(named.has_value()) << path;
    EXPECT_EQ(*named, loaded_archive_has(path, "optimizer_step")) << path;
    EXPECT_EQ(checkpoint_has_optimizer_state(path), *named) << path;
  }
  EXPECT_TRUE(*archive_index_names(with, "optimizer_step"));
  EXPECT_FALSE(*archive_index_names(without, "optimizer_step"));
  EXPECT_TRUE(*archive_index_names(without, "checksum_model"));

  // An archive that names no config (a tensor saved alone): the index cannot tell, and the
  // whole load answers instead. Not an archive at all: cannot tell, and no state.
  const std::string tensor = dir.file("tensor.pt"), text = dir.file("text.pt");
  torch::save(torch::ones({3}), tensor);
  std::ofstream(text) << "not a checkpoint\n";
  EXPECT_FALSE(archive_index_names(tensor, "optimizer_step").has_value());
  EXPECT_FALSE(archive_index_names(text, "optimizer_step").has_value());
  EXPECT_FALSE(archive_index_names(dir.file("missing.pt"), "optimizer_step").has_value());
  EXPECT_FALSE(checkpoint_has_optimizer_state(tensor));
  EXPECT_FALSE(checkpoint_has_optimizer_state(text));
}

}  // namespace test_checkpoint_contents
}  // namespace fathom
