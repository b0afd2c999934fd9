// Sweep specs (experiments/sweep_spec.h): parsing, expansion order and names, exclude rules,
// base configs, and error locations. Torch-free.
//
// Sweep texts are built from a list of lines (`lines`), so every expected line number is the
// 1-based index of the offending line in that list; expected runs are written out by hand.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "base/config/config_io.h"
#include "base/config/yaml_file.h"
#include "base/util/error.h"
#include "experiments/sweep_spec.h"
#include "tests/support/input_error.h"
#include "tests/support/temp_dir.h"

namespace fathom {
namespace test_sweep_spec {
namespace fs = std::filesystem;

std::string lines(const std::vector<std::string>& text) {
  std::string out;
  for (const auto& l : text) out += l + "\n";
  return out;
}

// A small valid inline base (synthetic task, so check_config needs no files); 4 lines.
const std::vector<std::string> kBase = {
    "base:",
    "  model: {d_model: 64, heads: 4, d_ff: 128, encoder_layers: 2, decoder_layers: 2}",
    "  data: {task: synthetic}",
    "  train: {max_updates: 100, seed: 7}",
};

// "name: s" + kBase + `rest`: the first line of `rest` is line 6.
std::string sweep(const std::vector<std::string>& rest) {
  std::vector<std::string> all = {"name: s"};
  all.insert(all.end(), kBase.begin(), kBase.end());
  all.insert(all.end(), rest.begin(), rest.end());
  return lines(all);
}

std::vector<experiments::SweepRun> expand(const std::string& text,
                                          const std::function<void(const RunConfig&)>& check = {}) {
  return experiments::expand_sweep(experiments::load_sweep_string(text, "s.yaml", ""), check);
}

std::vector<std::string> names_of(const std::vector<experiments::SweepRun>& runs) {
  std::vector<std::string> names;
  for (const auto& r : runs) names.push_back(r.name);
  return names;
}

using fathom::testing::expect_input_error;

// Loading and expanding `text` must fail at s.yaml:line naming `key`, with `part` in the message.
void expect_error_at(const std::string& text, int line, const std::string& key,
                     const std::string& part,
                     const std::function<void(const RunConfig&)>& check = {}) {
  const InputError e = expect_input_error([&] { expand(text, check); });
  EXPECT_EQ(e.file(), "s.yaml") << e.what();
  EXPECT_EQ(e.line(), line) << e.what();
  EXPECT_EQ(e.field(), key) << e.what();
  EXPECT_NE(e.message().find(part), std::string::npos) << e.what();
}

// ---- expansion ------------------------------------------------------------------------------

// 2 x 2 grid x 2 seeds: first grid key slowest, seeds innermost; names, configs and axis lists
// as documented. A wrong nesting order, a missing seed or a value not applied fails here.
TEST(SweepExpand, GridWithSeedsOrderNamesAndValues) {
  const auto runs = expand(sweep({
      "grid:",
      "  model.norm: [post, pre]",
      "  model.init: [xavier, lipschitz]",
      "seeds: [1, 2]",
  }));
  const std::vector<std::string> expected = {
      "s/norm=post,init=xavier,seed=1",    "s/norm=post,init=xavier,seed=2",
      "s/norm=post,init=lipschitz,seed=1", "s/norm=post,init=lipschitz,seed=2",
      "s/norm=pre,init=xavier,seed=1",     "s/norm=pre,init=xavier,seed=2",
      "s/norm=pre,init=lipschitz,seed=1",  "s/norm=pre,init=lipschitz,seed=2",
  };
  ASSERT_EQ(names_of(runs), expected);
  const char* norms[] = {"post", "post", "post", "post", "pre", "pre", "pre", "pre"};
  const char* inits[] = {"xavier", "xavier", "lipschitz", "lipschitz",
                         "xavier", "xavier", "lipschitz", "lipschitz"};
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunConfig& c = runs[i].config;
    EXPECT_EQ(c.model.norm, norms[i]) << i;
    EXPECT_EQ(c.model.init, inits[i]) << i;
    EXPECT_EQ(c.train.seed, i % 2 == 0 ? 1u : 2u) << i;
    EXPECT_EQ(c.name, runs[i].name);
    EXPECT_EQ(c.model.d_model, 64);  // from the base
    EXPECT_EQ(c.train.max_updates, 100);
  }
  ASSERT_EQ(runs[5].axes.size(), 3u);
  EXPECT_EQ(runs[5].axes[0].key, "model.norm");
  EXPECT_EQ(runs[5].axes[0].value, "pre");
  EXPECT_EQ(runs[5].axes[1].key, "model.init");
  EXPECT_EQ(runs[5].axes[1].value, "xavier");
  EXPECT_EQ(runs[5].axes[2].key, "train.seed");
  EXPECT_EQ(runs[5].axes[2].value, "2");
  // Axis keys are located at the sweep file line of their value.
  EXPECT_EQ(runs[5].config.where("model.norm").line, 7);
  EXPECT_EQ(runs[5].config.where("train.seed").line, 9);
  EXPECT_EQ(runs[5].config.where("train.seed").file, "s.yaml");
  EXPECT_EQ(std::set<std::string>(expected.begin(), expected.end()).size(), runs.size());
  EXPECT_EQ(experiments::load_sweep_string(
                sweep({"grid:", "  model.norm: [post, pre]", "seeds: [1, 2]"}), "s.yaml", "")
                .axis_keys(),
            (std::vector<std::string>{"model.norm", "train.seed"}));
}

// Without seeds every run keeps the base's seed and the name has no seed part.
TEST(SweepExpand, NoSeedsKeepsBaseSeed) {
  const auto runs = expand(sweep({"grid:", "  model.d_model: [32, 64]"}));
  ASSERT_EQ(names_of(runs), (std::vector<std::string>{"s/d_model=32", "s/d_model=64"}));
  EXPECT_EQ(runs[0].config.model.d_model, 32);
  EXPECT_EQ(runs[1].config.model.d_model, 64);
  EXPECT_EQ(runs[0].config.train.seed, 7u);
  EXPECT_EQ(runs[1].config.train.seed, 7u);
}

// Zipped keys vary together: 2 keys x 2 values give 2 runs, not 4.
TEST(SweepExpand, ZipPairsValues) {
  const auto runs = expand(sweep({
      "zip:",
      "  model.encoder_layers: [6, 18]",
      "  model.decoder_layers: [3, 9]",
  }));
  ASSERT_EQ(names_of(runs), (std::vector<std::string>{"s/encoder_layers=6,decoder_layers=3",
                                                      "s/encoder_layers=18,decoder_layers=9"}));
  EXPECT_EQ(runs[0].config.model.encoder_layers, 6);
  EXPECT_EQ(runs[0].config.model.decoder_layers, 3);
  EXPECT_EQ(runs[1].config.model.encoder_layers, 18);
  EXPECT_EQ(runs[1].config.model.decoder_layers, 9);
}

// Grid axes come before the zip group; the zip group is one axis of the product.
TEST(SweepExpand, ZipCombinedWithGrid) {
  const auto runs = expand(sweep({
      "zip:",
      "  model.encoder_layers: [6, 18]",
      "  model.decoder_layers: [6, 18]",
      "grid:",
      "  model.norm: [post, pre]",
  }));
  ASSERT_EQ(names_of(runs), (std::vector<std::string>{
                                "s/norm=post,encoder_layers=6,decoder_layers=6",
                                "s/norm=post,encoder_layers=18,decoder_layers=18",
                                "s/norm=pre,encoder_layers=6,decoder_layers=6",
                                "s/norm=pre,encoder_layers=18,decoder_layers=18",
                            }));
  EXPECT_EQ(runs[1].config.model.norm, "post");
  EXPECT_EQ(runs[1].config.model.encoder_layers, 18);
  EXPECT_EQ(runs[1].config.model.decoder_layers, 18);
  EXPECT_EQ(runs[2].config.model.norm, "pre");
  EXPECT_EQ(runs[2].config.model.encoder_layers, 6);
}

// A list of zip groups: independent zipped axes, multiplied in file order.
TEST(SweepExpand, ZipListOfGroups) {
  const auto runs = expand(sweep({
      "zip:",
      "  - {model.encoder_layers: [2, 4], model.decoder_layers: [1, 2]}",
      "  - {train.lr: [0.001, 0.002], train.warmup: [10, 20]}",
  }));
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[1].name, "s/encoder_layers=2,decoder_layers=1,lr=0.002,warmup=20");
  EXPECT_EQ(runs[2].name, "s/encoder_layers=4,decoder_layers=2,lr=0.001,warmup=10");
  EXPECT_EQ(runs[1].config.train.warmup, 20);
  EXPECT_DOUBLE_EQ(runs[1].config.train.lr, 0.002);
  EXPECT_EQ(runs[2].config.model.decoder_layers, 2);
}

