// The `fathom` command line, run as a separate process exactly as a user runs it: exit codes,
// error messages that point at file:line, that a bad config never creates a run, and the
// train -> runs -> show round trip through the store. The binary sits at the top of the build
// tree (cli/CMakeLists.txt), i.e. ../fathom from this test executable; if it was not built the
// tests are skipped.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"
#include "tests/support/write_transaction_elsewhere.h"

namespace test_cli {
namespace fs = std::filesystem;

using fathom::testing::built_fathom_binary;
using fathom::testing::read_text;

std::string quote(const std::string& s) { return fathom::testing::shell_quote(s); }

std::string read_file(const fs::path& path) { return read_text(path); }

struct Result {
  int status = -1;
  std::string out, err;
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The whitespace-separated cells of each line of a printed table.
std::vector<std::vector<std::string>> table_cells(const std::string& text) {
  std::istringstream lines(text);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream cells(line);
    rows.emplace_back(std::istream_iterator<std::string>(cells),
                      std::istream_iterator<std::string>());
  }
  return rows;
}

// A queued run of sweep `sweep` named `name`, its config empty; its id.
int64_t add_sweep_run(fathom::db::Store& store, const std::string& name, const std::string& sweep) {
  fathom::db::NewRun run;
  run.name = name;
  run.sweep = sweep;
  run.config_json = "{}";
  return store.create_run(run);
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    binary_ = built_fathom_binary();
    // A missing binary is a broken build, not a reason to pass.
    ASSERT_TRUE(!binary_.empty() && fs::exists(binary_))
        << "fathom binary not found at " << binary_;
  }

  // Runs `fathom ARGS...` in the test directory with FATHOM_DB unset.
  Result fathom(const std::vector<std::string>& args) {
    std::string command =
        "cd " + quote(dir_.string()) + " && env -u FATHOM_DB " + quote(binary_.string());
    for (const auto& a : args) command += " " + quote(a);
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    command += " >" + quote(out.string()) + " 2>" + quote(err.string());
    const int raw = std::system(command.c_str());
    Result r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
  }
  std::string write(const std::string& relative, const std::string& text) {
    return scratch_.write(relative, text);
  }
  std::string db() const { return (dir_ / "runs.db").string(); }

  // Runs in the store, or none when the store file was never created.
  std::vector<fathom::db::RunRecord> runs_in_store() const {
    if (!fs::exists(db())) return {};
    auto store = fathom::db::Store::open(db(), fathom::db::OpenMode::ReadOnly);
    return store.list_runs();
  }
  // The file the store records as the run's artifact `kind` ("" when none).
  std::string recorded(int64_t run, const std::string& kind) const {
    auto store = fathom::db::Store::open(db(), fathom::db::OpenMode::ReadOnly);
    for (const auto& a : store.artifacts(run))
      if (a.kind == kind) return a.path;
    return "";
  }

  fathom::testing::TempDir scratch_;  // removed when the test ends
  fs::path binary_;
  const fs::path& dir_ = scratch_.path();
};

// A tiny synthetic-task config: trains in a few seconds on one CPU thread.
const char* const kTinyConfig =
    "name: cli-tiny\n"
    "device: cpu\n"
    "model:\n"
    "  d_model: 16\n"
    "  heads: 2\n"
    "  d_ff: 32\n"
    "  encoder_layers: 1\n"
    "  decoder_layers: 1\n"
    "data:\n"
    "  task: synthetic\n"
    "  max_tokens: 256\n"
    "  synthetic: {vocab: 8, train_size: 300, valid_size: 20, test_size: 10}\n"
    "train:\n"
    "  lr: 0.005\n"
    "  warmup: 10\n"
    "  max_updates: 12\n"
    "  valid_every: 6\n"
    "  log_every: 3\n"
    "  threads: 1\n"
    "eval:\n"
    "  beam: 2\n"
    "  max_sentences: 5\n";

// A typo in the config: exit status 2 (bad input), file:line and the suggestion on stderr,
// and no run in the store -- a config error must be caught before a run row is created.
TEST_F(Cli, UnknownKeyExitsWithStatus2AndCreatesNoRun) {
  const std::string config = write("typo.yaml",
                                   "name: typo\n"      // 1
                                   "model:\n"          // 2
                                   "  dmodel: 16\n");  // 3
  const Result r = fathom({"--db", db(), "train", config, "--no-progress"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(contains(r.err, config + ":3")) << r.err;
  EXPECT_TRUE(contains(r.err, "did you mean 'model.d_model'")) << r.err;
  EXPECT_TRUE(runs_in_store().empty());
  // Not even an empty store file is left behind by a rejected config.
  EXPECT_FALSE(fs::exists(db()));
}

// An override that breaks heads | d_model is rejected naming model.heads; again no run.
TEST_F(Cli, SetOverrideBreakingHeadsIsRejected) {
  const std::string config = write("tiny.yaml", kTinyConfig);
  const Result r =
      fathom({"--db", db(), "train", config, "--set", "model.heads=3", "--no-progress"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "model.heads")) << r.err;
  EXPECT_TRUE(contains(r.err, "do not divide")) << r.err;
  EXPECT_TRUE(runs_in_store().empty());
  // An unknown --set key is also bad input.
  const Result u = fathom({"--db", db(), "train", config, "--set", "model.hedas=2"});
  EXPECT_EQ(u.status, 2) << u.err;
  EXPECT_TRUE(contains(u.err, "did you mean 'model.heads'")) << u.err;
}

// Identical hypothesis and reference: every n-gram matches and BP = 1, so BLEU is 100.
TEST_F(Cli, BleuOfIdenticalFilesIs100) {
  const std::string text = "the cat sat on the mat .\na quick brown fox jumps over it\n";
  const std::string ref = write("ref.txt", text);
  const std::string hyp = write("hyp.txt", text);
  const Result r = fathom({"bleu", ref, hyp});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "BLEU = 100.00")) << r.out;
  // A missing file is bad input.
  const Result missing = fathom({"bleu", ref, (dir_ / "nope.txt").string()});
  EXPECT_EQ(missing.status, 2) << missing.err;
}

// `--sentences`: a score a line, sacreBLEU's sentence_bleu -- a 2-word line is not 0 for lacking
// 4-grams (hand-computed in tests/base/test_bleu.cpp: "the cat" vs "the cat sat" is 60.65).
TEST_F(Cli, BleuOfEachSentence) {
  const std::string ref = write("ref.txt", "the cat sat\nthe cat sat on a mat\n");
  const std::string hyp = write("hyp.txt", "the cat\nthe cat sat on the mat\n");
  const Result r = fathom({"bleu", ref, hyp, "--sentences"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, 13), "BLEU = 60.65 ") << r.out;
  EXPECT_TRUE(contains(r.out, "\nBLEU = 53.73 ")) << r.out;  // (5/6 * 3/5 * 1/2 * 1/3)^(1/4)
  const Result j = fathom({"--json", "bleu", ref, hyp, "--sentences", "-w", "4"});
  ASSERT_EQ(j.status, 0) << j.err;
  const auto scores = nlohmann::json::parse(j.out);
  ASSERT_EQ(scores.size(), 2u);
  EXPECT_EQ(scores[1]["line"], 2);
  EXPECT_EQ(scores[0]["score"], 60.6531);
  EXPECT_EQ(scores[0]["eff"], "yes");
  EXPECT_EQ(fathom({"bleu", ref, hyp, hyp, "--sentences"}).status, 2);  // not with a pair
}

