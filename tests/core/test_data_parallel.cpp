// Data-parallel runs with real processes and LibTorch's real Gloo backend (docs/distributed.md):
// `fathom train --nproc 2` against one process on the same global batch -- the same logged
// losses and, after 20 updates, the same parameters within float tolerance -- for Post-LN,
// Pre-LN, Admin (its profiling pass included), the depth-wise LSTM and a decoder-only model; a
// 2-rank run repeated bit for bit; rank 1 killed with SIGKILL mid-run (the run ends as failed and
// resumes on one process to the uninterrupted 2-rank run's losses); a cancelled 2-rank run; a
// stop during the ranks' shared BLEU decode; a one-rank group (train.reduce_backend named)
// against the plain run, with Gloo here and NCCL on a GPU; and the bad inputs refused before
// anything is stored.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "base/metrics/perplexity_bootstrap.h"
#include "base/util/process.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/fathom_cli_test.h"
#include "tests/support/wait_for_run.h"

namespace test_data_parallel {
namespace fs = std::filesystem;
using fathom::ProgramResult;
using fathom::db::OpenMode;
using fathom::db::Store;

// The synthetic task at a size where an update of 600 target tokens is about four batches of
// max_tokens 256: two per rank. No dropout, so one process and two draw nothing different.
std::string config_yaml(const std::string& model, const std::string& train) {
  return "name: dp\n"
         "device: cpu\n"
         "model: " +
         model +
         "\n"
         "data:\n"
         "  task: synthetic\n"
         "  synthetic: {vocab: 8, train_size: 400, valid_size: 20, test_size: 10}\n"
         "  max_tokens: 256\n"
         "train: " +
         train +
         "\n"
         "eval: {beam: 4, max_sentences: 10}\n";
}

// Buckets of 4 KiB: the models below have 15-40 KiB of gradients, so their all-reduce goes in
// several buckets, most of them started during the backward (train.reduce_overlap).
// Adam's eps at 1e-4: a parameter whose exact gradient is zero (the attention's key bias: a
// softmax does not see a constant added to every logit) gets float rounding noise as gradient,
// which Adam at eps 1e-8 would blow up into steps of +-lr that differ between any two summation
// orders. At 1e-4 such noise moves nothing, while the real gradients (>= 1e-4) train as usual.
const std::string kTrain =
    "{lr: 0.005, eps: 0.0001, warmup: 5, max_updates: 20, valid_every: 10, log_every: 5, "
    "threads: 1, update_tokens: 600, reduce_bucket_kb: 4}";
const std::string kEncoderDecoder =
    "{d_model: 16, heads: 2, d_ff: 32, encoder_layers: 2, decoder_layers: 2";

// Every metric row of a run by (name, step); the machine's readings (timings, the all-reduce's,
// which one process has not, the system metrics sys.*: db::metric::measures_the_machine) left
// out.
std::map<std::pair<std::string, int64_t>, double> metric_rows(const Store& store, int64_t run) {
  std::map<std::pair<std::string, int64_t>, double> rows;
  for (const std::string& name : store.metric_names(run)) {
    if (fathom::db::metric::measures_the_machine(name)) continue;
    for (const auto& p : store.metric_series(run, name)) rows[{name, p.step}] = p.value;
  }
  return rows;
}

std::map<std::string, torch::Tensor> checkpoint_parameters(const std::string& path) {
  torch::serialize::InputArchive archive;
  archive.load_from(path);
  std::map<std::string, torch::Tensor> out;
  for (const std::string& key : archive.keys()) {
    if (key.rfind("param__", 0) != 0) continue;
    torch::Tensor t;
    archive.read(key, t, /*is_buffer=*/true);
    out[key] = t;
  }
  return out;
}

class DataParallel : public fathom::testing::FathomCliTest {
 protected:
  std::string write_config(const std::string& name, const std::string& yaml) {
    const fs::path path = dir_ / (name + ".yaml");
    std::ofstream(path) << yaml;
    return path.string();
  }
  // Trains `config` on `nproc` processes; the new run's id.
  int64_t train(const std::string& config, int nproc) {
    const ProgramResult r =
        fathom({"train", config, "--nproc", std::to_string(nproc), "--no-progress", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return last_run_id();
  }
  int64_t last_run_id() const {
    int64_t last = 0;
    for (const auto& run : Store::open(db(), OpenMode::ReadOnly).list_runs())
      last = std::max(last, run.id);
    return last;
  }
  std::string artifact(int64_t run, const std::string& kind) const {
    for (const auto& a : Store::open(db(), OpenMode::ReadOnly).artifacts(run))
      if (a.kind == kind) return a.path;
    return "";
  }
  // One process against two on the same config: every logged value and every parameter.
  // `train_extra`: more train keys, "key: value, " each.
  void expect_equivalent(const std::string& model, const std::string& label,
                         const std::string& train_extra = "") {
    const std::string config =
        write_config(label, config_yaml(model, "{" + train_extra + kTrain.substr(1)));
    const int64_t one = train(config, 1);
    const int64_t two = train(config, 2);
    expect_same_training(one, two, model, label);
  }
  // Run `two` trained as run `one` did: the logged values, the final evaluation, parameters.
  void expect_same_training(int64_t one, int64_t two, const std::string& model,
                            const std::string& label) {
    const Store store = Store::open(db(), OpenMode::ReadOnly);
    EXPECT_EQ(store.find_run(std::to_string(two))->status, "finished") << label;
    const auto a = metric_rows(store, one), b = metric_rows(store, two);
    ASSERT_EQ(a.size(), b.size()) << label;
    ASSERT_GT(a.count({"train_loss", 20}), 0u) << label;
    for (const auto& [key, value] : a) {
      ASSERT_TRUE(b.count(key)) << label << " " << key.first << "@" << key.second;
      // Float sums in another order: equal to ~1e-7 relative; 1e-5 leaves room, nothing more.
      EXPECT_NEAR(b.at(key), value, 1e-5 * std::max(1.0, std::abs(value)))
          << label << " " << key.first << "@" << key.second;
    }
    // The final evaluation, shared by the ranks (each every second batch of the splits and of
    // the decode -- beam 4 leaves 64 tokens per decode batch, so the 10 test sentences take
    // two: rank 0 decodes 7, rank 1 3 -- rank 0 putting the translations back in order): the
    // same losses, the same lines.
    const auto final_one = store.export_run(one).run.final_metrics;
    const auto final_two = store.export_run(two).run.final_metrics;
    if (final_one.count("valid_bleu")) {  // train.valid_bleu
      ASSERT_TRUE(a.count({"valid_bleu", 10}) && a.count({"valid_bleu", 20})) << label;
      EXPECT_EQ(final_two.at("valid_bleu"), final_one.at("valid_bleu")) << label;
    }
    for (const char* name : {"valid_loss", "test_loss", "test_ppl"}) {
      ASSERT_TRUE(final_one.count(name) && final_two.count(name)) << label << " " << name;
      EXPECT_NEAR(final_two.at(name), final_one.at(name), 1e-5 * final_one.at(name))
          << label << " " << name;
    }
    // Every test segment's NLL, gathered from both ranks' batches: each one's own tokens (the
    // one-rank run's), none left at zero, and together the run's test_ppl.
    const auto nll_one = fathom::read_segment_nll_file(artifact(one, "test_nll"));
    const auto nll_two = fathom::read_segment_nll_file(artifact(two, "test_nll"));
    ASSERT_EQ(nll_two.size(), nll_one.size()) << label;
    for (size_t i = 0; i < nll_one.size(); ++i) {
      EXPECT_EQ(nll_two[i].tokens, nll_one[i].tokens) << label << " segment " << i;
      EXPECT_GT(nll_two[i].tokens, 0) << label << " segment " << i;
      EXPECT_NEAR(nll_two[i].nll, nll_one[i].nll, 1e-4 * nll_one[i].nll) << label << " " << i;
    }
    EXPECT_NEAR(fathom::corpus_perplexity(nll_two), final_two.at("test_ppl"),
                1e-6 * final_two.at("test_ppl"))
        << label;
    if (model.find("decoder_only") == std::string::npos) {
      const std::string hypotheses = fathom::testing::read_text(artifact(one, "hypotheses"));
      EXPECT_EQ(std::count(hypotheses.begin(), hypotheses.end(), '\n'), 10) << label;
      EXPECT_EQ(fathom::testing::read_text(artifact(two, "hypotheses")), hypotheses) << label;
      EXPECT_EQ(final_two.at("test_bleu"), final_one.at("test_bleu")) << label;
    }
    const auto p = checkpoint_parameters(artifact(one, "checkpoint_last"));
    const auto q = checkpoint_parameters(artifact(two, "checkpoint_last"));
    ASSERT_EQ(p.size(), q.size()) << label;
    ASSERT_FALSE(p.empty()) << label;
    for (const auto& [key, tensor] : p)
      EXPECT_TRUE(torch::allclose(tensor, q.at(key), 1e-4, 1e-6))
          << label << " " << key << " max diff " << (tensor - q.at(key)).abs().max().item<double>()
          << " of max " << tensor.abs().max().item<double>();
  }
};

// Post-LN with train.valid_bleu too: the ranks share each validation's decode as they share
// the final one, and the valid_bleu rows and final value equal one process's.
TEST_F(DataParallel, TwoRanksTrainPostLnAsOneProcess) {
  expect_equivalent(kEncoderDecoder + ", dropout: 0, norm: post}", "post", "valid_bleu: 8, ");
}

// With train.noise_scale: one process and two ranks read the same batches of each update (each
// batch's gradient, the one process's as its accumulation less the one before, a rank's within
// its share) against the same update's, so their noise.* rows agree as the losses do.
TEST_F(DataParallel, TwoRanksTrainPreLnAsOneProcess) {
  expect_equivalent(kEncoderDecoder + ", dropout: 0, norm: pre}", "pre", "noise_scale: true, ");
  const auto readings = Store::open(db(), OpenMode::ReadOnly)
                            .metric_series(last_run_id(), fathom::db::metric::kNoiseUpdates);
  ASSERT_EQ(readings.size(), 4u);  // log points 5, 10, 15, 20, a reading from every update
  for (const auto& point : readings) EXPECT_EQ(point.value, 5.0) << "update " << point.step;
}

TEST_F(DataParallel, TwoRanksTrainAdminWithItsProfilingAsOneProcess) {
  expect_equivalent(kEncoderDecoder + ", dropout: 0, norm: post, init: admin}", "admin");
}

TEST_F(DataParallel, TwoRanksTrainTheDepthWiseLstmAsOneProcess) {
  expect_equivalent(kEncoderDecoder + ", dropout: 0, connection: depthwise_lstm}", "lstm");
}

TEST_F(DataParallel, TwoRanksTrainADecoderOnlyModelAsOneProcess) {
  expect_equivalent(
      "{arch: decoder_only, d_model: 16, heads: 2, d_ff: 32, decoder_layers: 2, "
      "dropout: 0}",
      "decoder_only");
}

// The seed papers' protocol on two ranks: rank 0 keeps the newest three checkpoints without
// the optimizer state (train.keep_checkpoints, keep_checkpoint_optimizer) and the final
// evaluation, shared by the ranks, measures their mean -- the same values and translations as
// one process's.
TEST_F(DataParallel, TwoRanksEvaluateTheMeanOfTheirNewestKeptCheckpointsAsOneProcess) {
  const std::string model = kEncoderDecoder + ", dropout: 0, norm: pre}";
  std::string yaml = config_yaml(
      model, "{keep_checkpoint_every: 5, keep_checkpoints: 3, keep_checkpoint_optimizer: false, " +
                 kTrain.substr(1));
  yaml.replace(yaml.find("eval: {"), 7, "eval: {average_checkpoints: 3, ");
  const std::string config = write_config("averaged", yaml);
  const int64_t one = train(config, 1);
  const int64_t two = train(config, 2);
  expect_same_training(one, two, model, "averaged");
  const Store store = Store::open(db(), OpenMode::ReadOnly);
  for (int64_t run : {one, two}) {
    EXPECT_EQ(store.tags(run).at("final_model"), "mean of 3 checkpoints, updates 10 15 20");
    std::vector<std::string> kept;
    for (const auto& a : store.artifacts(run))
      if (a.kind.rfind("checkpoint_", 0) == 0 && std::isdigit(a.kind.back()))
        kept.push_back(a.kind);
    EXPECT_EQ(kept, (std::vector<std::string>{"checkpoint_10", "checkpoint_15", "checkpoint_20"}));
  }
  const auto p = checkpoint_parameters(artifact(one, "checkpoint_average"));
  const auto q = checkpoint_parameters(artifact(two, "checkpoint_average"));
  ASSERT_FALSE(p.empty());
  for (const auto& [key, tensor] : p)
    EXPECT_TRUE(torch::allclose(tensor, q.at(key), 1e-4, 1e-6)) << key;
}

TEST_F(DataParallel, ATwoRankRunRepeatsBitForBit) {
  // With dropout: each rank draws its own masks, the same ones every time.
  const std::string config =
      write_config("repeat", config_yaml(kEncoderDecoder + ", dropout: 0.1}", kTrain));
  const int64_t first = train(config, 2);
  const int64_t second = train(config, 2);
  const Store store = Store::open(db(), OpenMode::ReadOnly);
  EXPECT_EQ(metric_rows(store, first), metric_rows(store, second));
  const auto p = checkpoint_parameters(artifact(first, "checkpoint_last"));
  const auto q = checkpoint_parameters(artifact(second, "checkpoint_last"));
  for (const auto& [key, tensor] : p) EXPECT_TRUE(torch::equal(tensor, q.at(key))) << key;
}

// Starting buckets from the gradient accumulators' hooks during the backward sums the same
// numbers as reducing every bucket after it: the runs agree bit for bit, dropout included, and
// only the overlapped one reports reducing inside the backward. With checkpoint_activations
// the layers' gradients are accumulated in nested backwards (core/model/checkpointed_layer.cpp),
// still once per parameter and backward. train.noise_scale reads each rank's batches before the
// reduction -- while the overlapped buckets already reduce -- and its rows agree too, one
// reading from every update of each log window.
TEST_F(DataParallel, OverlappedReductionEqualsReductionAfterTheBackwardBitForBit) {
  for (const std::string checkpointing : {"false", "true"}) {
    SCOPED_TRACE("checkpoint_activations: " + checkpointing);
    const std::string settings = kTrain.substr(0, kTrain.size() - 1) +
                                 ", noise_scale: true, checkpoint_activations: " + checkpointing;
    const std::string model = kEncoderDecoder + ", dropout: 0.1}";
    const int64_t overlapped =
        train(write_config("on-" + checkpointing,
                           config_yaml(model, settings + ", reduce_overlap: true}")),
              2);
    const int64_t after =
        train(write_config("off-" + checkpointing,
                           config_yaml(model, settings + ", reduce_overlap: false}")),
              2);
    const Store store = Store::open(db(), OpenMode::ReadOnly);
    EXPECT_EQ(metric_rows(store, overlapped), metric_rows(store, after));
    const auto p = checkpoint_parameters(artifact(overlapped, "checkpoint_last"));
    const auto q = checkpoint_parameters(artifact(after, "checkpoint_last"));
    ASSERT_FALSE(p.empty());
    for (const auto& [key, tensor] : p) EXPECT_TRUE(torch::equal(tensor, q.at(key))) << key;
    double inside_backward = 0;
    for (const auto& point : store.metric_series(overlapped, "allreduce_overlap_s"))
      inside_backward += point.value;
    EXPECT_GT(inside_backward, 0.0);
    const auto none = store.metric_series(after, "allreduce_overlap_s");
    ASSERT_FALSE(none.empty());
    for (const auto& point : none) EXPECT_EQ(point.value, 0.0) << "update " << point.step;
    const auto readings = store.metric_series(overlapped, fathom::db::metric::kNoiseUpdates);
    ASSERT_EQ(readings.size(), 4u);  // log points 5, 10, 15, 20
    for (const auto& point : readings) EXPECT_EQ(point.value, 5.0) << "update " << point.step;
  }
}

// A run of one process whose backend is named (train.reduce_backend: gloo) trains in a one-rank
// group: the gradients go through the buckets, the all-reduce and the header's loss sums. That
// path must leave the run as the plain one trains it, dropout included (rank 0 draws from the
// plain run's stream), to the bit: a sum over one rank changes no value.
TEST_F(DataParallel, AOneRankGroupTrainsAsThePlainRunBitForBit) {
  const std::string model = kEncoderDecoder + ", dropout: 0.1}";
  const std::string settings = kTrain.substr(0, kTrain.size() - 1);
  const int64_t plain = train(write_config("plain", config_yaml(model, kTrain)), 1);
  const int64_t grouped =
      train(write_config("group", config_yaml(model, settings + ", reduce_backend: gloo}")), 1);
  const Store store = Store::open(db(), OpenMode::ReadOnly);
  EXPECT_EQ(metric_rows(store, plain), metric_rows(store, grouped));
  EXPECT_FALSE(store.metric_series(grouped, "allreduce_s").empty()) << "no reduction was timed";
  EXPECT_TRUE(store.metric_series(plain, "allreduce_s").empty());
  const auto p = checkpoint_parameters(artifact(plain, "checkpoint_last"));
  const auto q = checkpoint_parameters(artifact(grouped, "checkpoint_last"));
  ASSERT_FALSE(p.empty());
  for (const auto& [key, tensor] : p) EXPECT_TRUE(torch::equal(tensor, q.at(key))) << key;
}

// The NCCL group on a GPU (issue 55): a one-rank NCCL run trains as the plain run on the same
// GPU, within float tolerance (cuBLAS may pick other kernels between processes). Only where a
// GPU is (scripts/gpu/check.sh runs it); the CPU build refuses nccl (the test below).
TEST_F(DataParallel, AOneRankNcclRunTrainsAsThePlainRunOnCuda) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA GPU (scripts/gpu/check.sh)";
  const std::string model = kEncoderDecoder + ", dropout: 0, norm: pre}";
  const std::string settings = kTrain.substr(0, kTrain.size() - 1);
  auto on_gpu = [](std::string yaml) {
    return yaml.replace(yaml.find("device: cpu"), 11, "device: cuda");
  };
  const int64_t plain = train(write_config("plain", on_gpu(config_yaml(model, kTrain))), 1);
  const int64_t nccl = train(
      write_config("nccl", on_gpu(config_yaml(model, settings + ", reduce_backend: nccl}"))), 1);
  expect_same_training(plain, nccl, model, "nccl");
  const Store store = Store::open(db(), OpenMode::ReadOnly);
  EXPECT_FALSE(store.metric_series(nccl, "allreduce_s").empty()) << "no reduction was timed";
}

// The pid of `fathom rank --rank 1` whose parent is `leader`; 0 while there is none.
pid_t rank_one_of(pid_t leader) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = fathom::testing::read_text(entry.path() / "cmdline");
    for (char& c : cmdline)
      if (c == '\0') c = ' ';
    if (cmdline.find(" rank ") == std::string::npos ||
        cmdline.find("--rank 1 ") == std::string::npos)
      continue;
    const std::string stat = fathom::testing::read_text(entry.path() / "stat");
    const auto close = stat.rfind(')');
    int parent = 0;
    if (close != std::string::npos &&
        std::sscanf(stat.c_str() + close + 2, "%*c %d", &parent) == 1 && parent == leader)
      return static_cast<pid_t>(std::stoi(name));
  }
  return 0;
}