// List values (train.betas) apply as pairs; names drop the space after commas.
TEST(SweepExpand, ListValues) {
  const auto runs = expand(sweep({"grid:", "  train.betas: [[0.9, 0.98], [0.9, 0.999]]"}));
  ASSERT_EQ(names_of(runs),
            (std::vector<std::string>{"s/betas=[0.9,0.98]", "s/betas=[0.9,0.999]"}));
  EXPECT_DOUBLE_EQ(runs[1].config.train.betas[1], 0.999);
  EXPECT_EQ(runs[1].axes[0].value, "[0.9, 0.999]");
}

// Two axis keys ending in max_len: both use the full key; d_model stays short.
// `{logspace: [1e-4, 1e-1, 4]}`: 10^-4, 10^-3, 10^-2, 10^-1 -- four values a decade apart,
// written as they train (4 significant digits); 8 points between 1e-4 and 1e-1 step by
// 10^(3/7) = 2.6827.
TEST(SweepExpand, LogspaceAxisOfLearningRates) {
  const auto runs = expand(sweep({"grid:", "  train.lr: {logspace: [1e-4, 1e-1, 4]}"}));
  ASSERT_EQ(runs.size(), 4u);
  const std::vector<double> want = {1e-4, 1e-3, 1e-2, 1e-1};
  for (size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(runs[i].config.train.lr, want[i]) << i;
  EXPECT_EQ(names_of(runs),
            (std::vector<std::string>{"s/lr=0.0001", "s/lr=0.001", "s/lr=0.01", "s/lr=0.1"}));
  const auto eight = expand(sweep({"grid:", "  train.lr: {logspace: [1e-4, 1e-1, 8]}"}));
  ASSERT_EQ(eight.size(), 8u);
  EXPECT_DOUBLE_EQ(eight[1].config.train.lr, 0.0002683);  // 1e-4 * 10^(3/7) = 2.68270e-4
  EXPECT_DOUBLE_EQ(eight[6].config.train.lr, 0.03728);    // 1e-4 * 10^(18/7) = 3.72759e-2
  for (size_t i = 1; i < 8; ++i)
    EXPECT_NEAR(eight[i].config.train.lr / eight[i - 1].config.train.lr, 2.6827, 2e-3);
}

TEST(SweepErrors, LogspaceBadInputIsLocated) {
  for (const auto& [spec, part] : std::vector<std::pair<std::string, std::string>>{
           {"{logspace: [0, 1e-1, 8]}", "must be positive"},
           {"{logspace: [1e-4, -1, 8]}", "must be positive"},
           {"{logspace: [1e-4, 1e-1, 1]}", "from 2 to 1000"},
           {"{logspace: [1e-4, 1e-1, 2.5]}", "whole number"},
           {"{logspace: [1e-4, 1e-1]}", "[start, stop, count]"},
           {"{logspace: [a, 1e-1, 3]}", "must be numbers"},
           {"{linspace: [1, 2, 3]}", "{logspace: [start, stop, count]}"},
           {"{logspace: [1e-4, 1.0001e-4, 3]}", "round to"}})
    expect_error_at(sweep({"grid:", "  train.lr: " + spec}), 7, "train.lr", part);
  expect_error_at(sweep({"grid:", "  model.encoder_layers: {logspace: [1, 64, 7]}"}), 7,
                  "model.encoder_layers", "real-valued key");
}

TEST(SweepExpand, ShortKeyCollisionUsesFullKeys) {
  const auto runs = expand(sweep({
      "grid:",
      "  data.max_len: [64, 128]",
      "  data.synthetic.max_len: [10]",
      "  model.d_model: [64]",
  }));
  ASSERT_EQ(names_of(runs),
            (std::vector<std::string>{"s/data.max_len=64,data.synthetic.max_len=10,d_model=64",
                                      "s/data.max_len=128,data.synthetic.max_len=10,d_model=64"}));
  EXPECT_EQ(runs[1].config.data.max_len, 128);
  EXPECT_EQ(runs[1].config.data.synthetic.max_len, 10);
}

// ---- exclude --------------------------------------------------------------------------------

TEST(SweepExclude, RemovesExactlyTheMatchingRuns) {
  const auto runs = expand(sweep({
      "grid:",
      "  model.norm: [post, pre]",
      "  model.init: [xavier, lipschitz]",
      "exclude:",
      "  - {model.norm: pre, model.init: lipschitz}",
  }));
  EXPECT_EQ(names_of(runs),
            (std::vector<std::string>{"s/norm=post,init=xavier", "s/norm=post,init=lipschitz",
                                      "s/norm=pre,init=xavier"}));
}

// A rule naming some axes drops every run with those values, whatever the others.
TEST(SweepExclude, PartialRuleRemovesAllMatches) {
  const auto runs = expand(sweep({
      "grid:",
      "  model.norm: [post, pre]",
      "  model.init: [xavier, lipschitz]",
      "seeds: [1, 2]",
      "exclude:",
      "  - {model.norm: pre}",
      "  - {model.init: lipschitz, train.seed: 2}",
  }));
  EXPECT_EQ(names_of(runs), (std::vector<std::string>{"s/norm=post,init=xavier,seed=1",
                                                      "s/norm=post,init=xavier,seed=2",
                                                      "s/norm=post,init=lipschitz,seed=1"}));
}

// Values compare as the config holds them: 1e-3 in a rule matches 0.001 on the axis.
TEST(SweepExclude, ComparesValuesNotText) {
  const auto runs = expand(sweep({
      "grid:",
      "  train.lr: [0.001, 0.002]",
      "exclude:",
      "  - {train.lr: 1e-3}",
  }));
  EXPECT_EQ(names_of(runs), (std::vector<std::string>{"s/lr=0.002"}));
}

TEST(SweepExclude, Errors) {
  const std::vector<std::string> grid = {"grid:", "  model.norm: [post, pre]",
                                         "  model.init: [xavier, lipschitz]", "exclude:"};
  auto with = [&](const std::vector<std::string>& rules) {
    std::vector<std::string> rest = grid;
    rest.insert(rest.end(), rules.begin(), rules.end());
    return sweep(rest);
  };
  // Line 10 is the first rule.
  expect_error_at(with({"  - {model.heads: 4}"}), 10, "model.heads", "not an axis");
  expect_error_at(with({"  - {model.inits: admin}"}), 10, "model.inits", "'model.init'?");
  expect_error_at(with({"  - model.norm: pre", "    model.init: admin"}), 11, "model.init",
                  "not a value of this axis (xavier, lipschitz)");
  expect_error_at(with({"  - {model.norm: pre}", "  - {model.norm: post}"}), 9, "exclude",
                  "exclude all 4 runs");
  expect_error_at(with({"  - model.norm"}), 10, "exclude", "expected a rule");
  // Zipped values that never go together: the rule would silently do nothing.
  expect_error_at(sweep({"zip:", "  model.encoder_layers: [2, 4]", "  model.decoder_layers: [2, 4]",
                         "exclude:", "  - {model.encoder_layers: 2, model.decoder_layers: 4}"}),
                  10, "exclude", "matches no run");
}

// ---- base and set ---------------------------------------------------------------------------

class SweepFiles : public ::testing::Test {
 protected:
  std::string write(const std::string& relative, const std::string& text) {
    return scratch_.write(relative, text);
  }
  fathom::testing::TempDir scratch_;  // removed when the test ends
  const fs::path& dir_ = scratch_.path();
};

// base: a path relative to the sweep file. Base keys keep the base file's locations, axis and
// set: keys point at the sweep file.
TEST_F(SweepFiles, BaseFileRelativeToSweep) {
  const std::string base = write(
      "configs/small.yaml", lines({"model:", "  d_model: 32", "  heads: 2",
                                   "data:", "  task: synthetic", "train:", "  max_updates: 50"}));
  const std::string path = write("sweeps/s.yaml", lines({
                                                      "name: s",
                                                      "base: ../configs/small.yaml",
                                                      "set:",
                                                      "  train.max_updates: 300",
                                                      "grid:",
                                                      "  model.norm: [post, pre]",
                                                  }));
  const auto runs = experiments::expand_sweep(experiments::load_sweep_file(path));
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& run : runs) {
    EXPECT_EQ(run.config.model.d_model, 32);
    EXPECT_EQ(run.config.model.heads, 2);
    EXPECT_EQ(run.config.data.task, "synthetic");
    EXPECT_EQ(run.config.train.max_updates, 300);
    EXPECT_EQ(fs::path(run.config.where("model.d_model").file), fs::path(base));
    EXPECT_EQ(run.config.where("model.d_model").line, 2);
    EXPECT_EQ(run.config.where("train.max_updates").file, path);
    EXPECT_EQ(run.config.where("train.max_updates").line, 4);
    EXPECT_EQ(run.config.where("model.norm").file, path);
    EXPECT_EQ(run.config.where("model.norm").line, 6);
  }
  EXPECT_EQ(runs[1].config.model.norm, "pre");
}