// `fathom bleu REF A B`: the paired bootstrap of B against A. A system against itself differs
// by nothing (p = 1, interval [0, 0]); B, the references themselves, beats A (a word dropped
// from every line) in every draw, so p is the smallest there is, 1 / (draws + 1).
TEST_F(Cli, BleuOfTwoSystemsIsThePairedBootstrap) {
  std::string refs, dropped;
  for (int i = 0; i < 30; ++i) {
    refs += "the cat number " + std::to_string(i) + " sat on the mat today\n";
    dropped += "the cat number " + std::to_string(i) + " sat on mat today\n";
  }
  const std::string ref = write("ref.txt", refs), a = write("a.txt", dropped),
                    b = write("b.txt", refs);
  const Result same = fathom({"--json", "bleu", ref, a, a, "--samples", "200"});
  ASSERT_EQ(same.status, 0) << same.err;
  const auto s = nlohmann::json::parse(same.out);
  EXPECT_EQ(s["p"], 1.0);
  EXPECT_EQ(s["difference"], 0.0);
  EXPECT_EQ(s["difference_ci95"], nlohmann::json::array({0.0, 0.0}));
  const Result better = fathom({"bleu", ref, a, b, "--samples", "200"});
  ASSERT_EQ(better.status, 0) << better.err;
  EXPECT_TRUE(contains(better.out, "B " + b + ": BLEU 100.00")) << better.out;
  EXPECT_TRUE(contains(better.out, "p = 0.0050 (two-sided)")) << better.out;  // 1 / 201
  EXPECT_TRUE(contains(better.out, "30 segments, 200 draws, seed 12345")) << better.out;

  // Pairs of several seeds pool: two pairs (A, B) and (B, B) differ by the mean of their
  // differences, half the first's; an odd number of files names the pairing.
  const Result one = fathom({"--json", "bleu", ref, a, b, "--samples", "200"});
  const Result two = fathom({"--json", "bleu", ref, a, b, b, b, "--samples", "200"});
  ASSERT_EQ(two.status, 0) << two.err;
  const auto j1 = nlohmann::json::parse(one.out), j2 = nlohmann::json::parse(two.out);
  EXPECT_NEAR(j2["difference"].get<double>(), j1["difference"].get<double>() / 2, 1e-9);
  ASSERT_EQ(j2["pairs"].size(), 2u);
  EXPECT_EQ(j2["pairs"][1]["difference"], 0.0);
  const Result pooled = fathom({"bleu", ref, a, b, b, b, "--samples", "200"});
  EXPECT_TRUE(contains(pooled.out, "pooled over 2 pairs")) << pooled.out;
  const Result odd = fathom({"bleu", ref, a, b, b, "--samples", "200"});
  EXPECT_EQ(odd.status, 2);
  EXPECT_TRUE(contains(odd.err, "pairs")) << odd.err;
}

// A real (tiny) training run through the CLI, then `runs --json` and `show --json` read it
// back from the store: the run is listed as finished with its final metrics, and `show`
// carries the config that was trained.
TEST_F(Cli, TrainThenRunsAndShowReportTheRun) {
  const std::string config = write("tiny.yaml", kTinyConfig);
  const Result t =
      fathom({"--db", db(), "train", config, "--no-progress", "--set", "train.seed=3"});
  ASSERT_EQ(t.status, 0) << t.err << t.out;

  const Result runs = fathom({"--db", db(), "runs", "--json"});
  ASSERT_EQ(runs.status, 0) << runs.err;
  const auto list = nlohmann::json::parse(runs.out);
  ASSERT_TRUE(list.is_array());
  ASSERT_EQ(list.size(), 1u) << runs.out;
  EXPECT_EQ(list[0]["name"], "cli-tiny");
  EXPECT_EQ(list[0]["status"], "finished");
  EXPECT_EQ(list[0]["updates"], 12);
  EXPECT_TRUE(list[0]["final_metrics"].contains("test_bleu")) << runs.out;
  const int64_t id = list[0]["id"].get<int64_t>();

  const Result show = fathom({"--db", db(), "--json", "show", std::to_string(id)});
  ASSERT_EQ(show.status, 0) << show.err;
  const auto run = nlohmann::json::parse(show.out);
  ASSERT_TRUE(run.contains("config")) << show.out;
  ASSERT_TRUE(run["config"].is_object()) << show.out;
  EXPECT_EQ(run["config"]["model"]["d_model"], 16);
  EXPECT_EQ(run["config"]["data"]["task"], "synthetic");
  EXPECT_EQ(run["config"]["train"]["seed"], 3);  // the --set override is what was recorded
  EXPECT_TRUE(contains(run["config_yaml"].get<std::string>(), "d_model: 16"));
  // Each artifact with its file's size; after the artifacts folder moved, found there.
  ASSERT_FALSE(run["artifacts"].empty()) << show.out;
  for (const auto& a : run["artifacts"])
    EXPECT_EQ(a["bytes"], fs::file_size(a["path"].get<std::string>())) << a.dump();
  fs::rename(dir_ / "runs.artifacts", dir_ / "moved");
  const auto bytes_of = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"--db", db(), "--json", "show", std::to_string(id)};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto out = nlohmann::json::parse(fathom(args).out);
    std::vector<nlohmann::json> bytes;
    for (const auto& a : out["artifacts"]) bytes.push_back(a["bytes"]);
    return bytes;
  };
  std::vector<nlohmann::json> sizes;
  for (const auto& a : run["artifacts"]) sizes.push_back(a["bytes"]);
  EXPECT_EQ(bytes_of({"--artifacts", (dir_ / "moved").string()}), sizes);
  EXPECT_EQ(bytes_of({}), std::vector<nlohmann::json>(sizes.size(), nullptr));
  const Result missing = fathom({"--db", db(), "show", std::to_string(id)});
  EXPECT_TRUE(contains(missing.out, "(missing)")) << missing.out;
  // Shown by name too (the latest run with that name).
  const Result by_name = fathom({"--db", db(), "show", "cli-tiny", "--json"});
  ASSERT_EQ(by_name.status, 0) << by_name.err;
  EXPECT_EQ(nlohmann::json::parse(by_name.out)["id"], id);
  // An unknown run is bad input.
  EXPECT_EQ(fathom({"--db", db(), "show", "999"}).status, 2);
}

