// check_resume_point (core/train/resume_point.h), what `fathom prune --previous` asks of a
// finished run's checkpoint_last before removing the fallback behind it: it loads what a
// resume loads -- the model, the optimizer state and the trainer state, rebuilt from the
// checkpoint's own config -- for the methods whose state differs (Admin's omega, Muon's
// matrices, a decoder-only model), and refuses, naming the file, one that is cut short, has a
// flipped byte, or holds the model alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
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

// The offset of the middle byte of the largest tensor record in a LibTorch checkpoint (a zip
// whose records are stored, not compressed): found from the zip's central directory (the
// local headers leave the sizes to data descriptors), because the middle of the file can fall
// in the padding LibTorch 2.x aligns records with, which no checksum covers (LibTorch 2.6 put
// it there; 1.13 did not).
std::streamoff middle_of_largest_tensor(const std::string& bytes) {
  auto u16 = [&](size_t at) {
    return static_cast<uint32_t>(static_cast<unsigned char>(bytes[at])) |
           static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + 1])) << 8;
  };
  auto u32 = [&](size_t at) { return u16(at) | u16(at + 2) << 16; };
  const size_t end = bytes.rfind(std::string("PK\x05\x06", 4));  // end of central directory
  if (end == std::string::npos) {
    ADD_FAILURE() << "not a zip";
    return 0;
  }
  size_t best_at = 0, best_size = 0;
  size_t at = u32(end + 16);
  for (uint32_t entry = 0; entry < u16(end + 10) && u32(at) == 0x02014b50; ++entry) {
    const size_t size = u32(at + 20), name_len = u16(at + 28);
    const std::string name = bytes.substr(at + 46, name_len);
    const size_t local = u32(at + 42);
    if (name.find("/data/") != std::string::npos && size > best_size) {
      best_size = size;
      best_at = local + 30 + u16(local + 26) + u16(local + 28);
    }
    at += 46 + name_len + u16(at + 30) + u16(at + 32);
  }
  EXPECT_GT(best_size, 0U) << "no tensor record found";
  return static_cast<std::streamoff>(best_at + best_size / 2);
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
  {  // one byte in the middle of the largest tensor's data
    std::ifstream in(scratch, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::streamoff at = middle_of_largest_tensor(bytes);
    std::fstream f(scratch, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(at);
    f.put(static_cast<char>(bytes[static_cast<size_t>(at)] ^ 0x10));
  }
  expect_refused(scratch.string());

  save_model_only(last.string(), scratch.string());  // a kept checkpoint without the optimizer
  expect_refused(scratch.string());
}

}  // namespace test_resume_point_check
}  // namespace fathom
