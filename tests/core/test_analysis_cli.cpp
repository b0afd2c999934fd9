// `fathom analyze` as a user runs it (a separate process): results land in the store's
// `analyses` table with the JSON printed by --json; errors exit 2 and create nothing. Plus the
// Store methods behind it. The binary sits at the top of the build tree (../fathom from this
// test); if it was not built the CLI tests are skipped.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"

namespace test_analysis_cli {
namespace fs = std::filesystem;
using fathom::db::OpenMode;
using fathom::db::Store;

std::string quote(const std::string& s) { return fathom::testing::shell_quote(s); }

std::string slurp(const fs::path& path) { return fathom::testing::read_text(path); }

struct Result {
  int status = -1;
  std::string out, err;
};

class AnalyzeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    binary_ = fathom::testing::built_fathom_binary();
    // A missing binary is a broken build, not a reason to pass.
    ASSERT_TRUE(!binary_.empty() && fs::exists(binary_)) << "no fathom binary at " << binary_;
  }

  Result fathom(const std::vector<std::string>& args) {
    std::string command = "cd " + quote(dir_.string()) + " && env -u FATHOM_DB " +
                          quote(binary_.string()) + " --db " + quote(db());
    for (const auto& a : args) command += " " + quote(a);
    command += " >out.txt 2>err.txt";
    const int raw = std::system(command.c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(dir_ / "out.txt"),
            slurp(dir_ / "err.txt")};
  }
  std::string write_config(const std::string& name, const std::string& extra = "") {
    const fs::path path = dir_ / name;
    std::ofstream(path)
        << "name: " << fs::path(name).stem().string() << "\n"
        << "device: cpu\n"
        << "model:\n  d_model: 16\n  heads: 2\n  d_ff: 32\n"
        << "  encoder_layers: 2\n  decoder_layers: 1\n"
        << extra << "data:\n  task: synthetic\n  max_tokens: 256\n"
        << "  synthetic: {vocab: 8, train_size: 200, valid_size: 20, test_size: 10}\n"
        << "train:\n  lr: 0.005\n  warmup: 10\n  max_updates: 6\n"
        << "  valid_every: 3\n  log_every: 3\n  threads: 1\n"
        << "eval:\n  beam: 1\n";
    return path.string();
  }
  std::string db() const { return (dir_ / "runs.db").string(); }

  fathom::testing::TempDir scratch_;  // removed when the test ends
  fs::path binary_;
  const fs::path& dir_ = scratch_.path();
};

TEST_F(AnalyzeCli, BetaOfAConfigIsPrintedAndStored) {
  const std::string config = write_config("post.yaml");
  Result r = fathom({"analyze", "beta", config, "--json", "--no-progress"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto printed = nlohmann::json::parse(r.out);
  ASSERT_EQ(printed["encoder"]["beta"].size(), 4u);
  ASSERT_EQ(printed["decoder"]["labels"].size(), 4u);

  auto store = Store::open(db(), OpenMode::ReadOnly);
  const auto rows = store.list_analyses();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kind, "beta");
  EXPECT_FALSE(rows[0].run_id.has_value());
  EXPECT_EQ(rows[0].checkpoint, "");
  EXPECT_GT(rows[0].elapsed_s, 0.0);
  EXPECT_EQ(nlohmann::json::parse(rows[0].result_json), printed);
  EXPECT_EQ(nlohmann::json::parse(rows[0].params_json)["subjects"][0], config);

  Result table = fathom({"analyze", "show", std::to_string(rows[0].id)});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("enc.1.ffn"), std::string::npos) << table.out;
}

// layer-skip is stored like the others; its table names every skipped layer.
TEST_F(AnalyzeCli, LayerSkipOfAConfigIsStored) {
  const std::string config = write_config("skip.yaml", "  norm: pre\n");
  Result r = fathom({"analyze", "layer-skip", config, "--json", "--no-progress"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto printed = nlohmann::json::parse(r.out);
  ASSERT_EQ(printed["layers"].size(), 3u);  // 2 encoder layers, 1 decoder layer
  auto store = Store::open(db(), OpenMode::ReadOnly);
  const auto rows = store.list_analyses(std::nullopt, "layer-skip");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(rows[0].result_json), printed);
  Result table = fathom({"analyze", "show", std::to_string(rows[0].id)});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("dec.1"), std::string::npos) << table.out;
}