class DataParallelFaults : public DataParallel {
 protected:
  // `fathom train CONFIG --nproc 2` in the background (stderr to train.err); its pid.
  pid_t start_training(const std::string& config) {
    return fathom::testing::start_in_background(
        {binary_.string(), "--db", db(), "train", config, "--nproc", "2", "--no-progress"},
        (dir_ / "train.err").string());
  }
  bool wait_for_updates(int64_t updates) {
    return fathom::testing::wait_for_running_updates(db(), updates, 180, 20);
  }
  // A 2-rank run with no end in sight and train.rank_timeout_s 5, started and past its tenth
  // update: rank 0's pid and rank 1's (0 where it did not get there).
  std::pair<pid_t, pid_t> start_endless_run_with_rank_timeout(const std::string& name) {
    const std::string config = write_config(
        name, config_yaml(kEncoderDecoder + ", dropout: 0}",
                          "{lr: 0.005, warmup: 5, max_updates: 100000, valid_every: 50, "
                          "log_every: 5, threads: 1, update_tokens: 600, rank_timeout_s: 5}"));
    const pid_t leader = start_training(config);
    return {leader, wait_for_updates(10) ? rank_one_of(leader) : 0};
  }
  // The exit status of `pid` once it ended (at most `seconds`); -1 if it did not.
  static int wait_exit(pid_t pid, int seconds) {
    for (int i = 0; i < seconds * 50; ++i) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid)
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    return -1;
  }
};