// `fathom runs --best`: beside the final value, the best point over training and its update --
// a run that overfits after update 200 shows 4.50@200, not its final 6.00; a run whose curve
// blew up shows its best finite point; --json carries the same as best_metrics.
TEST_F(Cli, RunsBestShowsTheBestPointOverTrainingAndItsUpdate) {
  {
    auto store = fathom::db::Store::open(db());
    fathom::db::NewRun r;
    r.config_json = "{}";
    r.name = "overfits";
    const int64_t a = store.create_run(r);
    r.name = "blew-up";
    const int64_t b = store.create_run(r);
    store.write_metrics(
        a,
        {{100, "valid_ppl", 5.0, 1.0}, {200, "valid_ppl", 4.5, 2.0}, {300, "valid_ppl", 6.0, 3.0}});
    store.set_final_metric(a, "valid_ppl", 6.0);
    store.write_metrics(b, {{100, "valid_ppl", 9.0, 1.0}, {200, "valid_ppl", std::nan(""), 2.0}});
  }
  const Result plain = fathom({"--db", db(), "runs"});
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_FALSE(contains(plain.out, "best")) << plain.out;

  const Result best = fathom({"--db", db(), "runs", "--best"});
  ASSERT_EQ(best.status, 0) << best.err;
  // The best column follows the final value's.
  const auto rows = table_cells(best.out);
  ASSERT_EQ(rows.size(), 3u) << best.out;
  auto after = [](const std::vector<std::string>& row, const std::string& cell) {
    auto it = std::find(row.begin(), row.end(), cell);
    return it == row.end() || it + 1 == row.end() ? std::string("(none)") : *(it + 1);
  };
  EXPECT_EQ(after(rows[0], "valid_ppl"), "best") << best.out;
  EXPECT_EQ(after(rows[1], "6.00"), "4.50@200") << best.out;
  EXPECT_EQ(after(rows[2], "-"), "9.00@100") << best.out;

  const Result json = fathom({"--db", db(), "runs", "--best", "--json"});
  ASSERT_EQ(json.status, 0) << json.err;
  const auto list = nlohmann::json::parse(json.out);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0]["best_metrics"]["valid_ppl"]["step"], 200);
  EXPECT_EQ(list[0]["best_metrics"]["valid_ppl"]["value"], 4.5);
  EXPECT_EQ(list[0]["final_metrics"]["valid_ppl"], 6.0);
  EXPECT_EQ(list[1]["best_metrics"]["valid_ppl"]["step"], 100);
}

// A sweep's run is named "<sweep>/<axes>": the table's SWEEP column carries the first part and
// NAME the rest; a run outside a sweep, or one whose name does not start with its sweep's, shows
// its whole name; --json keeps every name whole.
TEST_F(Cli, RunsTableShowsASweepsRunByItsAxesBesideTheSweep) {
  {
    auto store = fathom::db::Store::open(db());
    fathom::db::NewRun r;
    r.config_json = "{}";
    r.name = "depth/model.norm=post,seed=1";
    r.sweep = "depth";
    store.create_run(r);
    r.name = "renamed-by-hand";
    store.create_run(r);
    r.name = "plain";
    r.sweep = "";
    store.create_run(r);
  }
  const Result table = fathom({"--db", db(), "runs"});
  ASSERT_EQ(table.status, 0) << table.err;
  const auto rows = table_cells(table.out);
  ASSERT_EQ(rows.size(), 4u) << table.out;
  ASSERT_GE(rows[1].size(), 3u);
  EXPECT_EQ(rows[0][1], "NAME");
  EXPECT_EQ(rows[0][2], "SWEEP");
  EXPECT_EQ(rows[1][1], "model.norm=post,seed=1") << table.out;
  EXPECT_EQ(rows[1][2], "depth") << table.out;
  EXPECT_EQ(rows[2][1], "renamed-by-hand") << table.out;
  EXPECT_EQ(rows[3][1], "plain") << table.out;
  EXPECT_EQ(rows[3][2], "-") << table.out;
  const auto list = nlohmann::json::parse(fathom({"--db", db(), "runs", "--json"}).out);
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0]["name"], "depth/model.norm=post,seed=1");
}

// `fathom runs --where --sort --desc --limit --columns`: the best two pre-LN runs by
// validation perplexity, with their learning rate, from a sweep; the filter's fields as the
// app's; a field no run has is refused naming the option, and a filter that keeps nothing says
// so rather than "no runs". The store narrows a filter naming config values (norm=pre) to the
// runs whose config text holds them: run 2's holds "pre" elsewhere, and the answers -- kept
// runs, "no run of the 4", a misspelt field -- are those of the whole listing.
TEST_F(Cli, RunsWhereSortLimitAndColumnsListTheRunsAsked) {
  {
    auto store = fathom::db::Store::open(db());
    fathom::db::NewRun r;
    const std::vector<std::tuple<std::string, double, double>> runs = {
        {"pre", 0.001, 12.5}, {"post", 0.001, 30.0}, {"pre", 0.004, 9.0}, {"pre", 0.016, 20.0}};
    for (const auto& [norm, lr, ppl] : runs) {
      r.name = "depth/norm=" + norm + ",lr=" + std::to_string(lr);
      r.sweep = "depth";
      r.config_json = "{\"model\":{\"norm\":\"" + norm +
                      "\"},\"train\":{\"lr\":" + std::to_string(lr) +
                      "},\"data\":{\"prefix\":\"pre\"}}";
      store.set_final_metric(store.create_run(r), "valid_ppl", ppl);
    }
  }
  const Result best = fathom({"--db", db(), "runs", "--where", "norm=pre", "--sort", "valid_ppl",
                              "--limit", "2", "--columns", "lr"});
  ASSERT_EQ(best.status, 0) << best.err;
  const auto rows = table_cells(best.out);
  ASSERT_EQ(rows.size(), 3u) << best.out;
  EXPECT_EQ(rows[0][5], "lr") << best.out;  // after ID NAME SWEEP STATUS UPDATES
  EXPECT_EQ(rows[1][0], "3") << best.out;   // 9.0
  EXPECT_EQ(rows[1][5], "0.004") << best.out;
  EXPECT_EQ(rows[2][0], "1") << best.out;  // 12.5; run 4 (20.0) is third, run 2 is post-LN
  const Result worst = fathom({"--db", db(), "runs", "--sort", "valid_ppl", "--desc", "--json"});
  ASSERT_EQ(worst.status, 0) << worst.err;
  const auto list = nlohmann::json::parse(worst.out);
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[0]["id"], 2);
  EXPECT_EQ(list[3]["id"], 3);

  const Result typo = fathom({"--db", db(), "runs", "--sort", "vlid_ppl"});
  EXPECT_EQ(typo.status, 2);
  EXPECT_TRUE(contains(typo.err, "--sort")) << typo.err;
  EXPECT_TRUE(contains(typo.err, "did you mean valid_ppl?")) << typo.err;
  const Result none = fathom({"--db", db(), "runs", "--where", "valid_ppl<1"});
  EXPECT_EQ(none.status, 0) << none.err;
  EXPECT_TRUE(contains(none.out, "no run of the 4 listed matches --where 'valid_ppl<1'"))
      << none.out;

  auto ids = [&](const std::string& where) {
    const Result r = fathom({"--db", db(), "--json", "runs", "--where", where});
    EXPECT_EQ(r.status, 0) << where << ": " << r.err;
    std::vector<int> out;
    for (const auto& run : nlohmann::json::parse(r.out)) out.push_back(run["id"].get<int>());
    return out;
  };
  EXPECT_EQ(ids("norm=PRE and lr<0.01"), (std::vector<int>{1, 3}));
  EXPECT_EQ(ids("model.norm=post prefix=pre"), (std::vector<int>{2}));
  for (const std::string where : {"norm=pre and valid_ppl<1", "norm=layer"}) {
    const Result r = fathom({"--db", db(), "runs", "--where", where});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "no run of the 4 listed matches")) << where << ": " << r.out;
  }
  for (const std::string where : {"nrm=pre", "nrm=layer"}) {
    const Result r = fathom({"--db", db(), "runs", "--where", where});
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.err, "no run has nrm (did you mean norm?) (of 4 runs)"))
        << where << ": " << r.err;
  }
}

