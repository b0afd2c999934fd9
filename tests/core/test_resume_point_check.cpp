// check_resume_point (core/train/resume_point.h), what `fathom prune --previous` asks of a
// finished run's checkpoint_last before removing the fallback behind it: it loads what a
// resume loads -- the model, the optimizer state and the trainer state, rebuilt from the
// checkpoint's own config -- for the methods whose state differs (Admin's omega, Muon's
// matrices, a decoder-only model), and refuses, naming the file, one that is cut short, has a
// flipped byte, or holds the model alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/util/error.h"
#include "core/train/model_only_checkpoint.h"
#include "core/train/resume_point.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_resume_point_check {
namespace fs = std::filesystem;
using testing::tiny_config;
using testing::TrainerTest;

// check_resume_point throws an InputError whose text names `path`.
void expect_refused(const std::string& path) {
  try {
    check_resume_point(path);
    ADD_FAILURE() << path << " was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST_F(TrainerTest, CheckResumePointLoadsWhatAResumeLoads) {
  struct Variant {
    const char* name;
    void (*set)(RunConfig&);
  };
  const Variant variants[] = {
      {"post-ln", [](RunConfig&) {}},
      {"admin",
       [](RunConfig& c) {
         c.model.norm = "post";
         c.model.init = "admin";
       }},
      {"muon", [](RunConfig& c) { c.train.optimizer = "muon"; }},
      {"decoder-only",
       [](RunConfig& c) {
         c.model.arch = "decoder_only";
         c.model.encoder_layers = 0;
       }},
  };
  for (const auto& v : variants) {
    SCOPED_TRACE(v.name);
    RunConfig config = tiny_config();
    config.name = v.name;
    config.train.max_updates = 6;
    config.train.valid_every = 3;
    v.set(config);
    const int64_t run = new_run(config);
    ASSERT_EQ(train(config, run).status, "finished");
    const std::string last = recorded(run, "checkpoint_last");
    ASSERT_TRUE(fs::exists(last));
    EXPECT_NO_THROW(check_resume_point(last));
  }
}

TEST_F(TrainerTest, CheckResumePointRefusesWhatAResumeCouldNotUse) {
  RunConfig config = tiny_config();
  config.train.max_updates = 6;
  config.train.valid_every = 3;
  const int64_t run = new_run(config);
  ASSERT_EQ(train(config, run).status, "finished");
  const fs::path last = recorded(run, "checkpoint_last");
  const fs::path scratch = fs::path(artifacts(run)) / "copy.pt";

  fs::copy_file(last, scratch);
  fs::resize_file(scratch, fs::file_size(scratch) / 2);
  expect_refused(scratch.string());

  fs::copy_file(last, scratch, fs::copy_options::overwrite_existing);
  {  // one byte in the middle of the file, inside some tensor's data
    std::fstream f(scratch, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(fs::file_size(scratch) / 2));
    char byte = 0;
    f.get(byte);
    f.seekp(static_cast<std::streamoff>(fs::file_size(scratch) / 2));
    f.put(static_cast<char>(byte ^ 0x10));
  }
  expect_refused(scratch.string());

  save_model_only(last.string(), scratch.string());  // a kept checkpoint without the optimizer
  expect_refused(scratch.string());
}

}  // namespace test_resume_point_check
}  // namespace fathom