// sharpness: both extremes with their residuals, lambda_min <= lambda_max, stored; its figure
// draws one point per Lanczos step; --iterations bounds the steps and is recorded.
TEST_F(AnalyzeCli, SharpnessOfAConfigIsStoredAndDrawn) {
  const std::string config = write_config("sharp.yaml", "  norm: pre\n");
  Result r =
      fathom({"analyze", "sharpness", config, "--json", "--no-progress", "--iterations", "6"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto printed = nlohmann::json::parse(r.out);
  EXPECT_LE(printed["iterations"].get<int>(), 6);
  EXPECT_EQ(printed["ritz"].size(), printed["iterations"].get<size_t>());
  EXPECT_LE(printed["smallest"].get<double>(), printed["sharpness"].get<double>());
  EXPECT_GE(printed["residual"].get<double>(), 0.0);
  auto store = Store::open(db(), OpenMode::ReadOnly);
  const auto rows = store.list_analyses(std::nullopt, "sharpness");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(rows[0].result_json), printed);
  EXPECT_EQ(nlohmann::json::parse(rows[0].params_json)["iterations"], 6);
  Result table = fathom({"analyze", "show", std::to_string(rows[0].id)});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("lambda_max(H) = "), std::string::npos) << table.out;
  const std::string result = (dir_ / "sharp.json").string();
  std::ofstream(result) << r.out;
  Result drawn = fathom({"export", "plot", "analysis", result, "--kind", "sharpness", "--out",
                         (dir_ / "sharp.svg").string()});
  ASSERT_EQ(drawn.status, 0) << drawn.err;
  EXPECT_NE(slurp(dir_ / "sharp.svg").find("Lanczos step"), std::string::npos);
}