// The store's own disk fills mid-run (a tmpfs the test mounts, 1 MiB; checkpoints go
// elsewhere): `fathom train` ends with exit status 1 and an error naming the store and the full
// disk; the run is marked failed or, when even that cannot be written, the error says how to
// continue; the store stays readable, holding each logged update once and
// without a gap; once there is room, cancel + --resume finish the run, and its curve equals an
// uninterrupted run's at every update. Skipped with the reason where a tmpfs cannot be mounted.
TEST_F(Cli, FullDiskUnderTheStoreEndsTheRunNamingItAndResumeFinishesIt) {
  std::string tiny = kTinyConfig;
  auto set = [&](const std::string& from, const std::string& to) {
    tiny.replace(tiny.find(from), from.size(), to);
  };
  set("max_updates: 12", "max_updates: 600");
  set("log_every: 3", "log_every: 1");
  set("valid_every: 6", "valid_every: 200");
  const std::string config = write("tiny.yaml", tiny);
  ASSERT_EQ(fathom({"--db", db(), "train", config, "--no-progress"}).status, 0);  // the reference

  const fs::path mount = dir_ / "small-disk";
  fs::create_directories(mount);
  if (std::system(
          ("mount -t tmpfs -o size=1m tmpfs " + quote(mount.string()) + " 2>/dev/null").c_str()) !=
      0)
    GTEST_SKIP() << "cannot mount a tmpfs at " << mount << " (needs root)";
  struct Unmount {
    std::string at;
    ~Unmount() { std::system(("umount " + fathom::testing::shell_quote(at)).c_str()); }
  } unmount{mount.string()};
  const std::string small = (mount / "runs.db").string(),
                    artifacts = (dir_ / "small-artifacts").string();

  const Result full =
      fathom({"--db", small, "--artifacts", artifacts, "train", config, "--no-progress"});
  EXPECT_EQ(full.status, 1) << full.err;
  EXPECT_TRUE(contains(full.err, small)) << full.err;
  EXPECT_TRUE(contains(full.err, "disk is full")) << full.err;
  {
    // Where the disk filled decides whether the run could still be marked failed (a commit
    // that fits in what the failed one released) or stays running, and then the error says
    // how to continue.
    auto store = fathom::db::Store::open(small, fathom::db::OpenMode::ReadOnly);
    const auto run = store.find_run("1");
    ASSERT_TRUE(run);
    if (run->status == "failed")
      EXPECT_TRUE(contains(run->error, "disk is full")) << run->error;
    else
      // The commands name the store and artifacts they were given: followed as printed, they
      // reach this run, not a stray ./fathom.db.
      EXPECT_TRUE(contains(full.err, "fathom --db " + small + " --artifacts " + artifacts +
                                         " cancel 1 && fathom --db " + small + " --artifacts " +
                                         artifacts + " train --resume 1"))
          << run->status << "\n"
          << full.err;
  }

  auto steps_of = [&](const std::string& store_path, int64_t run) {
    auto store = fathom::db::Store::open(store_path, fathom::db::OpenMode::ReadOnly);
    return store.metric_series(run, "train_loss");
  };
  const auto before = steps_of(small, 1);
  ASSERT_FALSE(before.empty());
  ASSERT_LT(before.size(), 600u) << "the disk did not fill: make the tmpfs smaller";
  for (size_t i = 0; i < before.size(); ++i) ASSERT_EQ(before[i].step, static_cast<int64_t>(i + 1));

  ASSERT_EQ(std::system(("mount -o remount,size=64m " + quote(mount.string())).c_str()), 0);
  if (fathom::db::Store::open(small, fathom::db::OpenMode::ReadOnly).find_run("1")->status ==
      "running") {
    ASSERT_EQ(fathom({"--db", small, "cancel", "1"}).status, 0);
  }
  const Result resumed =
      fathom({"--db", small, "--artifacts", artifacts, "train", "--resume", "1", "--no-progress"});
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  const auto after = steps_of(small, 1), reference = steps_of(db(), 1);
  ASSERT_EQ(after.size(), 600u);
  ASSERT_EQ(reference.size(), 600u);
  for (size_t i = 0; i < after.size(); ++i) {
    ASSERT_EQ(after[i].step, reference[i].step);
    ASSERT_DOUBLE_EQ(after[i].value, reference[i].value) << "update " << after[i].step;
  }
  auto store = fathom::db::Store::open(small, fathom::db::OpenMode::ReadOnly);
  EXPECT_EQ(store.find_run("1")->status, "finished");
}

// `fathom delete`: without --yes nothing changes; with it the run's rows and artifact
// directory go and the other run is untouched; an unknown name deletes nothing.
TEST_F(Cli, DeleteRemovesOneRunAndItsArtifacts) {
  const std::string config = write("tiny.yaml", kTinyConfig);
  for (const char* name : {"name=keep", "name=drop"})
    ASSERT_EQ(fathom({"--db", db(), "train", config, "--no-progress", "--set", name}).status, 0);
  const fs::path drop_dir = dir_ / "runs.artifacts" / "run-2";
  ASSERT_EQ(fs::path(recorded(2, "checkpoint_last")).parent_path(), drop_dir);
  ASSERT_TRUE(fs::exists(recorded(2, "checkpoint_last")));

  const Result dry = fathom({"--db", db(), "delete", "drop"});
  EXPECT_EQ(dry.status, 0) << dry.err;
  EXPECT_TRUE(contains(dry.out, "would delete run 2")) << dry.out;
  EXPECT_EQ(runs_in_store().size(), 2u);

  EXPECT_EQ(fathom({"--db", db(), "delete", "drop", "nope", "--yes"}).status, 2);
  EXPECT_EQ(runs_in_store().size(), 2u) << "a bad name deletes nothing";

  const Result del = fathom({"--db", db(), "delete", "drop", "--yes"});
  ASSERT_EQ(del.status, 0) << del.err;
  const auto left = runs_in_store();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].name, "keep");
  EXPECT_FALSE(fs::exists(drop_dir));
  EXPECT_TRUE(fs::exists(recorded(1, "checkpoint_last")));
  auto store = fathom::db::Store::open(db(), fathom::db::OpenMode::ReadOnly);
  EXPECT_TRUE(store.metric_series(2, "train_loss").empty());
  EXPECT_FALSE(store.metric_series(1, "train_loss").empty());
}