TEST_F(SweepFiles, MissingBaseFileIsLocated) {
  const std::string path =
      write("s.yaml", lines({"name: s", "grid:", "  model.norm: [pre]", "base: nowhere.yaml"}));
  const InputError e = expect_input_error([&] { experiments::load_sweep_file(path); });
  EXPECT_EQ(e.file(), path);
  EXPECT_EQ(e.line(), 4);
  EXPECT_EQ(e.field(), "base");
  EXPECT_NE(e.message().find("not found"), std::string::npos) << e.what();
  EXPECT_NE(e.message().find((dir_ / "nowhere.yaml").string()), std::string::npos) << e.what();
}

// A base that is the sweep file itself, or a directory, says so at its line (issue 57 item 12:
// "'base': unknown key" and "not found").
TEST_F(SweepFiles, ABaseThatIsTheSweepItselfOrAFolderIsNamedSo) {
  const std::string self =
      write("s.yaml", lines({"name: s", "grid:", "  model.norm: [pre]", "base: s.yaml"}));
  InputError e = expect_input_error([&] { experiments::load_sweep_file(self); });
  EXPECT_EQ(e.line(), 4);
  EXPECT_EQ(e.field(), "base");
  EXPECT_NE(e.message().find("names this sweep file itself"), std::string::npos) << e.what();
  fs::create_directories(dir_ / "configs");
  const std::string folder =
      write("f.yaml", lines({"name: f", "grid:", "  model.norm: [pre]", "base: configs"}));
  e = expect_input_error([&] { experiments::load_sweep_file(folder); });
  EXPECT_EQ(e.field(), "base");
  EXPECT_NE(e.message().find("is a directory"), std::string::npos) << e.what();
}

