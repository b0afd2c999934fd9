// `fathom prune` as a user runs it: without --yes it lists the kept checkpoints beyond the
// newest N and their size (the files' own sizes) and removes nothing; with --yes their rows and
// files go and nothing else of the run (the best and last checkpoints, the hypotheses stay;
// `translate --checkpoint` names what is left). A run that may still train, or be resumed into
// a final evaluation averaging more than N, is left as it is; a name no run has removes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/util/process.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"
#include "tests/support/toy_corpus.h"

namespace test_prune_cli {
namespace fs = std::filesystem;
using fathom::ProgramResult;

class PruneCli : public ::testing::Test {
 protected:
  fs::path dir() const { return scratch_.path(); }
  ProgramResult fathom(std::vector<std::string> args) const {
    args.insert(args.begin(), {fathom::testing::built_fathom_binary().string(), "--db",
                               (dir() / "runs.db").string()});
    return fathom::run_program(args, "", {}, 300);
  }
  fathom::db::Store store() const { return fathom::db::Store::open((dir() / "runs.db").string()); }
  std::vector<std::string> kinds(int64_t run) const {
    std::vector<std::string> out;
    for (const auto& a : store().artifacts(run)) out.push_back(a.kind);
    return out;
  }
  std::string path_of(int64_t run, const std::string& kind) const {
    for (const auto& a : store().artifacts(run))
      if (a.kind == kind) return a.path;
    return "";
  }
  // A run written straight into the store, with kept checkpoints of `bytes` bytes each at
  // `updates` (files in the run's folder), `status` and the config JSON `config`.
  int64_t stored_run(const std::string& name, const std::string& status,
                     const std::vector<int>& updates, size_t bytes,
                     const std::string& config = "{}") const {
    auto s = store();
    fathom::db::NewRun r;
    r.name = name;
    r.config_json = config;
    const int64_t id = s.create_run(r);
    const fs::path folder = dir() / "runs.artifacts" / ("run-" + std::to_string(id));
    fs::create_directories(folder);
    for (int u : updates) {
      const fs::path file = folder / ("checkpoint_" + std::to_string(u) + ".g1.pt");
      std::ofstream(file) << std::string(bytes, 'x');
      s.add_artifact(id, "checkpoint_" + std::to_string(u), file.string(), u);
    }
    if (status != "queued") s.mark_running(id, "host", "cpu");
    if (status != "queued" && status != "running") s.finish_run(id, status);
    return id;
  }

  // A file of `bytes` bytes in run `id`'s folder, recorded as its `kind` at `update`.
  std::string add_file(int64_t id, const std::string& kind, int update, size_t bytes) const {
    const fs::path file =
        dir() / "runs.artifacts" / ("run-" + std::to_string(id)) / (kind + ".g1.pt");
    std::ofstream(file) << std::string(bytes, 'x');
    store().add_artifact(id, kind, file.string(), update);
    return file.string();
  }

  // Trains run 1 on a toy corpus: 30 updates, checkpoints kept at 10, 20 and 30.
  void train_toy() const {
    std::mt19937_64 rng(5);
    for (const auto& [split, pairs] :
         {std::pair<std::string, int>{"train", 400}, {"valid", 10}, {"test", 10}})
      fathom::testing::write_word_for_word_corpus(dir() / "corpus", split, pairs, rng);
    std::ofstream(dir() / "toy.yaml")
        << "name: toy\ndevice: cpu\n"
           "model: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: 1}\n"
           "data: {task: parallel, train_source: corpus/train.de, train_target: corpus/train.en,\n"
           "       valid_source: corpus/valid.de, valid_target: corpus/valid.en,\n"
           "       test_source: corpus/test.de, test_target: corpus/test.en,\n"
           "       vocab: {size: 40}, max_tokens: 256}\n"
           "train: {lr: 0.01, warmup: 5, max_updates: 30, valid_every: 10, log_every: 10,\n"
           "        threads: 1, keep_checkpoint_every: 10}\n"
           "eval: {beam: 1}\n";
    const ProgramResult trained = fathom({"train", (dir() / "toy.yaml").string(), "--no-progress"});
    ASSERT_EQ(trained.exit_code, 0) << trained.err;
  }