// rank-collapse: a row per stack input and sub-layer, each a mean cosine in [-1, 1]. ReZero at
// initialization (alpha = 0, no LayerNorm) passes every stream on unchanged, so every row of a
// stack equals its input's -- and, the tokens of a sentence being distinct, is below 1; and no
// branch reaches the loss, so every attention projection's gradient is exactly zero (no
// gradient figure). Hyper-connection and depth-wise LSTM stacks: their rows, and gradients.
// Every weight matrix of a 2 + 1-layer model at width 16 is a block -- the packed Q, K, V
// apart: 6 a encoder layer, 10 a decoder layer, one shared embedding -- with the parameters
// counted by hand; each block has its Ritz values, the extremes among them. Under ReZero at
// initialization every branch is multiplied by 0, so the loss does not depend on any layer's
// weights and every layer block's Hessian is exactly 0, while the embedding's is not.
TEST_F(AnalyzeCli, BlockHessianOfAConfigSplitsEveryMatrixAndIsDrawn) {
  const std::vector<std::string> flags{"--json", "--no-progress",   "--sentences",
                                       "4",      "--lanczos-steps", "8"};
  auto analyze = [&](const std::string& config) {
    std::vector<std::string> args{"analyze", "block-hessian", config};
    args.insert(args.end(), flags.begin(), flags.end());
    return fathom(args);
  };
  Result r = analyze(write_config("post.yaml"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto printed = nlohmann::json::parse(r.out);
  EXPECT_EQ(printed["sentences"], 4);
  const auto& blocks = printed["blocks"];
  ASSERT_EQ(blocks.size(), 1u + 2 * 6 + 10);
  EXPECT_EQ(blocks[0]["block"], "source_embedding");
  EXPECT_EQ(blocks[1]["block"], "enc.0.self_attn.q");
  EXPECT_EQ(blocks[3]["block"], "enc.0.self_attn.v");
  EXPECT_EQ(blocks[13]["block"], "dec.0.self_attn.q");
  EXPECT_EQ(blocks[17]["block"], "dec.0.enc_attn.q");
  EXPECT_EQ(blocks[19]["block"], "dec.0.enc_attn.v");
  EXPECT_EQ(blocks[22]["block"], "dec.0.ffn.fc2");
  int64_t layer_params = 0;
  for (size_t i = 1; i < blocks.size(); ++i) layer_params += blocks[i]["params"].get<int64_t>();
  EXPECT_EQ(layer_params, 2 * (4 * 16 * 16 + 2 * 16 * 32) + (8 * 16 * 16 + 2 * 16 * 32));
  EXPECT_EQ(blocks[0]["params"].get<int64_t>() % 16, 0);
  double sum = 0, squares = 0;  // of log10 lambda_max, for its standard deviation
  for (const auto& b : blocks) {
    const double decade = std::log10(b["lambda_max"].get<double>());
    sum += decade;
    squares += decade * decade;
    EXPECT_EQ(b["steps"], 8) << b["block"];
    const auto nodes = b["ritz_values"].get<std::vector<double>>();
    ASSERT_EQ(nodes.size(), 8u);
    EXPECT_DOUBLE_EQ(b["lambda_max"].get<double>(), nodes.back()) << b["block"];
    EXPECT_DOUBLE_EQ(b["lambda_min"].get<double>(), nodes.front()) << b["block"];
    EXPECT_GT(b["lambda_max"].get<double>(), 0.0) << b["block"];
  }
  const double n = static_cast<double>(blocks.size());
  EXPECT_NEAR(printed["log10_lambda_max_sd"].get<double>(),
              std::sqrt(squares / n - (sum / n) * (sum / n)), 1e-9);
  const std::string result = (dir_ / "blocks.json").string();
  std::ofstream(result) << r.out;
  Result drawn = fathom({"export", "plot", "analysis", result, "--kind", "block-hessian", "--out",
                         (dir_ / "blocks.svg").string()});
  ASSERT_EQ(drawn.status, 0) << drawn.err;
  EXPECT_NE(slurp(dir_ / "blocks.svg").find("spectral density"), std::string::npos);
  const std::string encoder = slurp(dir_ / "blocks-enc.svg");
  EXPECT_NE(encoder.find("self_attn.v"), std::string::npos);
  EXPECT_EQ(encoder.find("enc_attn"), std::string::npos);  // the encoder has no cross-attention
  EXPECT_NE(slurp(dir_ / "blocks-dec.svg").find("enc_attn.q"), std::string::npos);

  Result rezero = analyze(write_config("rezero.yaml", "  init: rezero\n"));
  ASSERT_EQ(rezero.status, 0) << rezero.err;
  const auto zero = nlohmann::json::parse(rezero.out);
  for (const auto& b : zero["blocks"]) {
    if (b["stack"] == "") {
      EXPECT_GT(b["lambda_max"].get<double>(), 0.0) << b["block"];
      continue;
    }
    EXPECT_EQ(b["lambda_max"].get<double>(), 0.0) << b["block"];
    EXPECT_EQ(b["lambda_min"].get<double>(), 0.0) << b["block"];
    EXPECT_EQ(b["steps"], 1) << b["block"];  // the first product is 0: an invariant subspace
  }
  EXPECT_EQ(zero["stiffest"], "source_embedding");
  EXPECT_EQ(zero["spread_decades"].get<double>(), 0.0);
  EXPECT_EQ(zero["log10_lambda_max_sd"].get<double>(), 0.0);  // one block
  auto store = Store::open(db(), OpenMode::ReadOnly);
  const auto rows = store.list_analyses(std::nullopt, "block-hessian");
  ASSERT_EQ(rows.size(), 2u);
  Result table = fathom({"analyze", "show", std::to_string(rows[1].id)});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("dec.0.enc_attn.k"), std::string::npos) << table.out;
  std::ofstream(dir_ / "zero.json") << rezero.out;
  Result one = fathom({"export", "plot", "analysis", (dir_ / "zero.json").string(), "--kind",
                       "block-hessian", "--out", (dir_ / "zero.svg").string()});
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_TRUE(fs::exists(dir_ / "zero.svg"));
  EXPECT_FALSE(fs::exists(dir_ / "zero-enc.svg"));  // no layer block with positive curvature
}

TEST_F(AnalyzeCli, RankCollapseOfAConfigIsStoredAndDrawn) {
  const std::string config = write_config("rezero.yaml", "  init: rezero\n");
  Result r = fathom({"analyze", "rank-collapse", config, "--json", "--no-progress"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto printed = nlohmann::json::parse(r.out);
  ASSERT_EQ(printed["stacks"].size(), 2u);
  const auto& encoder = printed["stacks"][0];
  EXPECT_EQ(encoder["stack"], "encoder");
  EXPECT_EQ(encoder["positions"], nlohmann::json({"enc.input", "enc.0.self_attn", "enc.0.ffn",
                                                  "enc.1.self_attn", "enc.1.ffn"}));
  EXPECT_EQ(printed["stacks"][1]["positions"],
            nlohmann::json({"dec.input", "dec.0.self_attn", "dec.0.enc_attn", "dec.0.ffn"}));
  for (const auto& stack : printed["stacks"]) {
    const double input = stack["token_cosine"][0].get<double>();
    EXPECT_GT(input, -1.0);
    EXPECT_LT(input, 1.0);
    for (const auto& c : stack["token_cosine"]) EXPECT_NEAR(c.get<double>(), input, 1e-6);
  }
  ASSERT_EQ(printed["attention"].size(), 4u);  // 2 encoder, 1 decoder self, 1 cross
  for (const auto& a : printed["attention"])
    for (const char* g : {"grad_q", "grad_k", "grad_v"}) EXPECT_EQ(a[g].get<double>(), 0.0);
  auto store = Store::open(db(), OpenMode::ReadOnly);
  const auto rows = store.list_analyses(std::nullopt, "rank-collapse");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(rows[0].result_json), printed);
  Result table = fathom({"analyze", "show", std::to_string(rows[0].id)});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("dec.0.enc_attn"), std::string::npos) << table.out;
  const std::string result = (dir_ / "rank.json").string();
  std::ofstream(result) << r.out;
  Result drawn = fathom({"export", "plot", "analysis", result, "--kind", "rank-collapse", "--out",
                         (dir_ / "rank.svg").string()});
  ASSERT_EQ(drawn.status, 0) << drawn.err;
  EXPECT_NE(slurp(dir_ / "rank.svg").find("cosine between tokens"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "rank-gradients.svg"));

  // The other stacks: a hyper-connection stack's rows are its sub-layers', a depth-wise LSTM
  // stack's its steps' (and its input o_0).
  for (const auto& [name, extra, encoder_rows] :
       std::vector<std::tuple<std::string, std::string, nlohmann::json>>{
           {"hyper.yaml",
            "  connection: hyper\n  hc_streams: 2\n  norm: pre\n",
            {"enc.input", "enc.0.self_attn", "enc.0.ffn", "enc.1.self_attn", "enc.1.ffn"}},
           {"lstm.yaml",
            "  connection: depthwise_lstm\n",
            {"enc.input", "enc.0.lstm", "enc.1.lstm"}}}) {
    Result other =
        fathom({"analyze", "rank-collapse", write_config(name, extra), "--json", "--no-progress"});
    ASSERT_EQ(other.status, 0) << name << ": " << other.err;
    const auto stacks = nlohmann::json::parse(other.out)["stacks"];
    EXPECT_EQ(stacks[0]["positions"], encoder_rows) << name;
    const auto attention = nlohmann::json::parse(other.out)["attention"];
    EXPECT_FALSE(attention.empty()) << name;
    for (const auto& a : attention) EXPECT_GT(a["grad_v"].get<double>(), 0.0) << name;
    if (name != "hyper.yaml") continue;
    std::ofstream(dir_ / "hyper.json") << other.out;
    Result both = fathom({"export", "plot", "analysis", (dir_ / "hyper.json").string(), "--kind",
                          "rank-collapse", "--out", (dir_ / "hyper.svg").string()});
    ASSERT_EQ(both.status, 0) << both.err;
    EXPECT_NE(slurp(dir_ / "hyper-gradients.svg").find("dW_Q"), std::string::npos);
    for (const auto& stack : stacks)
      for (const auto& c : stack["token_cosine"]) {
        EXPECT_GE(c.get<double>(), -1.0) << name;
        EXPECT_LE(c.get<double>(), 1.0) << name;
      }
  }
}

TEST_F(AnalyzeCli, RunCheckpointsAndOutputShiftAreStoredWithTheirRun) {
  const std::string config = write_config("tiny.yaml");
  Result train = fathom({"train", config, "--no-progress", "--set", "train.grad_norm_every=3"});
  ASSERT_EQ(train.status, 0) << train.err;
  {
    auto store = Store::open(db(), OpenMode::ReadOnly);
    const auto series = store.metric_series(1, "gradnorm.enc.1");
    ASSERT_EQ(series.size(), 2u);  // updates 3 and 6 of 6
    EXPECT_EQ(series[1].step, 6);
    EXPECT_GT(series[0].value, 0.0);
    EXPECT_EQ(store.metric_series(1, "gradnorm.dec.0").size(), 2u);
  }

  Result g = fathom({"analyze", "grad-norms", "1", "--checkpoint", "last", "--json"});
  ASSERT_EQ(g.status, 0) << g.err;
  const auto grads = nlohmann::json::parse(g.out);
  EXPECT_EQ(grads["groups"]["dec_enc_attn"].size(), 1u);
  double largest = 0;
  for (const auto& v : grads["relative"]) largest = std::max(largest, v.get<double>());
  EXPECT_DOUBLE_EQ(largest, 1.0);

  Result init = fathom({"analyze", "ln-scale", "tiny", "--checkpoint", "init"});
  ASSERT_EQ(init.status, 0) << init.err;
  EXPECT_NE(init.out.find("enc.0.self_attn.post_norm"), std::string::npos) << init.out;

  const std::string pre = write_config("pre.yaml", "  norm: pre\n");
  Result shift = fathom({"analyze", "output-shift", config, pre, "--depths", "1,2,3", "--draws",
                         "2", "--json", "--no-progress"});
  ASSERT_EQ(shift.status, 0) << shift.err;
  const auto s = nlohmann::json::parse(shift.out);
  ASSERT_EQ(s["configs"].size(), 2u);
  EXPECT_EQ(s["configs"][1]["norm"], "pre");
  EXPECT_EQ(s["configs"][0]["shift"].size(), 3u);
  EXPECT_TRUE(s["configs"][0]["linear"].contains("r2"));

  auto store = Store::open(db(), OpenMode::ReadOnly);
  const auto of_run = store.list_analyses(1);
  ASSERT_EQ(of_run.size(), 2u);
  EXPECT_EQ(of_run[0].kind, "grad-norms");
  EXPECT_EQ(of_run[0].checkpoint, "last");
  EXPECT_EQ(of_run[1].checkpoint, "init");
  EXPECT_EQ(store.list_analyses(std::nullopt, "output-shift").size(), 1u);
  EXPECT_FALSE(store.list_analyses(std::nullopt, "output-shift")[0].run_id.has_value());
}

// train.keep_checkpoint_every keeps the model along training; --checkpoint STEP analyses it,
// and a step that was not kept names the ones that were.
TEST_F(AnalyzeCli, KeptCheckpointsAreAnalysedByStep) {
  const std::string config = write_config("tiny.yaml");
  Result train =
      fathom({"train", config, "--no-progress", "--set", "train.keep_checkpoint_every=3"});
  ASSERT_EQ(train.status, 0) << train.err;
  const fs::path artifacts = dir_ / "runs.artifacts" / "run-1";
  // Kept under their holder's generation (the run's first claim: g1), recorded by kind.
  EXPECT_TRUE(fs::exists(artifacts / "checkpoint_3.g1.pt"));
  EXPECT_TRUE(fs::exists(artifacts / "checkpoint_6.g1.pt"));
  EXPECT_FALSE(fs::exists(artifacts / "checkpoint_1.g1.pt"));

  Result at3 = fathom({"analyze", "ln-scale", "1", "--checkpoint", "3", "--json"});
  ASSERT_EQ(at3.status, 0) << at3.err;
  Result at6 = fathom({"analyze", "ln-scale", "1", "--checkpoint", "06", "--json"});
  ASSERT_EQ(at6.status, 0) << at6.err;
  Result last = fathom({"analyze", "ln-scale", "1", "--checkpoint", "last", "--json"});
  ASSERT_EQ(last.status, 0) << last.err;
  // The model after update 6 of 6 is the last one; after update 3 it differs.
  EXPECT_EQ(nlohmann::json::parse(at6.out), nlohmann::json::parse(last.out));
  EXPECT_NE(nlohmann::json::parse(at3.out), nlohmann::json::parse(at6.out));

  Result missing = fathom({"analyze", "ln-scale", "1", "--checkpoint", "4"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("kept steps: 3 6"), std::string::npos) << missing.err;
  Result bad = fathom({"analyze", "ln-scale", "1", "--checkpoint", "newest"});
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("best, last, average, init"), std::string::npos) << bad.err;

  auto store = Store::open(db(), OpenMode::ReadOnly);
  const auto rows = store.list_analyses(1);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].checkpoint, "3");
  EXPECT_EQ(rows[1].checkpoint, "6");
}

