// The run config: YAML parsing, error locations and suggestions, cross-field checks,
// `--set` overrides and the YAML/JSON round trip (base/config/config_io.h). Torch-free.
//
// YAML inputs are built from a list of lines (`yaml_lines`), so every expected line number is
// the 1-based index of the offending line in that list, counted independently of the parser.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "base/config/config_io.h"
#include "base/config/config_schema.h"
#include "base/config/yaml_file.h"
#include "base/util/error.h"
#include "tests/support/input_error.h"
#include "tests/support/temp_dir.h"

namespace fathom {
namespace {
namespace fs = std::filesystem;

std::string yaml_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

using fathom::testing::expect_input_error;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A fresh directory per test, removed afterwards.
class ConfigFiles : public ::testing::Test {
 protected:
  std::string write(const std::string& relative, const std::string& text) {
    return scratch_.write(relative, text);
  }
  fathom::testing::TempDir scratch_;  // removed when the test ends
  const fs::path& dir_ = scratch_.path();
};

// ---- parsing ------------------------------------------------------------------------------

// Empty (and comment-only) YAML must give exactly the defaults of config.h; a parser that
// invented values or failed on an empty document would break this.
TEST(ConfigParse, EmptyYamlGivesDefaults) {
  const RunConfig defaults;
  for (const std::string& text : {std::string(""), std::string("# only a comment\n")}) {
    const RunConfig c = load_config_string(text, "empty.yaml", "");
    EXPECT_EQ(config_to_json(c), config_to_json(defaults));
    EXPECT_EQ(c.model.d_model, 512);
    EXPECT_EQ(c.model.norm, "post");
    EXPECT_EQ(c.train.betas[1], 0.98);
    EXPECT_TRUE(c.locations.empty());
    EXPECT_EQ(c.source_file, "empty.yaml");
  }
  // An empty section keeps its defaults too.
  const RunConfig c = load_config_string("model:\n", "x.yaml", "");
  EXPECT_EQ(c.model.d_model, 512);
}

// Every kind of field (int, uint, float, bool, string with choices, path, pair, nested
// section) lands in its own member; a wrong member pointer in the schema would fail this.
TEST(ConfigParse, FullExampleFillsTheRightFields) {
  const std::string text = yaml_lines({
      "name: deep-post",                       // 1
      "device: cpu",                           // 2
      "model:",                                // 3
      "  d_model: 256",                        // 4
      "  heads: 4",                            // 5
      "  d_ff: 1024",                          // 6
      "  encoder_layers: 18",                  // 7
      "  decoder_layers: 6",                   // 8
      "  dropout: 0.2",                        // 9
      "  attention_dropout: 0.05",             // 10
      "  activation_dropout: 0.15",            // 11
      "  norm: pre",                           // 12
      "  init: lipschitz",                     // 13
      "  connection: residual",                // 14
      "  tie_decoder_embeddings: false",       // 15
      "  share_embeddings: no",                // 16
      "data:",                                 // 17
      "  task: synthetic",                     // 18
      "  max_tokens: 2048",                    // 19
      "  max_len: 64",                         // 20
      "  vocab: {type: unigram, size: 4000}",  // 21
      "  synthetic:",                          // 22
      "    vocab: 12",                         // 23
      "    min_len: 3",                        // 24
      "    max_len: 9",                        // 25
      "    train_size: 1234",                  // 26
      "    valid_size: 56",                    // 27
      "    test_size: 78",                     // 28
      "    seed: 18446744073709551615",        // 29  (2^64 - 1 must fit a uint64)
      "train:",                                // 30
      "  optimizer: radam",                    // 31
      "  lr: 0.0007",                          // 32
      "  betas: [0.85, 0.995]",                // 33
      "  eps: 1.0e-6",                         // 34
      "  weight_decay: 0.01",                  // 35
      "  warmup: 300",                         // 36
      "  max_updates: 5000",                   // 37
      "  label_smoothing: 0.0",                // 38
      "  update_tokens: 8192",                 // 39
      "  clip_norm: 1.5",                      // 40
      "  seed: 7",                             // 41
      "  valid_every: 250",                    // 42
      "  log_every: 5",                        // 43
      "  divergence_factor: 4",                // 44
      "  threads: 2",                          // 45
      "eval:",                                 // 46
      "  beam: 3",                             // 47
      "  length_penalty: 0.6",                 // 48
      "  max_len_a: 1.5",                      // 49
      "  max_len_b: 7",                        // 50
      "  max_sentences: 100",                  // 51
  });
  const RunConfig c = load_config_string(text, "full.yaml", "");
  EXPECT_EQ(c.name, "deep-post");
  EXPECT_EQ(c.device, "cpu");
  EXPECT_EQ(c.model.d_model, 256);
  EXPECT_EQ(c.model.heads, 4);
  EXPECT_EQ(c.model.d_ff, 1024);
  EXPECT_EQ(c.model.encoder_layers, 18);
  EXPECT_EQ(c.model.decoder_layers, 6);
  EXPECT_DOUBLE_EQ(c.model.dropout, 0.2);
  EXPECT_DOUBLE_EQ(c.model.attention_dropout, 0.05);
  EXPECT_DOUBLE_EQ(c.model.activation_dropout, 0.15);
  EXPECT_EQ(c.model.norm, "pre");
  EXPECT_EQ(c.model.init, "lipschitz");
  EXPECT_EQ(c.model.connection, "residual");
  EXPECT_FALSE(c.model.tie_decoder_embeddings);
  EXPECT_FALSE(c.model.share_embeddings);
  EXPECT_EQ(c.data.task, "synthetic");
  EXPECT_EQ(c.data.max_tokens, 2048);
  EXPECT_EQ(c.data.max_len, 64);
  EXPECT_EQ(c.data.vocab.type, "unigram");
  EXPECT_EQ(c.data.vocab.size, 4000);
  EXPECT_EQ(c.data.synthetic.vocab, 12);
  EXPECT_EQ(c.data.synthetic.min_len, 3);
  EXPECT_EQ(c.data.synthetic.max_len, 9);
  EXPECT_EQ(c.data.synthetic.train_size, 1234);
  EXPECT_EQ(c.data.synthetic.valid_size, 56);
  EXPECT_EQ(c.data.synthetic.test_size, 78);
  EXPECT_EQ(c.data.synthetic.seed, 18446744073709551615ull);
  EXPECT_EQ(c.train.optimizer, "radam");
  EXPECT_DOUBLE_EQ(c.train.lr, 0.0007);
  EXPECT_DOUBLE_EQ(c.train.betas[0], 0.85);
  EXPECT_DOUBLE_EQ(c.train.betas[1], 0.995);
  EXPECT_DOUBLE_EQ(c.train.eps, 1e-6);
  EXPECT_DOUBLE_EQ(c.train.weight_decay, 0.01);
  EXPECT_EQ(c.train.warmup, 300);
  EXPECT_EQ(c.train.max_updates, 5000);
  EXPECT_DOUBLE_EQ(c.train.label_smoothing, 0.0);
  EXPECT_EQ(c.train.update_tokens, 8192);
  EXPECT_DOUBLE_EQ(c.train.clip_norm, 1.5);
  EXPECT_EQ(c.train.seed, 7u);
  EXPECT_EQ(c.train.valid_every, 250);
  EXPECT_EQ(c.train.log_every, 5);
  EXPECT_DOUBLE_EQ(c.train.divergence_factor, 4.0);
  EXPECT_EQ(c.train.threads, 2);
  EXPECT_EQ(c.eval.beam, 3);
  EXPECT_DOUBLE_EQ(c.eval.length_penalty, 0.6);
  EXPECT_DOUBLE_EQ(c.eval.max_len_a, 1.5);
  EXPECT_EQ(c.eval.max_len_b, 7);
  EXPECT_EQ(c.eval.max_sentences, 100);

  // Locations: where each key was set, so later checks can point at the line.
  EXPECT_EQ(c.where("model.heads").line, 5);
  EXPECT_EQ(c.where("model.heads").file, "full.yaml");
  EXPECT_EQ(c.where("data.synthetic.seed").line, 29);
  EXPECT_EQ(c.where("train.betas").line, 33);
  EXPECT_EQ(c.where("data.vocab.size").line, 21);
  EXPECT_EQ(c.where("eval.max_sentences").line, 51);
  EXPECT_EQ(c.where("model.d_model").line, 4);
  // A key that was not set has no line, but still names the file.
  const RunConfig d = load_config_string("name: x\n", "y.yaml", "");
  EXPECT_EQ(d.where("model.heads").line, 0);
  EXPECT_EQ(d.where("model.heads").file, "y.yaml");
  check_config(c);  // a consistent synthetic config passes the cross-field checks
}

// The shipped quickstart must load and pass check_config; a schema change that broke the
// example users start from would fail here.
TEST(ConfigParse, QuickstartExampleLoadsAndChecks) {
  const std::string path = std::string(FATHOM_SOURCE_DIR) + "/configs/quickstart.yaml";
  const RunConfig c = load_config_file(path);
  EXPECT_EQ(c.name, "quickstart");
  EXPECT_EQ(c.data.task, "synthetic");
  EXPECT_EQ(c.model.d_model % c.model.heads, 0);
  EXPECT_GT(c.where("model.d_model").line, 0);
  EXPECT_EQ(c.where("model.d_model").file, path);
  EXPECT_NO_THROW(check_config(c));
}

// Relative data paths resolve against the config file's directory (not the process's cwd);
// absolute paths stay; "..": normalized. Without a `name:` the file's stem names the run.
TEST_F(ConfigFiles, RelativePathsResolveAgainstTheConfigDirectory) {
  const std::string config_path =
      write("exps/deep/run.yaml", yaml_lines({
                                      "data:",
                                      "  train_source: corpus/train.de",
                                      "  train_target: ../shared/train.en",
                                      "  valid_source: /abs/valid.de",
                                      "  valid_target: /abs/valid.en",
                                  }));
  const RunConfig c = load_config_file(config_path);
  const fs::path base = fs::absolute(dir_ / "exps" / "deep");
  EXPECT_EQ(c.data.train_source, (base / "corpus" / "train.de").string());
  EXPECT_EQ(c.data.train_target, fs::absolute(dir_ / "exps" / "shared" / "train.en").string());
  EXPECT_EQ(c.data.valid_source, "/abs/valid.de");
  EXPECT_EQ(c.data.valid_target, "/abs/valid.en");
  EXPECT_TRUE(c.data.test_source.empty());
  EXPECT_EQ(c.name, "run");
  EXPECT_EQ(c.source_file, config_path);
  EXPECT_EQ(c.where("data.train_target").line, 3);

  // The same text read as a string with a base_dir resolves against that base_dir.
  const RunConfig s = load_config_string("data:\n  train_source: a/b.txt\n", "s", "/some/dir");
  EXPECT_EQ(s.data.train_source, "/some/dir/a/b.txt");
}

TEST_F(ConfigFiles, MissingConfigFileIsAnInputError) {
  const std::string path = (dir_ / "nope.yaml").string();
  const InputError e = expect_input_error([&] { load_config_file(path); });
  EXPECT_EQ(e.file(), path);
}

// A file far larger than any config (a corpus given by mistake) is refused before the YAML
// parser sees it, naming the file and the limit: a 50 MB one used to take 28 s and 4.7 GB.
// /dev/zero, which never ends, is refused the same way; a directory is named as one.
TEST_F(ConfigFiles, AFileFarLargerThanAConfigIsRefusedBeforeParsing) {
  const std::string big =
      write("corpus.yaml", "name: x\n# " + std::string(kMaxYamlFileBytes, 'a') + "\n");
  const InputError e = expect_input_error([&] { load_config_file(big); });
  EXPECT_EQ(e.file(), big);
  EXPECT_TRUE(contains(e.message(), "larger than 1 MiB")) << e.what();
  const InputError zero = expect_input_error([&] { load_config_file("/dev/zero"); });
  EXPECT_TRUE(contains(zero.message(), "larger than")) << zero.what();
  const InputError dir = expect_input_error([&] { load_config_file(dir_.string()); });
  EXPECT_TRUE(contains(dir.message(), "directory")) << dir.what();
  // Just under the limit still loads (comments are free).
  const std::string fits =
      write("fits.yaml", "name: x\n# " + std::string(kMaxYamlFileBytes - 20, 'a') + "\n");
  EXPECT_EQ(load_config_file(fits).name, "x");
}

// ---- key and type errors --------------------------------------------------------------------

// A typo names file, the typo's own line, the dotted key, and the closest valid key.
TEST(ConfigErrors, UnknownKeyNamesFileLineKeyAndSuggestion) {
  const std::string text = yaml_lines({
      "name: typo",     // 1
      "model:",         // 2
      "  heads: 4",     // 3
      "  dmodel: 256",  // 4  <- the typo
      "  d_ff: 1024",   // 5
  });
  const InputError e = expect_input_error([&] { load_config_string(text, "typo.yaml", ""); });
  EXPECT_EQ(e.file(), "typo.yaml");
  EXPECT_EQ(e.line(), 4);
  EXPECT_EQ(e.field(), "model.dmodel");
  EXPECT_TRUE(contains(e.message(), "did you mean 'model.d_model'")) << e.what();
  // The formatted message carries all of it for the terminal.
  EXPECT_TRUE(contains(e.what(), "typo.yaml:4")) << e.what();

  // An unknown top-level section and a nonsense key: an error, but no suggestion.
  const InputError f =
      expect_input_error([&] { load_config_string("name: a\nzzzzzz: 1\n", "f.yaml", ""); });
  EXPECT_EQ(f.line(), 2);
  EXPECT_EQ(f.field(), "zzzzzz");
  EXPECT_FALSE(contains(f.message(), "did you mean")) << f.what();
}

// The right key in the wrong section suggests the section where it lives. "train.heads" is
// the trap: by edit distance "train.seed" is closer than "model.heads", but the user clearly
// meant the model key.
TEST(ConfigErrors, KeyInTheWrongSectionSuggestsTheRightSection) {
  const std::string text = yaml_lines({
      "train:",          // 1
      "  lr: 0.001",     // 2
      "  d_model: 256",  // 3
  });
  const InputError e = expect_input_error([&] { load_config_string(text, "w.yaml", ""); });
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.field(), "train.d_model");
  EXPECT_TRUE(contains(e.message(), "did you mean 'model.d_model'")) << e.what();