// A base path the system refuses (a name over 255 bytes) is "not found" at its line, with the
// system's reason -- before, std::filesystem's exception escaped naming no sweep file (found
// by fuzz/fuzz_sweep.cpp). So is a data path that long in check_config.
TEST_F(SweepFiles, BasePathTooLongIsLocated) {
  const std::string name(300, 'x');
  const std::string path =
      write("s.yaml", lines({"name: s", "grid:", "  model.norm: [pre]", "base: " + name}));
  const InputError e = expect_input_error([&] { experiments::load_sweep_file(path); });
  EXPECT_EQ(e.file(), path);
  EXPECT_EQ(e.line(), 4);
  EXPECT_EQ(e.field(), "base");
  EXPECT_NE(e.message().find("too long"), std::string::npos) << e.what();

  RunConfig c;
  c.data.task = "parallel";
  c.data.train_source = c.data.train_target = "/tmp/" + name;
  EXPECT_THROW(check_config(c), InputError);
}

// A sweep file far larger than any sweep is refused before parsing, naming the file.
TEST_F(SweepFiles, AFileFarLargerThanASweepIsRefused) {
  const std::string path =
      write("s.yaml", "name: s\n# " + std::string(kMaxYamlFileBytes, 'a') + "\n");
  const InputError e = expect_input_error([&] { experiments::load_sweep_file(path); });
  EXPECT_EQ(e.file(), path);
  EXPECT_NE(e.message().find("sweep file"), std::string::npos) << e.what();
}