// --average N analyses the mean of the N newest kept checkpoints: the model the trainer
// averaged for eval.average_checkpoints N (its checkpoint_average file) -- and --average-by
// best the kept checkpoints of the lowest validation loss (picked here from the stored curve).
TEST_F(AnalyzeCli, AveragedCheckpointsAreAnalysedAsTheTrainerAveragedThem) {
  const std::string config = write_config("tiny.yaml");
  Result train = fathom({"train", config, "--no-progress", "--set", "train.keep_checkpoint_every=3",
                         "eval.average_checkpoints=2"});
  ASSERT_EQ(train.status, 0) << train.err;
  const auto ln_scale = [&](std::vector<std::string> flags) {
    flags.insert(flags.begin(), {"analyze", "ln-scale", "1", "--json", "--no-progress"});
    const Result r = fathom(flags);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
  };
  const nlohmann::json trainers = ln_scale({"--checkpoint", "average"});
  EXPECT_EQ(ln_scale({"--average", "2"}), trainers);
  EXPECT_NE(ln_scale({"--checkpoint", "6"}), trainers);  // a mean is not its newest part

  auto store = Store::open(db(), OpenMode::ReadOnly);
  std::map<double, int64_t> by_loss;  // the kept updates 3 and 6, each validated
  for (const auto& p : store.metric_series(1, "valid_loss"))
    if (p.step > 0) by_loss[p.value] = p.step;
  ASSERT_EQ(by_loss.size(), 2u);
  const std::string best = std::to_string(by_loss.begin()->second);
  EXPECT_EQ(ln_scale({"--average", "1", "--average-by", "best"}), ln_scale({"--checkpoint", best}));
  std::set<std::string> recorded;  // what each stored analysis says it read
  for (const auto& r : store.list_analyses(1)) recorded.insert(r.checkpoint);
  EXPECT_TRUE(recorded.count("mean of 2, updates 3 6"));
  EXPECT_TRUE(recorded.count("mean of 1 best by valid_loss, updates " + best));
  const size_t analyses = store.list_analyses(1).size();

  const Result more = fathom({"analyze", "ln-scale", "1", "--average", "3"});
  EXPECT_EQ(more.status, 2);
  EXPECT_NE(more.err.find("run 1 kept 2 checkpoints (updates 3 6), fewer than 3"),
            std::string::npos)
      << more.err;
  const Result both = fathom({"analyze", "ln-scale", "1", "--average", "2", "--checkpoint", "3"});
  EXPECT_NE(both.status, 0);
  EXPECT_NE(both.err.find("excludes"), std::string::npos) << both.err;
  const Result at_init = fathom({"analyze", "ln-scale", config, "--average", "2"});
  EXPECT_EQ(at_init.status, 2);
  EXPECT_NE(at_init.err.find("--average reads a stored run"), std::string::npos) << at_init.err;
  EXPECT_EQ(Store::open(db(), OpenMode::ReadOnly).list_analyses(1).size(), analyses);
}