  const InputError h =
      expect_input_error([&] { load_config_string("train:\n  heads: 4\n", "h.yaml", ""); });
  EXPECT_EQ(h.line(), 2);
  EXPECT_EQ(h.field(), "train.heads");
  EXPECT_TRUE(contains(h.message(), "did you mean 'model.heads'")) << h.what();

  // A top-level key that belongs in a section.
  const InputError t = expect_input_error([&] { load_config_string("\nwarmup: 10\n", "t", ""); });
  EXPECT_EQ(t.line(), 2);
  EXPECT_TRUE(contains(t.message(), "did you mean 'train.warmup'")) << t.what();
}

// Wrong value types are reported at the value's line with the dotted key, never silently
// converted (a "big" d_model must not become 0).
TEST(ConfigErrors, WrongTypesNameFileLineAndKey) {
  struct Case {
    std::vector<std::string> lines;
    int line;
    std::string key;
  };
  const std::vector<Case> cases = {
      {{"model:", "  heads: 4", "  d_model: big"}, 3, "model.d_model"},
      {{"model:", "  dropout: [1]"}, 2, "model.dropout"},
      {{"train:", "  lr: 0.1", "  betas: [0.9]"}, 3, "train.betas"},
      {{"train:", "  betas: [0.9, x]"}, 2, "train.betas"},
      {{"train:", "  betas: 0.9"}, 2, "train.betas"},
      {{"model:", "  d_model: 1.5"}, 2, "model.d_model"},
      {{"model:", "  tie_decoder_embeddings: maybe"}, 2, "model.tie_decoder_embeddings"},
      {{"train:", "  seed: -3"}, 2, "train.seed"},
      {{"name: {a: 1}"}, 1, "name"},
      {{"model: 12"}, 1, "model"},
  };
  for (const auto& c : cases) {
    const std::string text = yaml_lines(c.lines);
    const InputError e = expect_input_error([&] { load_config_string(text, "types.yaml", ""); });
    EXPECT_EQ(e.file(), "types.yaml") << text;
    EXPECT_EQ(e.line(), c.line) << text << e.what();
    EXPECT_EQ(e.field(), c.key) << text << e.what();
  }
}

// A YAML syntax error names the file and the line where the parser noticed it.
TEST(ConfigErrors, YamlSyntaxErrorNamesTheLine) {
  const std::string text = yaml_lines({
      "model:",          // 1
      "  d_model: 256",  // 2
      "  heads: [4, 8",  // 3  <- unclosed flow sequence
      "train:",          // 4
      "  lr: 0.1",       // 5
  });
  const InputError e = expect_input_error([&] { load_config_string(text, "syntax.yaml", ""); });
  EXPECT_EQ(e.file(), "syntax.yaml");
  // yaml-cpp notices the unclosed '[' on line 3 or at the first token it cannot accept
  // after it (line 4): either points the user at the right spot; 0 or 1 would not.
  EXPECT_GE(e.line(), 3) << e.what();
  EXPECT_LE(e.line(), 4) << e.what();
  EXPECT_TRUE(contains(e.message(), "YAML")) << e.what();

  const InputError tab =
      expect_input_error([&] { load_config_string("name: a\nmodel:\n\t d_model: 3\n", "t", ""); });
  EXPECT_EQ(tab.line(), 3) << tab.what();
}

// A list, mapping or nothing as a key (YAML's `? key` syntax) is an InputError at its line,
// not yaml-cpp's "bad conversion" escaping unnamed (found by fuzz/fuzz_config.cpp).
TEST(ConfigErrors, AKeyThatIsNotAPlainNameNamesItsLine) {
  const InputError list = expect_input_error(
      [&] { load_config_string("train:\n  lr: 0.1\n? [max_updates, seed]\n: 5\n", "k.yaml", ""); });
  EXPECT_EQ(list.file(), "k.yaml");
  EXPECT_EQ(list.line(), 3) << list.what();
  EXPECT_TRUE(contains(list.message(), "plain name")) << list.what();
  const InputError nested =
      expect_input_error([&] { load_config_string("train:\n  ? {lr: 1}\n  : 2\n", "k.yaml", ""); });
  EXPECT_EQ(nested.line(), 2) << nested.what();
  EXPECT_EQ(nested.field(), "train");
  const InputError empty =
      expect_input_error([&] { load_config_string("model:\n  : 3\n", "k.yaml", ""); });
  EXPECT_TRUE(contains(empty.message(), "empty")) << empty.what();
}

// `optimizer:` with no value is not an empty choice: an InputError at its line listing the
// choices. Before, it loaded as "" and the config written out did not load back (found by
// fuzz/fuzz_config.cpp). A free string key may still be left empty.
TEST(ConfigErrors, AChoiceKeyWithoutAValueIsRefused) {
  const InputError e =
      expect_input_error([&] { load_config_string("train:\n  optimizer:\n", "n.yaml", ""); });
  EXPECT_EQ(e.line(), 2) << e.what();
  EXPECT_EQ(e.field(), "train.optimizer");
  EXPECT_TRUE(contains(e.message(), "adam")) << e.what();
  EXPECT_NO_THROW(load_config_string("data:\n  train_source:\n", "n.yaml", ""));
}

// A string outside its choices suggests the closest choice.
TEST(ConfigErrors, ValueNotInChoicesSuggestsTheClosest) {
  // (model.norm is checked against the method registry instead: test_norm_styles.cpp.)
  const InputError e = expect_input_error([&] {
    load_config_string("data:\n  task: synthetic\n  vocab:\n    type: bpx\n", "c.yaml", "");
  });
  EXPECT_EQ(e.line(), 4);
  EXPECT_EQ(e.field(), "data.vocab.type");
  EXPECT_TRUE(contains(e.message(), "did you mean 'bpe'")) << e.what();
  const InputError o =
      expect_input_error([&] { load_config_string("train:\n  optimizer: sgd\n", "c.yaml", ""); });
  EXPECT_EQ(o.field(), "train.optimizer");
  EXPECT_TRUE(contains(o.message(), "adam")) << o.what();
}

// ---- check_config --------------------------------------------------------------------------

RunConfig synthetic_config(const std::vector<std::string>& extra_lines) {
  std::vector<std::string> lines = {"data:", "  task: synthetic"};
  lines.insert(lines.end(), extra_lines.begin(), extra_lines.end());
  return load_config_string(yaml_lines(lines), "check.yaml", "");
}

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

// ---- output ---------------------------------------------------------------------------------

// YAML written by config_to_yaml must read back to the same config: this is what a run stores
// and what `fathom train --resume` re-reads, so any value lost here changes a resumed run.
TEST(ConfigOutput, YamlRoundTripPreservesEveryValue) {
  std::vector<RunConfig> configs(3);
  configs[1] =
      synthetic_config({"model:", "  d_model: 96", "  norm: pre",
                        "train:", "  betas: [0.8, 0.9999]", "  seed: 18446744073709551615"});
  // Values that need all 17 significant digits, and strings YAML would otherwise read as
  // other types or as syntax.
  RunConfig& tricky = configs[2];
  tricky.train.lr = 0.1 + 0.2;  // 0.30000000000000004
  tricky.train.eps = 1.0 / 3.0;
  tricky.model.dropout = 0.123456789012345678;
  tricky.eval.length_penalty = 1e-300;
  tricky.train.betas = {0.9, 1.0 - 1e-12};
  tricky.name = "yes";
  tricky.device = "cpu";
  tricky.data.train_source = "/data/a: b #c.txt";
  tricky.data.train_target = "123";
  tricky.data.valid_source = "null";
  for (const RunConfig& original : configs) {
    const std::string yaml = config_to_yaml(original);
    const RunConfig again = load_config_string(yaml, "roundtrip.yaml", "");
    EXPECT_EQ(config_to_json(again), config_to_json(original)) << yaml;
    EXPECT_EQ(config_to_yaml(again), yaml);
  }
}

// JSON is nested by section, with the right JSON types, and has one entry per schema key.
TEST(ConfigOutput, JsonIsNestedBySection) {
  RunConfig c = synthetic_config({"model:", "  d_model: 96"});
  const nlohmann::json j = config_to_json(c);
  ASSERT_TRUE(j.contains("model"));
  EXPECT_TRUE(j["model"].is_object());
  EXPECT_EQ(j["model"]["d_model"], 96);
  EXPECT_TRUE(j["model"]["d_model"].is_number_integer());
  EXPECT_EQ(j["data"]["task"], "synthetic");
  EXPECT_TRUE(j["data"]["synthetic"].is_object());
  EXPECT_TRUE(j["data"]["vocab"]["size"].is_number_integer());
  EXPECT_TRUE(j["train"]["betas"].is_array());
  EXPECT_EQ(j["train"]["betas"].size(), 2u);
  EXPECT_TRUE(j["model"]["tie_decoder_embeddings"].is_boolean());
  EXPECT_TRUE(j["train"]["lr"].is_number_float());
  EXPECT_FALSE(j.contains("model.d_model"));  // nested, not flat dotted keys
  // Every schema key is reachable by walking its dotted path.
  for (const auto& key : config_keys()) {
    const nlohmann::json* node = &j;
    size_t start = 0;
    while (true) {
      const size_t dot = key.find('.', start);
      const std::string part = key.substr(start, dot - start);
      ASSERT_TRUE(node->is_object() && node->contains(part)) << key;
      node = &(*node)[part];
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
  }
}

}  // namespace
}  // namespace fathom