// lr 0.003, not kTrain's 0.005: compared across world sizes over 120 updates, the run must stay
// off the edge of stability. At 0.005 this model turns chaotic after ~60 updates: one process
// and two ranks (summation orders apart, 1e-7) drift to 3e-3 relative in grad_norm by update
// 115, with the foreach ops or the fused kernel alike; at 0.003 they stay within 2e-7 (LibTorch
// 2.6, measured; docs/distributed.md).
const std::string kLongTrain =
    "{lr: 0.003, eps: 0.0001, warmup: 5, max_updates: 120, valid_every: 20, log_every: 5, "
    "threads: 1, update_tokens: 600, reduce_bucket_kb: 4}";

TEST_F(DataParallelFaults, RankOneKilledEndsTheRunWhichResumesOnOneProcessToTheSameLosses) {
  const std::string config =
      write_config("long", config_yaml(kEncoderDecoder + ", dropout: 0}", kLongTrain));
  const int64_t whole = train(config, 2);  // the uninterrupted 2-rank run
  const pid_t leader = start_training(config);
  ASSERT_TRUE(wait_for_updates(45)) << fathom::testing::read_text(dir_ / "train.err");
  const int64_t killed = last_run_id();
  const pid_t rank_one = rank_one_of(leader);
  ASSERT_GT(rank_one, 0);
  ASSERT_EQ(kill(rank_one, SIGKILL), 0);
  // Rank 0 learns it at its next all-reduce: it ends the run as a crash does, and trains no more.
  const int status = wait_exit(leader, 60);
  const std::string err = fathom::testing::read_text(dir_ / "train.err");
  EXPECT_EQ(status, 1) << err;
  EXPECT_NE(err.find("another rank died"), std::string::npos) << err;
  int64_t reached = 0;
  {
    const Store store = Store::open(db(), OpenMode::ReadOnly);
    const auto run = store.find_run(std::to_string(killed));
    EXPECT_EQ(run->status, "failed");
    reached = store.last_metric_step(killed, "train_loss");
    EXPECT_LT(reached, 120);
  }
  // Resumed on one process: from its last checkpoint to the end, the 2-rank run's losses.
  const ProgramResult resumed =
      fathom({"train", "--resume", std::to_string(killed), "--nproc", "1", "--no-progress"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const Store store = Store::open(db(), OpenMode::ReadOnly);
  EXPECT_EQ(store.find_run(std::to_string(killed))->status, "finished");
  const auto a = metric_rows(store, whole), b = metric_rows(store, killed);
  EXPECT_EQ(a.size(), b.size());
  for (const auto& [key, value] : a) {
    ASSERT_TRUE(b.count(key)) << key.first << "@" << key.second;
    EXPECT_NEAR(b.at(key), value, 1e-4 * std::max(1.0, std::abs(value)))
        << key.first << "@" << key.second;
  }
}

const std::string kEndless =
    "{lr: 0.005, warmup: 5, max_updates: 100000, valid_every: 50, log_every: 5, threads: 1, "
    "update_tokens: 600}";

// A rank that hangs (SIGSTOP) is waited for train.rank_timeout_s seconds, no longer: rank 0's
// all-reduce then fails and the run ends as failed, never trains on alone.
TEST_F(DataParallelFaults, AHungRankEndsTheRunAfterTheRankTimeout) {
  const auto [leader, rank_one] = start_endless_run_with_rank_timeout("hang");
  ASSERT_GT(rank_one, 0) << fathom::testing::read_text(dir_ / "train.err");
  ASSERT_EQ(kill(rank_one, SIGSTOP), 0);
  const auto stopped = std::chrono::steady_clock::now();
  const int status = wait_exit(leader, 90);
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - stopped).count();
  kill(rank_one, SIGKILL);  // if rank 0 had not reaped it (it does, within its grace period)
  const std::string err = fathom::testing::read_text(dir_ / "train.err");
  EXPECT_EQ(status, 1) << err;
  EXPECT_NE(err.find("hung"), std::string::npos) << err;
  // The timeout, not at once. It runs from when rank 0 entered the all-reduce, which under a
  // loaded machine may be a second or more before the stop (waiting for rank 1's share).
  EXPECT_GE(waited, 2.0);
  const Store store = Store::open(db(), OpenMode::ReadOnly);
  EXPECT_EQ(store.find_run(std::to_string(last_run_id()))->status, "failed");
}

// The other way round: rank 0 frozen (SIGSTOP; a stalled machine), so its rendezvous store
// answers nothing. Rank 1's all-reduce gives up after train.rank_timeout_s and the rank must then
// end: its stop relay, blocked on the store's socket, once kept it from exiting at all.
TEST_F(DataParallelFaults, AFrozenRankZeroLetsTheOtherRanksEnd) {
  const auto [leader, rank_one] = start_endless_run_with_rank_timeout("frozen");
  ASSERT_GT(rank_one, 0) << fathom::testing::read_text(dir_ / "train.err");
  ASSERT_EQ(kill(leader, SIGSTOP), 0);
  // Rank 1 is rank 0's child: ended, it stays a zombie until its stopped parent reaps it.
  const auto ended = [&] {
    const std::string stat =
        fathom::testing::read_text(fs::path("/proc") / std::to_string(rank_one) / "stat");
    const auto close = stat.rfind(')');
    return stat.empty() || (close != std::string::npos && stat.substr(close + 2, 1) == "Z");
  };
  const auto stopped = std::chrono::steady_clock::now();
  while (!ended() && std::chrono::steady_clock::now() - stopped < std::chrono::seconds(60))
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - stopped).count();
  const bool rank_one_ended = ended();
  kill(rank_one, SIGKILL);
  kill(leader, SIGKILL);  // a stopped process still takes SIGKILL
  kill(leader, SIGCONT);
  wait_exit(leader, 30);
  EXPECT_TRUE(rank_one_ended) << "rank 1 still running " << waited << " s after rank 0 froze";
  EXPECT_GE(waited, 2.0);  // after the timeout, not at once
  const std::string err = fathom::testing::read_text(dir_ / "train.err");
  EXPECT_NE(err.find("all-reduce failed"), std::string::npos) << err;
}