// --device (beta, grad-norms): the model computes where it is asked. On the CPU the flag gives
// the default's result; on a GPU the norms follow the CPU's within float32's reassociation
// error; where LibTorch sees no GPU the run exits 2 naming the flag and records nothing.
TEST_F(AnalyzeCli, GradNormsComputeOnTheDeviceAsked) {
  const std::string config = write_config("post.yaml");
  Result plain = fathom({"analyze", "grad-norms", config, "--json", "--no-progress"});
  ASSERT_EQ(plain.status, 0) << plain.err;
  Result on_cpu =
      fathom({"analyze", "grad-norms", config, "--device", "cpu", "--json", "--no-progress"});
  ASSERT_EQ(on_cpu.status, 0) << on_cpu.err;
  const auto expected = nlohmann::json::parse(plain.out);
  EXPECT_EQ(nlohmann::json::parse(on_cpu.out), expected);
  size_t recorded = 0;  // the same analysis with the same parameters is kept once
  {
    auto store = Store::open(db(), OpenMode::ReadOnly);
    const auto rows = store.list_analyses();
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(nlohmann::json::parse(rows.back().params_json)["device"], "cpu");
    recorded = rows.size();
  }
  const char* asked = std::getenv("FATHOM_TEST_DEVICE");
  const std::string gpu =
      asked != nullptr && std::string(asked).rfind("cuda", 0) == 0 ? asked : "cuda";
  Result on_gpu =
      fathom({"analyze", "grad-norms", config, "--device", gpu, "--json", "--no-progress"});
  if (on_gpu.status == 0) {
    const auto norms = nlohmann::json::parse(on_gpu.out)["norms"];
    ASSERT_EQ(norms.size(), expected["norms"].size());
    for (size_t i = 0; i < norms.size(); ++i) {
      const double want = expected["norms"][i].get<double>();
      EXPECT_NEAR(norms[i].get<double>(), want, 1e-3 * want + 1e-9) << i;
    }
  } else {
    ASSERT_EQ(asked, nullptr) << "FATHOM_TEST_DEVICE=" << asked << ": " << on_gpu.err;
    EXPECT_EQ(on_gpu.status, 2) << on_gpu.err;
    EXPECT_NE(on_gpu.err.find("--device"), std::string::npos) << on_gpu.err;
    EXPECT_NE(on_gpu.err.find("no GPU"), std::string::npos) << on_gpu.err;
    auto store = Store::open(db(), OpenMode::ReadOnly);
    EXPECT_EQ(store.list_analyses().size(), recorded);
  }
}