// `fathom train --resume RUN` re-reads the run's stored YAML config and continues the same
// run (same id, no second row) to the new max_updates, with each metric step logged once.
// A mistyped command is named, with the closest one, in the exit status of every bad input;
// global options before it are skipped over, and a right command still runs.
TEST_F(Cli, UnknownCommandSuggestsTheClosest) {
  const Result r = fathom({"--db", db(), "trian", "x.yaml"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "unknown command 'trian'; did you mean 'train'?")) << r.err;
  EXPECT_TRUE(contains(r.err, "sweep")) << r.err;  // the list of commands
  const Result far = fathom({"xyzzy"});
  EXPECT_EQ(far.status, 2);
  EXPECT_TRUE(contains(far.err, "unknown command 'xyzzy'")) << far.err;
  // A sub-command typed as a command: the command that holds it.
  const Result sub = fathom({"--db", db(), "table", "--sweep", "s"});
  EXPECT_EQ(sub.status, 2);
  EXPECT_TRUE(contains(sub.err, "unknown command 'table'; did you mean 'export table'?"))
      << sub.err;
  const Result fine = fathom({"--db", db(), "--json", "config", "--reference"});
  EXPECT_EQ(fine.status, 0) << fine.err;
}

// Every usage error exits 2 like any other bad input (not CLI11's 106, 109, ...); --set
// followed by the config file takes the file as the config.
TEST_F(Cli, UsageErrorsExitTwoAndSetDoesNotSwallowTheConfig) {
  const Result bogus = fathom({"train", "--bogus"});
  EXPECT_EQ(bogus.status, 2) << bogus.err;
  EXPECT_TRUE(contains(bogus.err, "--bogus")) << bogus.err;
  const Result missing = fathom({"sweep", "status"});  // its NAME is required
  EXPECT_EQ(missing.status, 2) << missing.err;
  const Result help = fathom({"train", "--help"});
  EXPECT_EQ(help.status, 0);

  const std::string config = write("tiny.yaml", kTinyConfig);
  const Result r = fathom({"--db", db(), "config", "--set", "train.max_updates=7", config});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "max_updates: 7")) << r.out;
}

// A sweep started while another program holds the store's write lock says who holds it before
// its first write waits on it, and past the retry budget ends naming the program again.
TEST_F(Cli, ASweepStartedBesideAnotherProgramsWriteLockSaysWhoHoldsItBeforeItWaits) {
  write("tiny.yaml", kTinyConfig);
  const std::string sweep = write("locked.yaml", "name: locked\nbase: tiny.yaml\nseeds: [1]\n");
  { auto store = fathom::db::Store::open(db()); }  // the schema, before the lock is taken
  fathom::testing::WriteTransactionElsewhere other(db());
  ASSERT_TRUE(other.started());
  const std::string holder =
      "pid " + std::to_string(other.pid()) + " (" + program_invocation_short_name + ")";
  setenv("FATHOM_DB_RETRY_SECONDS", "2", 1);
  const Result r = fathom({"--db", db(), "sweep", sweep, "--no-progress"});
  unsetenv("FATHOM_DB_RETRY_SECONDS");
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(contains(r.err, "sweep locked: the run store's write lock is held by " + holder +
                                  ", not a running run's worker: nothing of Fathom puts it down"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "still locked by another process (" + holder + ")")) << r.err;
}

// A sweep expanding to more than 1000 runs is queued only with --yes; --dry-run says so.
TEST_F(Cli, HugeSweepNeedsYes) {
  write("tiny.yaml", kTinyConfig);
  std::string seeds;
  for (int i = 1; i <= 1001; ++i) seeds += (seeds.empty() ? "" : ", ") + std::to_string(i);
  const std::string sweep =
      write("huge.yaml", "name: huge\nbase: tiny.yaml\nseeds: [" + seeds + "]\n");
  const Result dry = fathom({"--db", db(), "sweep", sweep, "--dry-run"});
  ASSERT_EQ(dry.status, 0) << dry.err;
  EXPECT_TRUE(contains(dry.out, "1001 runs is more than 1000"))
      << dry.out.substr(dry.out.size() - 300);
  const Result refused = fathom({"--db", db(), "sweep", sweep, "--no-progress"});
  EXPECT_EQ(refused.status, 2);
  EXPECT_TRUE(contains(refused.err, "huge.yaml:1: 'name': the sweep expands to 1001 runs"))
      << refused.err;
  EXPECT_TRUE(runs_in_store().empty());
}

// A grid of 10^7 points is refused by counting its axes, before a single run is expanded
// (issue 57 item 3: it took 15 GB and two minutes, then std::bad_alloc naming nothing), with
// --dry-run and --yes too.
TEST_F(Cli, AHugeGridIsCountedNotExpanded) {
  write("tiny.yaml", kTinyConfig);
  const std::string sweep = write("grid.yaml",
                                  "name: grid\nbase: tiny.yaml\ngrid:\n"
                                  "  train.lr: {logspace: [1e-5, 1e-1, 1000]}\n"
                                  "  train.eps: {logspace: [1e-9, 1e-6, 1000]}\n"
                                  "  train.weight_decay: {logspace: [1e-6, 1e-2, 10]}\n");
  const std::string capped =
      "grid.yaml:1: 'name': the axes multiply to 10000000 runs, more than the 100000 one sweep "
      "may hold";
  for (const std::string flag : {"--dry-run", "--yes", ""}) {
    std::vector<std::string> args{"--db", db(), "sweep", sweep, "--no-progress"};
    if (!flag.empty()) args.push_back(flag);
    const Result r = fathom(args);
    EXPECT_EQ(r.status, 2) << r.err;
    // Without --yes the count refuses it first, for the same reason, before expanding.
    EXPECT_TRUE(
        contains(r.err, flag.empty() ? "'name': the sweep expands to 10000000 runs" : capped))
        << flag << ": " << r.err;
  }
  EXPECT_TRUE(runs_in_store().empty());
}