// `fathom cancel` takes the run from rank 0 (exit status 3, as a single process); rank 1 ends
// with it, and nothing is written after the cancel.
TEST_F(DataParallelFaults, CancelStopsEveryRank) {
  const std::string config =
      write_config("cancel", config_yaml(kEncoderDecoder + ", dropout: 0}", kEndless));
  const pid_t leader = start_training(config);
  ASSERT_TRUE(wait_for_updates(10)) << fathom::testing::read_text(dir_ / "train.err");
  const pid_t rank_one = rank_one_of(leader);
  ASSERT_GT(rank_one, 0);
  const ProgramResult cancel = fathom({"cancel", std::to_string(last_run_id())});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  const auto at_cancel = Store::open(db(), OpenMode::ReadOnly).export_run(last_run_id());
  EXPECT_EQ(wait_exit(leader, 60), 3) << fathom::testing::read_text(dir_ / "train.err");
  EXPECT_FALSE(fathom::process_alive(rank_one, "rank"));  // reaped by rank 0 before it exited
  const auto after = Store::open(db(), OpenMode::ReadOnly).export_run(last_run_id());
  EXPECT_EQ(after.run.status, "cancelled");
  EXPECT_EQ(after.metrics, at_cancel.metrics);
}

// SIGTERM to rank 0 alone (a time limit's warning, a `kill`): the ranks agree on it in the next
// update's reduction and stop at one update boundary; rank 0 checkpoints exactly the updates
// done, and a resume on two processes finishes the run.
TEST_F(DataParallelFaults, SigtermToRankZeroStopsBothRanksAtOneUpdate) {
  const std::string config =
      write_config("stop", config_yaml(kEncoderDecoder + ", dropout: 0}",
                                       "{lr: 0.005, warmup: 5, max_updates: 400, valid_every: 50, "
                                       "log_every: 5, threads: 1, update_tokens: 600}"));
  const pid_t leader = start_training(config);
  ASSERT_TRUE(wait_for_updates(10)) << fathom::testing::read_text(dir_ / "train.err");
  const pid_t rank_one = rank_one_of(leader);
  ASSERT_GT(rank_one, 0);
  ASSERT_EQ(kill(leader, SIGTERM), 0);
  const std::string err = fathom::testing::read_text(dir_ / "train.err");
  EXPECT_EQ(wait_exit(leader, 60), 128 + SIGTERM) << err;
  EXPECT_FALSE(fathom::process_alive(rank_one, "rank"));
  const int64_t run = last_run_id();
  int64_t stopped_at = 0;
  {
    const Store store = Store::open(db(), OpenMode::ReadOnly);
    const auto record = store.find_run(std::to_string(run));
    EXPECT_EQ(record->status, "cancelled");
    stopped_at = record->updates;
    EXPECT_GT(stopped_at, 0);
    EXPECT_LT(stopped_at, 400);
  }
  EXPECT_NE(artifact(run, "checkpoint_last"), "");
  const ProgramResult resumed =
      fathom({"train", "--resume", std::to_string(run), "--no-progress"});  // 2, as stored
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const Store store = Store::open(db(), OpenMode::ReadOnly);
  EXPECT_EQ(store.find_run(std::to_string(run))->status, "finished");
  EXPECT_EQ(store.last_metric_step(run, "train_loss"), 400);
}