// layer-skip (the validation batches follow the model), sharpness (its Hessian-vector products
// run where the model is), output-shift (each depth's model is moved there once initialised) and
// linearize (its pairs, maps, training batches and evaluations follow the model) take --device
// too: on the CPU it gives the default's result, to the bit; a GPU LibTorch cannot see is
// refused naming the flag, before any work.
TEST_F(AnalyzeCli, LayerSkipSharpnessOutputShiftAndLinearizeTakeTheDeviceToo) {
  const std::string config = write_config("post.yaml");
  for (const std::vector<std::string>& analysis :
       {std::vector<std::string>{"layer-skip"},
        {"sharpness", "--iterations", "8"},
        {"output-shift", "--depths", "1,2", "--inits", "2"},
        {"linearize", "--layers", "enc:2,dec:1", "--steps", "6", "--eval-every", "3"}}) {
    SCOPED_TRACE(analysis[0]);
    std::vector<std::string> args = {"analyze"};
    args.insert(args.end(), analysis.begin(), analysis.end());
    args.insert(args.end(), {config, "--json", "--no-progress"});
    const Result plain = fathom(args);
    ASSERT_EQ(plain.status, 0) << plain.err;
    args.insert(args.end(), {"--device", "cpu"});
    const Result on_cpu = fathom(args);
    ASSERT_EQ(on_cpu.status, 0) << on_cpu.err;
    // Everything but output-shift's wall-clock seconds per depth.
    const auto computed = [](const std::string& out) {
      nlohmann::json j = nlohmann::json::parse(out);
      if (j.contains("configs"))
        for (auto& c : j["configs"]) c.erase("seconds");
      return j;
    };
    EXPECT_EQ(computed(on_cpu.out), computed(plain.out));
    if (std::getenv("FATHOM_TEST_DEVICE") != nullptr) continue;  // a GPU may be there
    args.back() = "cuda";
    const Result on_gpu = fathom(args);
    if (on_gpu.status == 0) continue;  // this LibTorch sees a GPU
    EXPECT_EQ(on_gpu.status, 2) << on_gpu.err;
    EXPECT_NE(on_gpu.err.find("--device"), std::string::npos) << on_gpu.err;
  }
}