  fathom::testing::TempDir scratch_;
};

TEST_F(PruneCli, ListsThenRemovesTheKeptCheckpointsBeyondTheNewestAndNothingElse) {
  ASSERT_NO_FATAL_FAILURE(train_toy());
  const std::vector<std::string> before = kinds(1);
  const std::string c10 = path_of(1, "checkpoint_10"), c20 = path_of(1, "checkpoint_20");
  ASSERT_TRUE(fs::exists(c10) && fs::exists(c20) && fs::exists(path_of(1, "checkpoint_30")));

  const ProgramResult listed = fathom({"--json", "prune", "1", "--keep", "1"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const auto plan = nlohmann::json::parse(listed.out);
  EXPECT_FALSE(plan.at("pruned").get<bool>());
  EXPECT_EQ(plan.at("runs").at(0).at("removed"), nlohmann::json::parse("[10, 20]"));
  EXPECT_EQ(plan.at("runs").at(0).at("kept"), nlohmann::json::parse("[30]"));
  // Update 20's kept checkpoint is also the run's fallback resume point (a resume point at a
  // kept update is that file under a second name): removing the kept name frees nothing.
  ASSERT_TRUE(fs::equivalent(c20, path_of(1, "checkpoint_previous")));
  EXPECT_EQ(plan.at("bytes").get<uintmax_t>(), fs::file_size(c10));
  EXPECT_EQ(kinds(1), before);  // a listing removes nothing
  EXPECT_TRUE(fs::exists(c10));

  const ProgramResult pruned = fathom({"prune", "toy", "--keep", "1", "--yes"});
  ASSERT_EQ(pruned.exit_code, 0) << pruned.err;
  EXPECT_NE(pruned.out.find("removed 2 kept checkpoints (updates 10 20)"), std::string::npos)
      << pruned.out;
  std::vector<std::string> expected;
  for (const auto& k : before)
    if (k != "checkpoint_10" && k != "checkpoint_20") expected.push_back(k);
  EXPECT_EQ(kinds(1), expected);
  EXPECT_FALSE(fs::exists(c10));
  EXPECT_FALSE(fs::exists(c20));
  for (const char* stays : {"checkpoint_30", "checkpoint_best", "checkpoint_last", "hypotheses"})
    EXPECT_TRUE(fs::exists(path_of(1, stays))) << stays;

  const ProgramResult gone = fathom(
      {"translate", "1", "--checkpoint", "10", "--input", (dir() / "corpus" / "test.de").string()});
  EXPECT_EQ(gone.exit_code, 2);
  EXPECT_NE(gone.err.find("30"), std::string::npos) << gone.err;  // the step that is left
  const ProgramResult again = fathom({"prune", "1", "--keep", "1"});
  EXPECT_NE(again.out.find("nothing beyond the newest 1"), std::string::npos) << again.out;
}

// A kept checkpoint a fork also holds (core/train/fork.h links its parent's files) frees
// nothing when the parent's goes: the plan counts only the bytes that are freed, and the fork's
// file stays whole.
TEST_F(PruneCli, AFileAForkSharesFreesNothingAndStays) {
  const int64_t parent = stored_run("parent", "finished", {10, 20, 30}, 1000);
  const fs::path fork = dir() / "runs.artifacts" / "run-9";
  fs::create_directories(fork);
  const std::string c10 = path_of(parent, "checkpoint_10");
  fs::create_hard_link(c10, fork / "checkpoint_10.g0.pt");
  const ProgramResult listed = fathom({"--json", "prune", "parent", "--keep", "0"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(nlohmann::json::parse(listed.out).at("bytes").get<uintmax_t>(), 2000u);
  ASSERT_EQ(fathom({"prune", "parent", "--keep", "0", "--yes"}).exit_code, 0);
  EXPECT_FALSE(fs::exists(c10));
  EXPECT_EQ(fs::file_size(fork / "checkpoint_10.g0.pt"), 1000u);
}

TEST_F(PruneCli, RunsThatMayStillNeedTheirCheckpointsAreLeftAsTheyAre) {
  const int64_t running = stored_run("live", "running", {10, 20, 30}, 100);
  const int64_t queued = stored_run("waiting", "queued", {10, 20}, 100);
  const std::string averaging = R"({"eval": {"average_checkpoints": 3}})";
  const int64_t cancelled = stored_run("stopped", "cancelled", {10, 20, 30, 40}, 100, averaging);
  const int64_t finished = stored_run("done", "finished", {10, 20, 30, 40}, 1000, averaging);
  const auto all = [&] {
    std::vector<std::vector<std::string>> out;
    for (int64_t id : {running, queued, cancelled, finished}) out.push_back(kinds(id));
    return out;
  };
  const auto before = all();

  // A name no run has: nothing is removed, not even of the runs named before it.
  const ProgramResult typo = fathom({"prune", "done", "nosuchrun", "--keep", "0", "--yes"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("nosuchrun"), std::string::npos) << typo.err;
  EXPECT_EQ(all(), before);
  EXPECT_EQ(fathom({"prune", "--keep", "1"}).exit_code, 2);  // names nothing

  const ProgramResult r =
      fathom({"--json", "prune", "live", "waiting", "stopped", "done", "--keep", "1", "--yes"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = nlohmann::json::parse(r.out);
  EXPECT_NE(out.at("runs").at(0).at("skipped").get<std::string>().find("running"),
            std::string::npos);
  EXPECT_NE(out.at("runs").at(1).at("skipped").get<std::string>().find("queued"),
            std::string::npos);
  EXPECT_NE(out.at("runs").at(2).at("skipped").get<std::string>().find("eval.average_checkpoints"),
            std::string::npos);
  EXPECT_EQ(out.at("bytes").get<uintmax_t>(), 3000u);  // the finished run's three files
  EXPECT_EQ(kinds(finished), std::vector<std::string>{"checkpoint_40"});
  for (int64_t id : {running, queued, cancelled})
    EXPECT_EQ(kinds(id), before[static_cast<size_t>(id - running)]);

  // Leaving as many as it averages, the resumable run can be pruned.
  const ProgramResult kept3 = fathom({"prune", "stopped", "--keep", "3", "--yes"});
  ASSERT_EQ(kept3.exit_code, 0) << kept3.err;
  EXPECT_EQ(kinds(cancelled),
            (std::vector<std::string>{"checkpoint_20", "checkpoint_30", "checkpoint_40"}));
}

// eval.average_by best: a resumable run's final evaluation may average any of its kept
// checkpoints, so keeping the newest N (however many it averages) is refused too.
TEST_F(PruneCli, AResumableRunAveragingTheBestKeepsEveryCheckpoint) {
  const std::string best = R"({"eval": {"average_checkpoints": 2, "average_by": "best"}})";
  const int64_t crashed = stored_run("best", "crashed", {10, 20, 30, 40}, 100, best);
  const auto before = kinds(crashed);
  const ProgramResult r = fathom({"--json", "prune", "best", "--keep", "2", "--yes"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = nlohmann::json::parse(r.out);
  EXPECT_NE(out.at("runs").at(0).at("skipped").get<std::string>().find("eval.average_by best"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(kinds(crashed), before);
}

// --model-only: the kept checkpoints stay, each rewritten without the optimizer state -- a new
// file, the same row, the same translations, no fork from it.
TEST_F(PruneCli, ModelOnlyKeepsTheSameModelsInFewerBytes) {
  ASSERT_NO_FATAL_FAILURE(train_toy());
  const std::string test_de = (dir() / "corpus" / "test.de").string();
  const ProgramResult at20 = fathom({"translate", "1", "--checkpoint", "20", "--input", test_de});
  ASSERT_EQ(at20.exit_code, 0) << at20.err;
  const std::vector<std::string> before = kinds(1);
  std::uintmax_t bytes = 0;
  for (const char* kind : {"checkpoint_10", "checkpoint_20", "checkpoint_30"})
    bytes += fs::file_size(path_of(1, kind));
  const std::string c20 = path_of(1, "checkpoint_20");
  const auto size20 = fs::file_size(c20);

  const ProgramResult listed = fathom({"--json", "prune", "1", "--model-only"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const auto plan = nlohmann::json::parse(listed.out).at("runs").at(0);
  EXPECT_EQ(plan.at("model_only").at("files").get<int>(), 3);
  EXPECT_EQ(plan.at("model_only").at("bytes_before").get<std::uintmax_t>(), bytes);
  EXPECT_EQ(path_of(1, "checkpoint_20"), c20);  // a listing changes nothing

  const ProgramResult r = fathom({"prune", "1", "--model-only", "--yes"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rewrote 3 kept checkpoint(s) without the optimizer state"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(kinds(1), before);
  const std::string slim20 = path_of(1, "checkpoint_20");
  ASSERT_NE(slim20, c20);
  EXPECT_FALSE(fs::exists(c20));
  ASSERT_TRUE(fs::exists(slim20));
  // Half here: the toy model's position table (a buffer, kept) weighs as much as its weights;
  // RetentionTest accounts for the bytes exactly.
  EXPECT_LT(fs::file_size(slim20), size20 * 6 / 10) << fs::file_size(slim20) << " of " << size20;
  const ProgramResult same = fathom({"translate", "1", "--checkpoint", "20", "--input", test_de});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(same.out, at20.out);

  // Update 10 is no resume point (those are 20 and 30): its kept checkpoint served forks.
  const ProgramResult fork = fathom({"train", "--fork", "1", "--from", "10", "--no-progress"});
  EXPECT_EQ(fork.exit_code, 2);
  EXPECT_NE(fork.err.find("train.keep_checkpoint_optimizer"), std::string::npos) << fork.err;
  const ProgramResult again = fathom({"--json", "prune", "1", "--model-only", "--yes"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out).at("runs").at(0).at("model_only").at("files"), 0);
}

// --previous: a finished run's fallback resume point goes -- row and file, nothing else -- once
// its checkpoint_last loads; the run still resumes from that one. A run that may be resumed, or
// whose checkpoint_last does not load, keeps its fallback.
TEST_F(PruneCli, PreviousRemovesAFinishedRunsFallbackResumePointOnlyBehindOneThatLoads) {
  ASSERT_NO_FATAL_FAILURE(train_toy());
  const std::string previous = path_of(1, "checkpoint_previous");
  ASSERT_TRUE(fs::exists(previous));
  const std::vector<std::string> before = kinds(1);

  const ProgramResult listed = fathom({"--json", "prune", "1", "--previous"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const auto plan = nlohmann::json::parse(listed.out);
  // The fallback is update 20's kept checkpoint under a second name: it frees nothing while that
  // stays, and its bytes once both go.
  ASSERT_TRUE(fs::equivalent(previous, path_of(1, "checkpoint_20")));
  EXPECT_EQ(plan.at("bytes").get<uintmax_t>(), 0u);
  EXPECT_EQ(plan.at("runs").at(0).at("removed"), nlohmann::json::array());  // no --keep
  const ProgramResult both = fathom({"--json", "prune", "1", "--previous", "--keep", "1"});
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_EQ(nlohmann::json::parse(both.out).at("bytes").get<uintmax_t>(),
            fs::file_size(path_of(1, "checkpoint_10")) + fs::file_size(previous));
  EXPECT_EQ(kinds(1), before);

  const ProgramResult pruned = fathom({"prune", "1", "--previous", "--yes"});
  ASSERT_EQ(pruned.exit_code, 0) << pruned.err;
  EXPECT_NE(pruned.out.find("removed the fallback resume point"), std::string::npos) << pruned.out;
  std::vector<std::string> expected;
  for (const auto& k : before)
    if (k != "checkpoint_previous") expected.push_back(k);
  EXPECT_EQ(kinds(1), expected);
  EXPECT_FALSE(fs::exists(previous));
  for (const char* stays : {"checkpoint_10", "checkpoint_30", "checkpoint_best", "checkpoint_last"})
    EXPECT_TRUE(fs::exists(path_of(1, stays))) << stays;
  const ProgramResult resumed =
      fathom({"train", "--resume", "1", "--no-progress", "--set", "train.max_updates=40"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(store().find_run("1")->updates, 40);

  // Stored runs: files that are no checkpoints, so no checkpoint_last of theirs loads.
  const int64_t crashed = stored_run("lost", "crashed", {}, 0);
  const int64_t bad = stored_run("bad", "finished", {}, 0);
  for (int64_t id : {crashed, bad}) {
    add_file(id, "checkpoint_last", 20, 100);
    add_file(id, "checkpoint_previous", 10, 100);
  }
  const ProgramResult r = fathom({"--json", "prune", "lost", "bad", "--previous", "--yes"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = nlohmann::json::parse(r.out);
  EXPECT_NE(out.at("runs").at(0).at("skipped").get<std::string>().find("may be resumed"),
            std::string::npos)
      << r.out;
  EXPECT_NE(out.at("runs").at(1).at("previous_kept").get<std::string>().find("does not load"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(out.at("bytes").get<uintmax_t>(), 0u);
  // With --json the report comes at the end; the count goes to standard error as each is done
  // (the desktop app's progress dialog reads it).
  EXPECT_NE(r.err.find("[1/2] run " + std::to_string(crashed) + " (lost): left as it is\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("[2/2] run " + std::to_string(bad) + " (bad)\n"), std::string::npos)
      << r.err;
  for (int64_t id : {crashed, bad})
    EXPECT_EQ(kinds(id), (std::vector<std::string>{"checkpoint_last", "checkpoint_previous"}));
  // As text, each run counted as it is done (a sweep's prune reads gigabytes a run).
  const ProgramResult text = fathom({"prune", "lost", "bad", "--previous", "--yes"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("[1/2] run " + std::to_string(crashed) + " (lost): left as it is"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("[2/2] run " + std::to_string(bad) +
                          " (bad)\n  checkpoint_last does "
                          "not load"),
            std::string::npos)
      << text.out;
}

}  // namespace test_prune_cli