// Relative paths written in the sweep file (inline base, set, axes) are relative to it.
TEST_F(SweepFiles, PathsRelativeToSweepFile) {
  const std::string path = write(
      "sweeps/s.yaml",
      lines({"name: s", "base:", "  data: {task: synthetic}", "  data.train_source: corpus/a.txt",
             "grid:", "  data.train_target: [corpus/b.txt]"}));
  const auto runs = experiments::expand_sweep(experiments::load_sweep_file(path));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(fs::path(runs[0].config.data.train_source), dir_ / "sweeps/corpus/a.txt");
  EXPECT_EQ(fs::path(runs[0].config.data.train_target), dir_ / "sweeps/corpus/b.txt");
  EXPECT_EQ(runs[0].axes[0].value, "corpus/b.txt");  // names and tags keep the written text
}

// Inline base (nested sections and dotted keys) and set: apply to every run; set wins over base.
TEST(SweepBase, InlineMappingAndSet) {
  const auto runs = expand(sweep({
      "set:",
      "  train.max_updates: 300",
      "  eval: {beam: 2}",
      "grid:",
      "  model.init: [xavier, lipschitz]",
  }));
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& run : runs) {
    EXPECT_EQ(run.config.model.d_model, 64);
    EXPECT_EQ(run.config.model.d_ff, 128);
    EXPECT_EQ(run.config.data.task, "synthetic");
    EXPECT_EQ(run.config.train.max_updates, 300);
    EXPECT_EQ(run.config.eval.beam, 2);
    EXPECT_EQ(run.config.where("model.d_model").file, "s.yaml");
    EXPECT_EQ(run.config.where("model.d_model").line, 3);
    EXPECT_EQ(run.config.where("train.max_updates").line, 7);
  }
}

