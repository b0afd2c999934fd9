// `fathom translate` as a user runs it: a stored run's model translates text it is given. The
// expectations come from training, not from the command: a run's test source translates to the
// test.hyp its own final evaluation wrote (and scores its test_bleu); --beam 1 gives what a
// run trained identically but decoding greedily wrote; --checkpoint 40 gives what a run stopped
// at update 40 wrote; --checkpoint average (and --average 3 on run 1) what a run evaluating its
// checkpoints' mean wrote; a length limit of one token leaves every line empty. Bad input exits 2
// before any work and writes nothing.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/util/process.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"
#include "tests/support/toy_corpus.h"

namespace test_translate_cli {
namespace fs = std::filesystem;
using fathom::ProgramResult;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  return text;
}

// A toy German-English corpus (word for word) and the runs the tests compare against, trained
// once for the suite: 1 the config (beam 3, checkpoints kept every 40 updates), 2 the same
// decoding greedily, 3 the same stopped at update 40, 4 a language model, 5 the config
// evaluating the mean of its 3 kept checkpoints.
class TranslateCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<fathom::testing::TempDir>();
    std::mt19937_64 rng(11);
    for (const auto& [split, pairs] :
         {std::pair<std::string, int>{"train", 800}, {"valid", 20}, {"test", 30}})
      fathom::testing::write_word_for_word_corpus(dir() / "corpus", split, pairs, rng);
    std::ofstream(dir() / "toy.yaml")
        << "name: toy\n"
           "device: cpu\n"
           "model: {d_model: 32, heads: 2, d_ff: 64, encoder_layers: 1, decoder_layers: 1}\n"
           "data:\n"
           "  task: parallel\n"
           "  train_source: corpus/train.de\n  train_target: corpus/train.en\n"
           "  valid_source: corpus/valid.de\n  valid_target: corpus/valid.en\n"
           "  test_source: corpus/test.de\n  test_target: corpus/test.en\n"
           "  vocab: {size: 40}\n"
           "  max_tokens: 256\n"
           "train: {lr: 0.01, warmup: 10, max_updates: 120, valid_every: 40, log_every: 40,\n"
           "        threads: 1, keep_checkpoint_every: 40}\n"
           "eval: {beam: 3}\n";
    std::ofstream(dir() / "lm.yaml")
        << "name: lm\n"
           "model: {arch: decoder_only, d_model: 16, heads: 2, d_ff: 32, decoder_layers: 1}\n"
           "data: {task: lm, train_text: corpus/train.en, valid_text: corpus/valid.en,\n"
           "       lm_block: 16, vocab: {size: 40}, max_tokens: 256}\n"
           "train: {lr: 0.005, warmup: 2, max_updates: 4, valid_every: 4, log_every: 2}\n";
    const std::string toy = (dir() / "toy.yaml").string();
    trained_ = train({toy}) && train({toy, "--set", "eval.beam=1"}) &&
               train({toy, "--set", "train.max_updates=40"}) &&
               train({(dir() / "lm.yaml").string()}) &&
               train({toy, "--set", "eval.average_checkpoints=3"});
  }
  static void TearDownTestSuite() { scratch_.reset(); }
  void SetUp() override { ASSERT_TRUE(trained_) << "training the suite's runs failed"; }

  static fs::path dir() { return scratch_->path(); }
  static ProgramResult fathom(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {fathom::testing::built_fathom_binary().string(), "--db",
                               (dir() / "runs.db").string()});
    return fathom::run_program(args, input, {}, 300);
  }
  static bool train(std::vector<std::string> args) {
    args.insert(args.begin(), "train");
    args.push_back("--no-progress");
    const ProgramResult r = fathom(args);
    if (r.exit_code != 0) std::fprintf(stderr, "%s", r.err.c_str());
    return r.exit_code == 0;
  }
  static std::string corpus(const std::string& name) { return (dir() / "corpus" / name).string(); }
  // The test hypotheses run `run`'s final evaluation wrote.
  static std::string stored_hypotheses(int64_t run) {
    const auto store =
        fathom::db::Store::open((dir() / "runs.db").string(), fathom::db::OpenMode::ReadOnly);
    for (const auto& a : store.artifacts(run))
      if (a.kind == "hypotheses") return fathom::testing::read_text(a.path);
    return "";
  }

  static inline std::unique_ptr<fathom::testing::TempDir> scratch_;
  static inline bool trained_ = false;
};