TEST_F(AnalyzeCli, BadInputExitsTwoAndRecordsNothing) {
  const std::string lstm = write_config("lstm.yaml", "  connection: depthwise_lstm\n  norm: pre\n");
  Result r = fathom({"analyze", "beta", lstm});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("residual"), std::string::npos) << r.err;
  Result missing = fathom({"analyze", "beta", "nope.yaml"});
  EXPECT_EQ(missing.status, 2) << missing.err;
  // Flags come from their declarations (analysis/params.cpp): choices, ranges, required ones,
  // and only the flags the analysis reads.
  const std::string post = write_config("post.yaml");
  Result sideways =
      fathom({"analyze", "output-shift", post, "--depths", "1", "--perturb", "sideways"});
  EXPECT_NE(sideways.status, 0);
  EXPECT_NE(sideways.err.find("--perturb"), std::string::npos) << sideways.err;
  Result no_draws = fathom({"analyze", "output-shift", post, "--depths", "1", "--draws", "0"});
  EXPECT_NE(no_draws.status, 0);
  EXPECT_NE(no_draws.err.find("--draws"), std::string::npos) << no_draws.err;
  Result no_depths = fathom({"analyze", "output-shift", post});
  EXPECT_NE(no_depths.status, 0);
  EXPECT_NE(no_depths.err.find("--depths"), std::string::npos) << no_depths.err;
  Result foreign = fathom({"analyze", "beta", post, "--steps=5"});
  EXPECT_NE(foreign.status, 0);
  EXPECT_NE(foreign.err.find("--steps"), std::string::npos) << foreign.err;
  // The same flag with its value apart: the error names the flag, not "a second target".
  Result foreign_apart = fathom({"analyze", "beta", post, "--steps", "5"});
  EXPECT_NE(foreign_apart.status, 0);
  EXPECT_NE(foreign_apart.err.find("--steps"), std::string::npos) << foreign_apart.err;
  EXPECT_EQ(foreign_apart.err.find("target"), std::string::npos) << foreign_apart.err;
  Result two_targets = fathom({"analyze", "beta", post, post});
  EXPECT_EQ(two_targets.status, 2) << two_targets.err;
  EXPECT_NE(two_targets.err.find("exactly one RUN or CONFIG"), std::string::npos)
      << two_targets.err;
  Result help = fathom({"analyze", "linearize", "--help"});
  EXPECT_EQ(help.status, 0) << help.err;
  EXPECT_NE(help.out.find("validation checks without improvement"), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("--depths"), std::string::npos) << help.out;
  if (fs::exists(db())) {
    auto store = Store::open(db(), OpenMode::ReadOnly);
    EXPECT_TRUE(store.list_analyses().empty());
  }
}