// Misleading words (issue 57 item 12): `train.lr=.inf` is no number, not "too small"; `--db ""`
// (an unset variable) is refused instead of silently meaning ./fathom.db.
TEST_F(Cli, InfinityIsNoNumberAndAnEmptyDbIsRefused) {
  const std::string config = write("tiny.yaml", kTinyConfig);
  const Result inf = fathom({"config", config, "--set", "train.lr=.inf"});
  EXPECT_EQ(inf.status, 2);
  EXPECT_TRUE(contains(inf.err, "'train.lr': must be a finite number, got inf")) << inf.err;
  const Result nan = fathom({"config", config, "--set", "model.dropout=.nan"});
  EXPECT_EQ(nan.status, 2);
  EXPECT_TRUE(contains(nan.err, "'model.dropout': must be a finite number")) << nan.err;
  const Result empty = fathom({"--db", "", "runs"});
  EXPECT_EQ(empty.status, 2);
  EXPECT_TRUE(contains(empty.err, "'--db': empty")) << empty.err;
}

// --json is honoured by every command that prints (issue 57 item 11): sweep --dry-run, sweep
// status, delete (listing, without --yes), cancel and sweep cancel each print one JSON document
// of what they did.
TEST_F(Cli, EveryCommandThatPrintsSpeaksJson) {
  write("tiny.yaml", kTinyConfig);
  const std::string sweep =
      write("s.yaml", "name: s\nbase: tiny.yaml\ngrid:\n  model.norm: [post, pre]\n");
  const Result dry = fathom({"--db", db(), "--json", "sweep", sweep, "--dry-run"});
  ASSERT_EQ(dry.status, 0) << dry.err;
  const auto d = nlohmann::json::parse(dry.out);
  ASSERT_EQ(d["runs"].size(), 2u);
  EXPECT_EQ(d["runs"][1]["axes"]["model.norm"], "pre");
  EXPECT_EQ(d["needs_yes"], false);
  {
    auto store = fathom::db::Store::open(db());
    for (const std::string name : {"s/norm=post", "s/norm=pre", "s/norm=peri"})
      add_sweep_run(store, name, "s");
  }
  const Result status = fathom({"--db", db(), "--json", "sweep", "status", "s"});
  ASSERT_EQ(status.status, 0) << status.err;
  const auto st = nlohmann::json::parse(status.out);
  EXPECT_EQ(st["runs"].size(), 3u);
  EXPECT_EQ(st["counts"]["queued"], 3);
  const Result listed = fathom({"--db", db(), "--json", "delete", "s/norm=peri"});
  ASSERT_EQ(listed.status, 0) << listed.err;
  EXPECT_EQ(nlohmann::json::parse(listed.out)["deleted"], false);
  const Result one = fathom({"--db", db(), "--json", "cancel", "s/norm=peri"});
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(nlohmann::json::parse(one.out)["runs"][0]["cancelled"], true);
  const Result all = fathom({"--db", db(), "--json", "sweep", "cancel", "s"});
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_EQ(nlohmann::json::parse(all.out)["cancelled"], 2);
  const Result gone = fathom({"--db", db(), "--json", "delete", "s/norm=peri", "--yes"});
  ASSERT_EQ(gone.status, 0) << gone.err;
  const auto g = nlohmann::json::parse(gone.out);
  EXPECT_EQ(g["deleted"], true);
  EXPECT_EQ(g["runs"][0]["status"], "cancelled");
  EXPECT_EQ(runs_in_store().size(), 2u);
}

// `fathom sweep status` says which finished runs train.patience ended -- in the status column,
// the summary and (--json) early_stop -- and not of one a resume trained past its stop.
TEST_F(Cli, SweepStatusSaysWhichRunsStoppedEarly) {
  {
    auto store = fathom::db::Store::open(db());
    for (const std::string name : {"s/a", "s/b", "s/c"}) {
      const int64_t id = add_sweep_run(store, name, "s");
      store.mark_running(id, "host", "cpu");
      store.finish_run(id, "finished");
    }
    store.set_tag(1, "early_stop", "update 60: 2 validations since update 50 ...");
    store.set_tag(3, "early_stop", "trained on from update 60 (train.patience 0) after ...");
  }
  const Result text = fathom({"--db", db(), "sweep", "status", "s"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "3 runs: 3 finished (1 stopped early by train.patience)"))
      << text.out;
  const auto rows = table_cells(text.out);
  ASSERT_GE(rows.size(), 4u) << text.out;
  EXPECT_EQ(rows[1][1] + " " + rows[1][2] + " " + rows[1][3], "finished (early stop)") << text.out;
  EXPECT_EQ(rows[3][1] + " " + rows[3][2], "finished 0") << text.out;  // then its updates
  const Result json = fathom({"--db", db(), "--json", "sweep", "status", "s"});
  ASSERT_EQ(json.status, 0) << json.err;
  const auto runs = nlohmann::json::parse(json.out)["runs"];
  EXPECT_EQ(runs[0]["early_stop"], "update 60: 2 validations since update 50 ...");
  EXPECT_TRUE(runs[1]["early_stop"].is_null());
  EXPECT_TRUE(runs[2]["early_stop"].is_null());
}

// Sweep "s": run 1 running at 0.5 s an update, 100 of its 1,000 updates made; run 2 queued, of
// 1,000.
void add_paced_sweep(fathom::db::Store& store) {
  for (const std::string name : {"s/a", "s/b"}) {
    fathom::db::NewRun run;
    run.name = name;
    run.sweep = "s";
    run.config_json = R"({"train": {"max_updates": 1000, "log_every": 10}})";
    store.create_run(run);
  }
  store.mark_running(1, "host", "cpu");
  std::vector<fathom::db::MetricRow> rows;
  for (int step = 10; step <= 100; step += 10)
    rows.push_back({step, "train_loss", 3.0, step * 0.5});
  store.write_metrics(1, rows);
  store.heartbeat(1, 100);
}