namespace fathom {
namespace {

// A repeated key would silently keep its last value (yaml-cpp keeps both entries): refused at
// the second, naming the first's line -- within one mapping, and across the nested and the
// dotted spelling of one key.
TEST(ConfigErrors, KeyGivenTwiceNamesBothLines) {
  const InputError same = expect_input_error([] {
    load_config_string(
        yaml_lines({"name: x", "train:", "  lr: 0.001", "  warmup: 10", "  lr: 0.002"}), "dup.yaml",
        "");
  });
  EXPECT_EQ(same.file(), "dup.yaml");
  EXPECT_EQ(same.line(), 5);
  EXPECT_EQ(same.field(), "train.lr");
  EXPECT_TRUE(contains(same.message(), "given twice (first on line 3)")) << same.what();

  const InputError spelled = expect_input_error([] {
    load_config_string(yaml_lines({"train:", "  lr: 0.001", "train.lr: 0.002"}), "dup.yaml", "");
  });
  EXPECT_EQ(spelled.line(), 3);
  EXPECT_EQ(spelled.field(), "train.lr");
  EXPECT_TRUE(contains(spelled.message(), "first on line 2")) << spelled.what();

  const InputError section = expect_input_error([] {
    load_config_string(
        yaml_lines({"model:", "  d_model: 16", "train:", "  lr: 1", "model:", "  heads: 2"}),
        "dup.yaml", "");
  });
  EXPECT_EQ(section.line(), 5);
  EXPECT_EQ(section.field(), "model");
}

// Files that are no config at all say so, instead of a parser's message or a run with every
// default: empty (or only comments), binary, indented with a tab.
TEST_F(ConfigFiles, EmptyBinaryAndTabIndentedFilesSaySo) {
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return (dir_ / name).string();
  };
  const std::string empty = write("empty.yaml", "# only a comment\n\n");
  const InputError e1 = expect_input_error([&] { load_config_file(empty); });
  EXPECT_EQ(e1.file(), empty);
  EXPECT_TRUE(contains(e1.message(), "is empty")) << e1.what();

  const std::string binary = write("binary.yaml", std::string("name: x\n\x7f"
                                                              "ELF\x02\x01",
                                                              13) +
                                                      std::string(1, '\0'));
  const InputError e2 = expect_input_error([&] { load_config_file(binary); });
  EXPECT_TRUE(contains(e2.message(), "is not a text file")) << e2.what();

  const std::string tab = write("tab.yaml", "name: x\ntrain:\n\tlr: 1\n");
  const InputError e3 = expect_input_error([&] { load_config_file(tab); });
  EXPECT_EQ(e3.line(), 3);
  EXPECT_TRUE(contains(e3.message(), "line 3 is indented with a tab; YAML needs spaces"))
      << e3.what();
}

}  // namespace
}  // namespace fathom