TEST(AnalysesTable, AddListGetRoundTrip) {
  const fathom::testing::TempDir scratch;
  const fs::path path = scratch.path() / "runs.db";
  {
    auto store = Store::open(path.string());
    fathom::db::NewRun run;
    run.name = "r";
    run.config_json = "{}";
    const int64_t id = store.create_run(run);
    fathom::db::NewAnalysis a;
    a.run_id = id;
    a.kind = "beta";
    a.checkpoint = "best";
    a.params_json = R"({"x":1})";
    a.result_json = R"({"y":[1,2]})";
    a.elapsed_s = 1.5;
    const int64_t first = store.add_analysis(a);
    a.run_id.reset();
    a.kind = "output-shift";
    a.checkpoint = "";
    store.add_analysis(a);
    EXPECT_EQ(store.list_analyses().size(), 2u);
    EXPECT_EQ(store.list_analyses(id).size(), 1u);
    EXPECT_EQ(store.list_analyses(std::nullopt, "output-shift").size(), 1u);
    auto got = store.get_analysis(first);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->run_id, id);
    EXPECT_EQ(got->checkpoint, "best");
    EXPECT_EQ(got->result_json, a.result_json);
    EXPECT_DOUBLE_EQ(got->elapsed_s, 1.5);
    EXPECT_FALSE(store.get_analysis(first + 100));
  }
}

}  // namespace test_analysis_cli