// ---- errors ---------------------------------------------------------------------------------

TEST(SweepErrors, UnknownAxisKeySuggests) {
  expect_error_at(sweep({"grid:", "  model.dmodel: [32, 64]"}), 7, "model.dmodel",
                  "did you mean 'model.d_model'?");
  expect_error_at(sweep({"zip:", "  train.heads: [2, 4]"}), 7, "train.heads",
                  "did you mean 'model.heads'?");
  expect_error_at(sweep({"grid:", "  model: [1]"}), 7, "model", "is a section");
}

// A value of the wrong type is reported at its own line, not at the key's.
TEST(SweepErrors, WrongTypeValueAtItsLine) {
  expect_error_at(sweep({"grid:", "  model.d_model:", "    - 64", "    - abc"}), 9, "model.d_model",
                  "expected an integer, got 'abc'");
  expect_error_at(sweep({"grid:", "  train.optimizer: [adam, adagrad]"}), 7, "train.optimizer",
                  "'adagrad' is not one of adam, radam");
  expect_error_at(sweep({"seeds: [1, -2]"}), 6, "train.seed", "non-negative");
  expect_error_at(sweep({"set:", "  train.lr: fast", "seeds: [1]"}), 7, "train.lr",
                  "expected a number");
}

TEST(SweepErrors, ZipLengthsEmptyListsAndDuplicates) {
  expect_error_at(sweep({"zip:", "  model.encoder_layers: [2, 4]", "  model.decoder_layers: [2]"}),
                  8, "model.decoder_layers", "same length");
  expect_error_at(sweep({"grid:", "  model.norm: []"}), 7, "model.norm", "empty list");
  expect_error_at(sweep({"seeds: []"}), 6, "train.seed", "empty list");
  expect_error_at(sweep({"grid:", "  model.norm: pre"}), 7, "model.norm", "expected a list");
  expect_error_at(sweep({"grid:", "  train.lr: [0.001, 1e-3]"}), 7, "train.lr", "listed twice");
  expect_error_at(
      sweep({"zip:", "  model.encoder_layers: [2, 2]", "  model.decoder_layers: [4, 4]"}), 7,
      "model.encoder_layers", "zip entry 2 repeats entry 1");
}

