// Bad config files: unknown keys with suggestions, wrong types, YAML syntax, repeated keys and
// files that are no config, each naming the file, line and key. Torch-free.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "base/config/config_io.h"
#include "base/util/error.h"
#include "experiments/sweep_spec.h"
#include "tests/support/config_test_helpers.h"
#include "tests/support/input_error.h"

namespace fathom {
namespace test_config_errors {
namespace fs = std::filesystem;

using fathom::testing::ConfigFiles;
using fathom::testing::contains;
using fathom::testing::expect_input_error;
using fathom::testing::yaml_lines;

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

// A ',' where a document begins -- or after its top-level scalar -- sends yaml-cpp 0.7's LoadAll
// into reading empty documents until memory runs out (found by fuzz/fuzz_sweep.cpp and
// fuzz_config.cpp: 2 GB in seconds). Refused at the comma's line, quickly, in a config and in a
// sweep file; a comma inside brackets or a mapping's value is still read.
TEST(ConfigErrors, ACommaWhereADocumentBeginsIsRefusedNotReadForever) {
  const InputError first = expect_input_error(
      [&] { load_config_string("# a comment\n, lr: 1\ntrain:\n  lr: 0.1\n", "c.yaml", ""); });
  EXPECT_EQ(first.file(), "c.yaml");
  EXPECT_EQ(first.line(), 2) << first.what();
  EXPECT_TRUE(contains(first.message(), "','")) << first.what();
  const InputError after_scalar =
      expect_input_error([&] { load_config_string("\"x\"\n  ,\n", "s.yaml", ""); });
  EXPECT_EQ(after_scalar.line(), 2) << after_scalar.what();
  const InputError sweep = expect_input_error([&] {
    experiments::load_sweep_string("# sweep\n,e 1: x\nname: s\ngrid:\n  model.norm: [post, pre]\n",
                                   "s.yaml", "");
  });
  EXPECT_EQ(sweep.line(), 2) << sweep.what();
  EXPECT_EQ(
      load_config_string("model: {d_model: 16, heads: 2}\ntrain:\n  lr: 1e-3\n", "ok.yaml", "")
          .model.heads,
      2);
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
  const InputError o = expect_input_error(
      [&] { load_config_string("train:\n  optimizer: adagrad\n", "c.yaml", ""); });
  EXPECT_EQ(o.field(), "train.optimizer");
  EXPECT_TRUE(contains(o.message(), "adam")) << o.what();
}

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

}  // namespace test_config_errors
}  // namespace fathom