TEST_F(TranslateCli, TheRunsTestSourceTranslatesToItsOwnTestHypothesesAndTestBleu) {
  const std::string out = (dir() / "hyp.txt").string();
  const ProgramResult r = fathom({"--json", "translate", "1", "--input", corpus("test.de"), "--out",
                                  out, "--ref", corpus("test.en"), "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string stored = stored_hypotheses(1);
  ASSERT_EQ(lines_of(stored).size(), 30u);
  EXPECT_EQ(fathom::testing::read_text(out), stored);

  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["run"], 1);
  EXPECT_EQ(j["checkpoint"], "best");
  EXPECT_EQ(j["sentences"], 30);
  EXPECT_EQ(j["search"]["beam"], 3);  // the run's eval.beam
  const auto store =
      fathom::db::Store::open((dir() / "runs.db").string(), fathom::db::OpenMode::ReadOnly);
  EXPECT_DOUBLE_EQ(j["bleu"]["score"].get<double>(),
                   store.find_run("1")->final_metrics.at(fathom::db::metric::kTestBleu));
  EXPECT_GT(j["bleu"]["score"].get<double>(), 0.0);  // it has learnt something
}

// Standard input to standard output; the decode sorts by length, the output keeps the input's
// order.
TEST_F(TranslateCli, StandardInputComesOutInItsOwnOrder) {
  std::vector<std::string> source = lines_of(fathom::testing::read_text(corpus("test.de")));
  std::vector<std::string> expected = lines_of(stored_hypotheses(1));
  ASSERT_EQ(source.size(), expected.size());
  std::reverse(source.begin(), source.end());
  std::reverse(expected.begin(), expected.end());
  const ProgramResult r = fathom({"translate", "1", "--no-progress"}, joined(source));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_of(r.out), expected);
  EXPECT_NE(r.err.find("30 sentences translated"), std::string::npos) << r.err;
}

// Standard input read as a file is: gzip-compressed (`fathom data` keeps corpora so), with a
// byte-order mark and Windows line ends, it translates as the plain file does.
TEST_F(TranslateCli, StandardInputMayBeCompressedOrFromWindows) {
  const std::string plain = fathom::testing::read_text(corpus("test.de"));
  const ProgramResult expected = fathom({"translate", "1", "--no-progress"}, plain);
  ASSERT_EQ(expected.exit_code, 0) << expected.err;
  uLongf size = compressBound(static_cast<uLong>(plain.size())) + 32;
  std::string packed(size, '\0');
  z_stream z{};  // gzip framing (windowBits 15 + 16), as gzip(1) writes
  ASSERT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
  z.avail_in = static_cast<uInt>(plain.size());
  z.next_out = reinterpret_cast<Bytef*>(packed.data());
  z.avail_out = static_cast<uInt>(packed.size());
  ASSERT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  packed.resize(z.total_out);
  deflateEnd(&z);
  const ProgramResult gz = fathom({"translate", "1", "--no-progress"}, packed);
  ASSERT_EQ(gz.exit_code, 0) << gz.err;
  EXPECT_EQ(gz.out, expected.out);
  std::string windows = "\xEF\xBB\xBF";
  for (const auto& line : lines_of(plain)) windows += line + "\r\n";
  const ProgramResult crlf = fathom({"translate", "1", "--no-progress"}, windows);
  ASSERT_EQ(crlf.exit_code, 0) << crlf.err;
  EXPECT_EQ(crlf.out, expected.out);
}

TEST_F(TranslateCli, FlagsReachTheSearchAndCheckpointsTheirUpdate) {
  const auto translated = [&](std::vector<std::string> flags, const std::string& run = "1") {
    flags.insert(flags.begin(), {"translate", run, "--input", corpus("test.de"), "--no-progress"});
    const ProgramResult r = fathom(flags);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  };
  // Run 2 trained as run 1 and wrote its greedy decode; run 1 decodes with beam 3.
  ASSERT_NE(stored_hypotheses(2), stored_hypotheses(1));
  EXPECT_EQ(translated({"--beam", "1"}), stored_hypotheses(2));
  // Run 3 stopped at update 40 (the schedule does not look at max_updates): its best
  // checkpoint is run 1's update 40.
  ASSERT_NE(stored_hypotheses(3), stored_hypotheses(1));
  EXPECT_EQ(translated({"--checkpoint", "40"}), stored_hypotheses(3));
  // Run 5 evaluated the mean of run 1's three kept checkpoints.
  ASSERT_NE(stored_hypotheses(5), stored_hypotheses(1));
  EXPECT_EQ(translated({"--checkpoint", "average"}, "5"), stored_hypotheses(5));
  // ... which --average 3 makes afterwards from run 1's kept files.
  EXPECT_EQ(translated({"--average", "3"}), stored_hypotheses(5));
  // At most 0 x source + 1 tokens: eos alone, every line empty.
  EXPECT_EQ(translated({"--max-len-a", "0", "--max-len-b", "1"}), std::string(30, '\n'));
  // At most one token before eos: one piece, no space inside.
  for (const auto& line : lines_of(translated({"--max-len-a", "0", "--max-len-b", "2"})))
    EXPECT_EQ(line.find(' '), std::string::npos) << line;
}