// SIGTERM to rank 0 while the ranks share a validation's BLEU decode: the decode ends on both
// ranks at their next batch (the ranks agree on it in the decode's barrier) instead of running
// to its end, the run stops after that update with the point recorded as pending in the
// checkpoint, and the resumed 2-rank run decodes it first: every row then equals the
// uninterrupted run's. The stop is sent once the validation's samples (stored just before the
// decode) appear; the decode of 1,500 sentences takes hundreds of times the reaction. Fails if
// the ranks decode on through a stop, lose the point, or disagree (a rank left waiting in the
// barrier hangs the run).
TEST_F(DataParallelFaults, AStopDuringTheSharedBleuDecodeEndsItAndTheResumeDecodesItFirst) {
  std::string yaml = config_yaml(
      kEncoderDecoder + ", dropout: 0}",
      "{lr: 0.005, eps: 0.0001, warmup: 5, max_updates: 20, valid_every: 10, log_every: 5, "
      "threads: 1, update_tokens: 600, valid_bleu: 1500, valid_samples: 1}");
  yaml.replace(yaml.find("valid_size: 20"), 14, "valid_size: 1500");
  const std::string config = write_config("bleu-stop", yaml);
  const int64_t whole = train(config, 2);

  const pid_t leader = start_training(config);
  const int64_t run = whole + 1;
  bool decoding = false;
  for (int i = 0; i < 180 * 50 && !decoding; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    try {
      decoding = Store::open(db(), OpenMode::ReadOnly).tags(run).count("samples.u10") > 0;
    } catch (const std::exception&) {  // the run is not there yet
    }
  }
  ASSERT_TRUE(decoding) << fathom::testing::read_text(dir_ / "train.err");
  const pid_t rank_one = rank_one_of(leader);
  ASSERT_GT(rank_one, 0);
  ASSERT_EQ(kill(leader, SIGTERM), 0);
  EXPECT_EQ(wait_exit(leader, 60), 128 + SIGTERM) << fathom::testing::read_text(dir_ / "train.err");
  EXPECT_FALSE(fathom::process_alive(rank_one, "rank"));
  {
    const Store store = Store::open(db(), OpenMode::ReadOnly);
    const auto record = store.find_run(std::to_string(run));
    EXPECT_EQ(record->status, "cancelled");
    EXPECT_EQ(record->updates, 10);
    const auto rows = metric_rows(store, run);
    EXPECT_TRUE(rows.count({"valid_loss", 10}));
    EXPECT_FALSE(rows.count({"valid_bleu", 10})) << "the stop waited for the decode";
  }
  torch::serialize::InputArchive archive;
  archive.load_from(artifact(run, "checkpoint_last"));
  torch::Tensor pending;
  archive.read("state_valid_bleu_pending", pending, /*is_buffer=*/true);
  EXPECT_EQ(pending.item<int64_t>(), 10);

  const ProgramResult resumed =
      fathom({"train", "--resume", std::to_string(run), "--no-progress"});  // 2, as stored
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const Store store = Store::open(db(), OpenMode::ReadOnly);
  EXPECT_EQ(store.find_run(std::to_string(run))->status, "finished");
  const auto a = metric_rows(store, whole), b = metric_rows(store, run);
  ASSERT_TRUE(a.count({"valid_bleu", 10}) && a.count({"valid_bleu", 20}));
  EXPECT_EQ(a.size(), b.size());
  for (const auto& [key, value] : a) {
    ASSERT_TRUE(b.count(key)) << key.first << "@" << key.second;
    EXPECT_NEAR(b.at(key), value, 1e-5 * std::max(1.0, std::abs(value)))
        << key.first << "@" << key.second;
  }
  EXPECT_EQ(store.export_run(run).run.final_metrics.at("valid_bleu"),
            store.export_run(whole).run.final_metrics.at("valid_bleu"));
}