// `fathom sweep status` says the time a sweep has left at its running runs' pace now, from their
// logged losses' wall times: a run at 0.5 s an update with 900 of 1,000 updates left and a
// queued run of 1,000 -> 1,900 updates at 2 a second, 950 s ("15m50s").
TEST_F(Cli, SweepStatusSaysTheTimeLeftAtTheRunningRunsPace) {
  {
    auto store = fathom::db::Store::open(db());
    add_paced_sweep(store);
  }
  const Result text = fathom({"--db", db(), "sweep", "status", "s"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_TRUE(contains(text.out,
                       "time left: ~15m50s at the pace of its 1 running run(s) now "
                       "(1900 updates left;"))
      << text.out;
  const Result json = fathom({"--db", db(), "--json", "sweep", "status", "s"});
  ASSERT_EQ(json.status, 0) << json.err;
  const auto left = nlohmann::json::parse(json.out)["time_left"];
  EXPECT_DOUBLE_EQ(left["seconds"].get<double>(), 950.0);
  EXPECT_EQ(left["updates_left"], 1900);
  EXPECT_EQ(left["paced_runs"], 1);
}

// A third run, running in the store but its worker silent for ten minutes (past the 180 s
// heartbeat timeout), had logged 0.1 s an update with 500 of 1,000 left: lost, its updates are
// still to make and its pace is not counted -- 2,400 updates at 2 a second, 1,200 s ("20m00s";
// counting its 10 a second would say 200 s).
TEST_F(Cli, SweepStatusLeavesALostRunsPaceOut) {
  {
    auto store = fathom::db::Store::open(db());
    add_paced_sweep(store);
    fathom::db::RunExport lost;
    lost.run.id = 3;
    lost.run.name = "s/c";
    lost.run.sweep = "s";
    lost.run.status = "running";
    lost.run.updates = 500;
    lost.run.heartbeat_at = fathom::db::unix_now() - 600;
    lost.run.config_json = R"({"train": {"max_updates": 1000, "log_every": 10}})";
    lost.run.config_yaml = "name: c\n";
    for (int step = 410; step <= 500; step += 10)
      lost.metrics.push_back({step, "train_loss", 3.0, step * 0.1});
    store.import_run(lost);
  }
  const Result text = fathom({"--db", db(), "sweep", "status", "s"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_TRUE(contains(text.out,
                       "time left: ~20m00s at the pace of its 1 running run(s) now "
                       "(2400 updates left;"))
      << text.out;
  EXPECT_TRUE(contains(text.out, "1 running run(s) lost: no heartbeat for over 180 s")) << text.out;
}

// `fathom sweep status` of a store whose write lock another process holds -- still a second
// later, so no transaction of milliseconds -- names that process (text and --json), and says
// nothing once it committed.
TEST_F(Cli, SweepStatusNamesAProcessThatHoldsTheStoresWriteLock) {
  {
    auto store = fathom::db::Store::open(db());
    add_sweep_run(store, "s/a", "s");
  }
  const std::string said = "the run store's write lock is held by pid ";
  {
    fathom::testing::WriteTransactionElsewhere other(db());
    ASSERT_TRUE(other.started());
    const Result text = fathom({"--db", db(), "sweep", "status", "s"});
    ASSERT_EQ(text.status, 0) << text.err;
    // The holder is a fork of this test program, no run's worker: nothing of Fathom ends it.
    const std::string holder = std::to_string(other.pid()) + " (" + program_invocation_short_name +
                               "), not a running run's worker: nothing of Fathom puts it down";
    EXPECT_TRUE(contains(text.out, said + holder)) << text.out;
    EXPECT_TRUE(contains(text.out, ", still a second later")) << text.out;
    const Result json = fathom({"--db", db(), "--json", "sweep", "status", "s"});
    ASSERT_EQ(json.status, 0) << json.err;
    EXPECT_EQ(nlohmann::json::parse(json.out)["store_locked_by"], other.pid());
    EXPECT_TRUE(contains(nlohmann::json::parse(json.out)["store_lock_holder"].get<std::string>(),
                         "pid " + holder));
    ASSERT_TRUE(other.commit());
    const Result free = fathom({"--db", db(), "--json", "sweep", "status", "s"});
    ASSERT_EQ(free.status, 0) << free.err;
    EXPECT_TRUE(nlohmann::json::parse(free.out)["store_locked_by"].is_null());
  }
  const Result text = fathom({"--db", db(), "sweep", "status", "s"});
  EXPECT_FALSE(contains(text.out, said)) << text.out;
}

// A sub-layer style name is checked against the method registry at the axis value's line,
// with a suggestion, before anything is queued; the registered styles all pass --dry-run.
TEST_F(Cli, SweepOverAnUnknownStyleFailsAtItsLine) {
  write("tiny.yaml", kTinyConfig);
  const std::string bad =
      write("bad.yaml", "name: styles\nbase: tiny.yaml\ngrid:\n  model.norm: [peri, lnss]\n");
  const Result refused = fathom({"--db", db(), "sweep", bad, "--no-progress"});
  EXPECT_EQ(refused.status, 2);
  EXPECT_TRUE(contains(refused.err, "bad.yaml:4: 'model.norm'")) << refused.err;
  EXPECT_TRUE(contains(refused.err, "did you mean 'lns'")) << refused.err;
  EXPECT_TRUE(runs_in_store().empty());
  const std::string good = write(
      "good.yaml", "name: styles\nbase: tiny.yaml\ngrid:\n  model.norm: [peri, mix, lns, dyt]\n");
  const Result dry = fathom({"--db", db(), "sweep", good, "--dry-run"});
  ASSERT_EQ(dry.status, 0) << dry.err;
  EXPECT_TRUE(contains(dry.out, "4 runs")) << dry.out;
}

// `sweep --set` and `--name` from the command line: --dry-run shows the values and the new
// run names; an axis key is refused at "--set" naming the axis's line, before anything is queued.
TEST_F(Cli, SweepSetAndNameFromTheCommandLine) {
  write("tiny.yaml", kTinyConfig);
  const std::string sweep =
      write("s.yaml", "name: s\nbase: tiny.yaml\ngrid:\n  model.norm: [post, pre]\n");
  const Result dry = fathom({"--db", db(), "sweep", sweep, "--name", "s-long", "--set",
                             "train.max_updates=321", "--dry-run"});
  ASSERT_EQ(dry.status, 0) << dry.err;
  EXPECT_TRUE(contains(dry.out, "every run: --set train.max_updates=321")) << dry.out;
  EXPECT_TRUE(contains(dry.out, "s-long/norm=pre")) << dry.out;
  const Result axis = fathom({"--db", db(), "sweep", sweep, "--set", "model.norm=pre"});
  EXPECT_EQ(axis.status, 2);
  EXPECT_TRUE(contains(axis.err, "--set: 'model.norm': is varied by an axis")) << axis.err;
  EXPECT_TRUE(contains(axis.err, "s.yaml line 4")) << axis.err;
  EXPECT_TRUE(runs_in_store().empty());
}

// A resume whose checkpoints are all unreadable is refused (exit 2, naming the file) and the
// finished run stays finished with its times: it is not turned into a failed run.
TEST_F(Cli, UnreadableCheckpointsLeaveAFinishedRunFinished) {
  const std::string config = write("tiny.yaml", kTinyConfig);
  ASSERT_EQ(fathom({"--db", db(), "train", config, "--no-progress"}).status, 0);
  const auto before = runs_in_store();
  ASSERT_EQ(before.size(), 1u);
  const std::string last = recorded(1, "checkpoint_last");
  for (const char* kind : {"checkpoint_last", "checkpoint_previous"})
    if (const std::string path = recorded(1, kind); !path.empty()) fs::resize_file(path, 64);
  const Result r = fathom(
      {"--db", db(), "train", "--resume", "1", "--no-progress", "--set", "train.max_updates=40"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(contains(r.err, last)) << r.err;
  const auto after = runs_in_store();
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].status, "finished");
  EXPECT_EQ(after[0].started_at, before[0].started_at);
  EXPECT_EQ(after[0].finished_at, before[0].finished_at);
}

TEST_F(Cli, ResumeContinuesTheSameRun) {
  const std::string config = write("tiny.yaml", kTinyConfig);
  const Result first = fathom(
      {"--db", db(), "train", config, "--no-progress", "--set", "train.lr=0.00512345678901234"});
  ASSERT_EQ(first.status, 0) << first.err;
  const Result r = fathom({"--db", db(), "train", "--resume", "cli-tiny", "--no-progress", "--set",
                           "train.max_updates=18"});
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const auto runs = runs_in_store();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, "finished");
  EXPECT_EQ(runs[0].updates, 18);
  auto store = fathom::db::Store::open(db(), fathom::db::OpenMode::ReadOnly);
  std::vector<int64_t> steps;
  for (const auto& p : store.metric_series(runs[0].id, "train_loss")) steps.push_back(p.step);
  EXPECT_EQ(steps, (std::vector<int64_t>{3, 6, 9, 12, 15, 18}));
  // The learning rate after resuming is still the configured one, to the last digit (the
  // stored YAML must carry it exactly): lr at update 18 = peak * sqrt(10 / 18).
  const auto lr = store.metric_series(runs[0].id, "lr");
  ASSERT_FALSE(lr.empty());
  EXPECT_EQ(lr.back().step, 18);
  EXPECT_DOUBLE_EQ(lr.back().value, 0.00512345678901234 * std::sqrt(10.0 / 18.0));

  // A resume never ends a run before the update it reached: refused naming that update, and
  // nothing of the run changes (issue 57 item 6: it restarted from 0 and deleted the later
  // curve rows).
  const Result lower = fathom({"--db", db(), "train", "--resume", "cli-tiny", "--no-progress",
                               "--set", "train.max_updates=10"});
  EXPECT_EQ(lower.status, 2) << lower.err;
  EXPECT_NE(lower.err.find("train.max_updates=10 is below update 18"), std::string::npos)
      << lower.err;
  EXPECT_NE(lower.err.find("give 18 or more"), std::string::npos) << lower.err;
  std::vector<int64_t> after;
  for (const auto& p : store.metric_series(runs[0].id, "train_loss")) after.push_back(p.step);
  EXPECT_EQ(after, steps);
  EXPECT_EQ(runs_in_store()[0].updates, 18);
  EXPECT_EQ(runs_in_store()[0].status, "finished");
}

// `train --fork` from the command line: a new run named after its parent and update, tagged
// with what it changed, trained to the parent's end; an update without a kept checkpoint exits
// 2 naming the nearest. `show` lists a loss spike with its rolling mean (points written here).
TEST_F(Cli, ForkFromAKeptCheckpointAndShowItsSpikes) {
  const std::string config = write("tiny.yaml", kTinyConfig);
  ASSERT_EQ(fathom({"--db", db(), "train", config, "--no-progress", "--set",
                    "train.keep_checkpoint_every=6"})
                .status,
            0);
  const Result fork = fathom({"--db", db(), "train", "--fork", "cli-tiny", "--from", "6",
                              "--no-progress", "--set", "train.lr=0.001"});
  ASSERT_EQ(fork.status, 0) << fork.err;
  auto runs = runs_in_store();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].name, "cli-tiny fork@6");
  EXPECT_EQ(runs[1].status, "finished");
  EXPECT_EQ(runs[1].updates, 12);
  {
    auto store = fathom::db::Store::open(db(), fathom::db::OpenMode::ReadOnly);
    const auto tags = store.tags(runs[1].id);
    EXPECT_EQ(tags.at("forked_from"), std::to_string(runs[0].id));
    EXPECT_EQ(tags.at("fork.settings"), "train.lr=0.001");
  }
  const Result fork_shown = fathom({"--db", db(), "show", std::to_string(runs[1].id)});
  EXPECT_NE(fork_shown.out.find("  fork of    run " + std::to_string(runs[0].id) +
                                " at update 6 (train.lr=0.001)\n"),
            std::string::npos)
      << fork_shown.out;
  const Result parent_shown = fathom({"--db", db(), "show", std::to_string(runs[0].id)});
  EXPECT_EQ(parent_shown.out.find("fork of"), std::string::npos);
  EXPECT_NE(parent_shown.out.find("  forks      1 run: #" + std::to_string(runs[1].id) + "\n"),
            std::string::npos)
      << parent_shown.out;
  const Result parent_json = fathom({"--db", db(), "--json", "show", std::to_string(runs[0].id)});
  EXPECT_EQ(nlohmann::json::parse(parent_json.out)["forks"], nlohmann::json::array({runs[1].id}));
  const Result refused =
      fathom({"--db", db(), "train", "--fork", "cli-tiny", "--from", "5", "--no-progress"});
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("the nearest are updates 6 (it has 6, 12)"), std::string::npos)
      << refused.err;
  // What the parent's checkpoint holds -- the model's shape, the data, the optimizer's kind --
  // cannot change: refused before a run is made (before, the fork was made and then failed).
  for (const std::string change :
       {"model.d_model=32", "data.max_tokens=512", "train.optimizer=muon", "model.norm=pre"}) {
    const Result unforkable = fathom({"--db", db(), "train", "--fork", "cli-tiny", "--from", "6",
                                      "--no-progress", "--set", change});
    EXPECT_EQ(unforkable.status, 2) << change << ": " << unforkable.err;
    const std::string key = change.substr(0, change.find('='));
    EXPECT_NE(unforkable.err.find("changing " + key + " would not continue them"),
              std::string::npos)
        << unforkable.err;
  }
  EXPECT_EQ(runs_in_store().size(), 2u);

  int64_t spiky = 0;
  {
    auto store = fathom::db::Store::open(db());
    fathom::db::NewRun run;
    run.name = "spiky";
    run.config_json = "{}";
    spiky = store.create_run(run);
    std::vector<fathom::db::MetricRow> rows;
    for (int step = 1; step <= 30; ++step)
      rows.emplace_back(step * 10, "train_loss", step == 25 ? 9.0 : 3.0 + 0.01 * (step % 3), 0.0);
    store.write_metrics(spiky, rows);
  }
  const Result shown = fathom({"--db", db(), "show", std::to_string(spiky)});
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_NE(shown.out.find("spikes of train_loss (> 4 std above the mean of the 20 points"),
            std::string::npos)
      << shown.out;
  EXPECT_NE(shown.out.find("update 250"), std::string::npos) << shown.out;
  const Result json = fathom({"--db", db(), "--json", "show", std::to_string(spiky)});
  const auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["spikes"]["train_loss"].size(), 1u);
  EXPECT_EQ(j["spikes"]["train_loss"][0]["step"], 250);
}

}  // namespace test_cli