// --average N --average-by best: the N kept checkpoints of the lowest valid_loss at their
// updates (picked here from the stored curve), said in the report.
TEST_F(TranslateCli, AveragingTheBestTakesTheKeptCheckpointsOfTheLowestValidLoss) {
  const auto store =
      fathom::db::Store::open((dir() / "runs.db").string(), fathom::db::OpenMode::ReadOnly);
  std::map<double, int64_t> by_loss;  // kept updates 40 80 120, validated at each
  for (const auto& p : store.metric_series(1, "valid_loss"))
    if (p.step > 0 && p.step % 40 == 0) by_loss[p.value] = p.step;
  ASSERT_EQ(by_loss.size(), 3u);
  const int64_t best = by_loss.begin()->second;
  const auto translated = [&](std::vector<std::string> flags) {
    flags.insert(flags.begin(), {"--json", "translate", "1", "--input", corpus("test.de"), "--out",
                                 (dir() / "best.txt").string(), "--no-progress"});
    const ProgramResult r = fathom(flags);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return std::make_pair(fathom::testing::read_text(dir() / "best.txt"),
                          nlohmann::json::parse(r.out)["checkpoint"].get<std::string>());
  };
  const auto [one, said] = translated({"--average", "1", "--average-by", "best"});
  EXPECT_EQ(one, translated({"--checkpoint", std::to_string(best)}).first);
  EXPECT_EQ(said, "mean of 1 best by valid_loss, updates " + std::to_string(best));
  const ProgramResult alone = fathom({"translate", "1", "--average-by", "best"});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.err.find("--average-by requires --average"), std::string::npos) << alone.err;
}

TEST_F(TranslateCli, BadInputExitsTwoAndWritesNothing) {
  const std::string out = (dir() / "never.txt").string();
  const auto refused = [&](std::vector<std::string> args, const std::string& says) {
    args.insert(args.begin(), "translate");
    const ProgramResult r = fathom(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  };
  const std::string input = corpus("test.de");
  refused({"1", "--input", corpus("nope.de"), "--out", out}, "nope.de: file not found");
  refused({"9", "--input", input, "--out", out}, "no run '9' in the store");
  refused({"1", "--input", input, "--out", out, "--ref", corpus("valid.en")},
          "'--ref': 20 reference lines for 30 input lines");
  refused({"1", "--input", input, "--json"}, "give --out FILE with --json");
  refused({"1", "--input", input, "--out", (dir() / "no/such/folder.txt").string()},
          "does not exist");
  refused({"1", "--input", input, "--out", out, "--checkpoint", "50"},
          "run 1 has no 50 checkpoint (try last or init; kept steps: 40 80 120)");
  refused({"1", "--input", input, "--out", out, "--beam", "0"}, "must be positive (got 0)");
  refused({"1", "--input", input, "--out", out, "--average", "4"},
          "'--average': run 1 kept 3 checkpoints (updates 40 80 120), fewer than 4");
  refused({"4", "--input", input, "--out", out}, "'model.arch': a language model");
  const ProgramResult empty = fathom({"translate", "1"}, "");
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("standard input: '--input': no lines to translate"), std::string::npos)
      << empty.err;
  const ProgramResult bad = fathom({"translate", "1"}, "ein haus\nein \xff\n");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("standard input:2: '--input': invalid UTF-8"), std::string::npos)
      << bad.err;
}

}  // namespace test_translate_cli