// A sweep's run of train.processes 2 takes two of the local launcher's worker slots: with
// --jobs 2 the sweep's two runs train one after the other, each on two ranks.
TEST_F(DataParallel, ASweepRunOfTwoProcessesTakesTwoWorkerSlots) {
  write_config("base", config_yaml(kEncoderDecoder + ", dropout: 0}",
                                   "{lr: 0.005, warmup: 5, max_updates: 30, valid_every: 10, "
                                   "log_every: 5, threads: 1, update_tokens: 600, processes: 2}"));
  const std::string sweep =
      write_config("sweep", "name: dpsweep\nbase: base.yaml\ngrid:\n  model.norm: [post, pre]\n");
  const ProgramResult r = fathom({"sweep", sweep, "--jobs", "2", "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto runs = Store::open(db(), OpenMode::ReadOnly).list_runs();
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& run : runs) EXPECT_EQ(run.status, "finished") << run.error;
  const auto& [first, second] = runs[0].started_at < runs[1].started_at
                                    ? std::pair(runs[0], runs[1])
                                    : std::pair(runs[1], runs[0]);
  EXPECT_LE(first.finished_at, second.started_at) << "two 2-process runs shared 2 slots";
}

TEST_F(DataParallel, BadProcessCountsAndPortsAreRefusedBeforeAnythingIsStored) {
  const std::string config =
      write_config("bad", config_yaml(kEncoderDecoder + ", dropout: 0}", kTrain));
  ProgramResult r = fathom({"train", config, "--nproc", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--nproc"), std::string::npos) << r.err;
  // Four ranks need more than three batches of max_tokens per update.
  r = fathom({"train", config, "--nproc", "4"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("train.update_tokens"), std::string::npos) << r.err;
  // A rendezvous port someone else holds.
  const int holder = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  ASSERT_EQ(bind(holder, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(holder, 1), 0);
  socklen_t length = sizeof address;
  getsockname(holder, reinterpret_cast<sockaddr*>(&address), &length);
  const int port = ntohs(address.sin_port);
  r = fathom({"train", config, "--nproc", "2", "--rendezvous-port", std::to_string(port)});
  close(holder);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--rendezvous-port"), std::string::npos) << r.err;
  // NCCL for CPU ranks (or in a build without it, Debian 12's).
  r = fathom({"train", config, "--nproc", "2", "--set", "train.reduce_backend=nccl"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("train.reduce_backend"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(db())) << "nothing may be stored for a refused run";
}

}  // namespace test_data_parallel