TEST(SweepErrors, KeyInTwoAxes) {
  expect_error_at(sweep({"grid:", "  model.norm: [post, pre]", "zip:", "  model.norm: [post]"}), 9,
                  "model.norm", "already an axis (line 7)");
  expect_error_at(sweep({"grid:", "  train.seed: [1, 2]", "seeds: [3]"}), 8, "seeds",
                  "already an axis");
  expect_error_at(sweep({"set:", "  model.norm: pre", "grid:", "  model.norm: [post]"}), 9,
                  "model.norm", "fixed by set: (line 7)");
  expect_error_at(sweep({"grid:", "  name: [a, b]"}), 7, "name", "cannot vary");
}

TEST(SweepErrors, SpecShape) {
  expect_error_at(lines({"base: {data: {task: synthetic}}", "grid:", "  model.norm: [pre]"}), 1,
                  "name", "required");
  expect_error_at(lines({"name: a b", "base: {data: {task: synthetic}}", "seeds: [1]"}), 1, "name",
                  "not a valid sweep name");
  expect_error_at(lines({"name: s", "grid:", "  model.norm: [pre]"}), 1, "base", "required");
  expect_error_at(sweep({}), 1, "grid", "no axes");
  expect_error_at(sweep({"grids:", "  model.norm: [pre]"}), 6, "grids", "did you mean 'grid'?");
  expect_error_at(sweep({"model:", "  norm: pre"}), 6, "model", "go under base: or set:");
  expect_error_at(lines({"name: s", "base:", "  model: {dmodel: 4}", "seeds: [1]"}), 3,
                  "model.dmodel", "did you mean 'model.d_model'?");
}

// check_config on an expanded run: an axis key's error points at the axis value; a base key's
// error keeps its base location. The run's name is added to the message.
TEST(SweepErrors, RunFailingCheckConfig) {
  expect_error_at(sweep({"grid:", "  model.heads:", "    - 4", "    - 3"}), 9, "model.heads",
                  "3 heads do not divide d_model = 64 (in run s/heads=3)");
  // heads (4) comes from the base, line 3; d_model 66 from the axis.
  expect_error_at(sweep({"grid:", "  model.d_model: [64, 66]"}), 3, "model.heads",
                  "do not divide d_model = 66 (in run s/d_model=66)");
}

// The extra_check hook (the CLI passes check_model_methods) runs on every run.
TEST(SweepErrors, ExtraCheckErrorAtAxisValue) {
  int calls = 0;
  auto reject_bogus = [&](const RunConfig& c) {
    ++calls;
    // Located like the registry's error would be, but at a made-up place: the sweep relocates.
    if (c.model.init == "bogus")
      throw InputError("elsewhere", 99, "model.init", "unknown method 'bogus'");
  };
  expect_error_at(
      sweep({"grid:", "  model.norm: [post]", "  model.init:", "    - xavier", "    - bogus"}), 10,
      "model.init", "unknown method 'bogus' (in run s/norm=post,init=bogus)", reject_bogus);
  EXPECT_EQ(calls, 2);
  calls = 0;
  EXPECT_EQ(expand(sweep({"seeds: [1, 2, 3]"}), reject_bogus).size(), 3u);
  EXPECT_EQ(calls, 3);
}

// ---- dry run --------------------------------------------------------------------------------

TEST(SweepDescribe, TableAndCount) {
  const auto runs = expand(sweep({"grid:", "  model.norm: [post, pre]", "seeds: [1, 12]"}));
  EXPECT_EQ(experiments::describe_sweep(runs),
            "#  model.norm  train.seed  name\n"
            "1  post        1           s/norm=post,seed=1\n"
            "2  post        12          s/norm=post,seed=12\n"
            "3  pre         1           s/norm=pre,seed=1\n"
            "4  pre         12          s/norm=pre,seed=12\n"
            "4 runs\n");
}

}  // namespace test_sweep_spec
}  // namespace fathom