namespace test_translate_cli {

// `fathom attention`: every attention sub-layer's probabilities over the translation the run's
// own search gives (its test.hyp line), each row a distribution, the decoder's self-attention
// blind to the future; a target given is attended over instead; a language model attends over its
// text.
TEST_F(TranslateCli, AttentionMapsEveryHeadOverTheModelsOwnTranslation) {
  const std::string source = lines_of(fathom::testing::read_text(corpus("test.de"))).at(0);
  const ProgramResult r = fathom({"--json", "attention", "1", "--source", source});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["translation"], lines_of(stored_hypotheses(1)).at(0));
  const auto& src = j["source_tokens"];
  const auto& tgt = j["target_tokens"];
  const auto& tgt_in = j["target_in_tokens"];
  ASSERT_EQ(tgt.size(), tgt_in.size());
  EXPECT_EQ(src.back(), tgt.back());                                         // both end in eos
  for (size_t i = 1; i < tgt.size(); ++i) EXPECT_EQ(tgt_in[i], tgt[i - 1]);  // bos, then shifted
  std::vector<std::string> names;
  for (const auto& m : j["maps"]) {
    names.push_back(m["name"]);
    const bool decoder = m["stack"] == "dec";
    const size_t queries = decoder ? tgt.size() : src.size();
    const size_t keys = decoder && m["kind"] == "self_attn" ? tgt_in.size() : src.size();
    ASSERT_EQ(m["probs"].size(), 2u) << m["name"];  // model.heads
    for (const auto& head : m["probs"]) {
      ASSERT_EQ(head.size(), queries) << m["name"];
      for (size_t q = 0; q < queries; ++q) {
        ASSERT_EQ(head[q].size(), keys) << m["name"];
        double sum = 0;
        for (size_t k = 0; k < keys; ++k) {
          sum += head[q][k].get<double>();
          if (decoder && m["kind"] == "self_attn" && k > q) {
            EXPECT_EQ(head[q][k], 0.0);
          }
        }
        EXPECT_NEAR(sum, 1.0, 1e-5) << m["name"] << " row " << q;
      }
    }
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"enc.0.self_attn", "dec.0.self_attn", "dec.0.enc_attn"}));

  const ProgramResult given =
      fathom({"--json", "attention", "1", "--source", source, "--target", "the dog"});
  ASSERT_EQ(given.exit_code, 0) << given.err;
  const auto g = nlohmann::json::parse(given.out);
  EXPECT_EQ(g["translation"], "the dog");
  EXPECT_EQ(g["maps"][2]["probs"][0].size(), g["target_tokens"].size());

  // --average N: the maps of the mean of N kept checkpoints (of one: that checkpoint's).
  const auto maps_of = [&](std::vector<std::string> flags) {
    flags.insert(flags.begin(), {"--json", "attention", "1", "--source", source});
    const ProgramResult r = fathom(flags);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
  };
  const auto mean_of_one = maps_of({"--average", "1"});
  EXPECT_EQ(mean_of_one["checkpoint"], "mean of 1, updates 120");
  EXPECT_EQ(mean_of_one["maps"], maps_of({"--checkpoint", "120"})["maps"]);
  EXPECT_NE(maps_of({"--average", "2"})["maps"], mean_of_one["maps"]);

  // --plot: one map as a figure, its title and every source token on it.
  const std::string svg = (dir() / "attention.svg").string();
  const ProgramResult drawn = fathom({"attention", "1", "--source", source, "--plot", svg, "--map",
                                      "enc.0.self_attn", "--head", "2"});
  ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  const std::string figure = fathom::testing::read_text(svg);
  EXPECT_NE(figure.find("enc.0.self_attn, head 2"), std::string::npos);
  for (const auto& token : src) {
    if (token == "</s>") continue;
    EXPECT_NE(figure.find(">" + token.get<std::string>() + "<"), std::string::npos) << token;
  }
  const ProgramResult no_map =
      fathom({"attention", "1", "--source", source, "--plot", svg, "--map", "dec.7.ffn"});
  EXPECT_EQ(no_map.exit_code, 2);
  EXPECT_NE(no_map.err.find("dec.0.enc_attn"), std::string::npos) << no_map.err;  // the choices
  const ProgramResult bad_file = fathom({"attention", "1", "--source", source, "--plot", "a.txt"});
  EXPECT_EQ(bad_file.exit_code, 2);
  EXPECT_NE(bad_file.err.find("'--plot'"), std::string::npos) << bad_file.err;

  const ProgramResult text = fathom({"attention", "1", "--source", source});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("dec.0.enc_attn (mean of 2 heads)"), std::string::npos) << text.out;
  // A language model reads the text itself after bos: only its decoder's self-attention.
  const std::string lm_text = lines_of(fathom::testing::read_text(corpus("test.en"))).at(0);
  const ProgramResult lm = fathom({"--json", "attention", "4", "--source", lm_text});
  ASSERT_EQ(lm.exit_code, 0) << lm.err;
  const auto l = nlohmann::json::parse(lm.out);
  EXPECT_EQ(l["translation"], lm_text);
  EXPECT_EQ(l["source_tokens"].size(), 0u);
  ASSERT_EQ(l["maps"].size(), 1u);
  EXPECT_EQ(l["maps"][0]["name"], "dec.0.self_attn");
  const auto& lm_head = l["maps"][0]["probs"][0];
  ASSERT_EQ(lm_head.size(), l["target_tokens"].size());
  EXPECT_EQ(lm_head[0][0], 1.0);  // the first query can read only bos
  EXPECT_EQ(l["target_in_tokens"][1], l["target_tokens"][0]);
  const ProgramResult sink = fathom({"attention", "4", "--source", lm_text});
  EXPECT_NE(sink.out.find("dec.0.self_attn: the first token"), std::string::npos) << sink.out;
  EXPECT_EQ(fathom({"attention", "4", "--source", lm_text, "--target", "x"}).exit_code, 2);
  EXPECT_EQ(fathom({"attention", "1", "--source", ""}).exit_code, 2);
}

}  // namespace test_translate_cli
