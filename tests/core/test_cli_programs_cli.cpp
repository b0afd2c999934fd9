// `fathom` and `fathom-torch` (cli/command_line.h): the program users call serves the commands
// that need no model (the store's, `compare`, `data`) without LibTorch and hands every other
// argument list to fathom-torch beside it. Shown by a copy of `fathom` alone in a folder (no
// fathom-torch beside it): what it serves still works there, what it hands on fails saying which
// program is missing. Both programs register a served command with the same code, so their help for
// it is the same text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/config/config_io.h"
#include "base/util/process.h"
#include "cli/command_line.h"
#include "core/data/synthetic.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"

namespace test_cli_programs_cli {
namespace fs = std::filesystem;
namespace ft = fathom::testing;

class CliPrograms : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::copy_file(ft::built_fathom_binary(), alone());
    fathom::db::NewRun run;
    run.name = "first";
    run.sweep = "s";
    fathom::db::Store::open(db()).create_run(run);
  }
  std::string alone() const { return (dir_.path() / "fathom").string(); }
  std::string db() const { return (dir_.path() / "runs.db").string(); }
  fathom::ProgramResult run(const std::string& program, std::vector<std::string> args) const {
    args.insert(args.begin(), program);
    return fathom::run_program(args, "", {}, 120);
  }
  ft::TempDir dir_;
};

// The argument lists the front serves: each a store command, its globals before or after it.
TEST_F(CliPrograms, TheStoresCommandsRunWithoutFathomTorch) {
  const std::vector<std::vector<std::string>> served = {
      {"--db", db(), "runs"},
      {"--json", "--db", db(), "runs"},
      {"--db=" + db(), "show", "first"},
      {"runs", "--db", db()},
      {"--db", db(), "export", "table", "--help"},
      {"--db", db(), "db", "upgrade"},
      {"metrics"},
      {"--db", db(), "sweep", "status", "s"},
      {"sweep", "status", "s", "--db", db(), "--json"},
  };
  for (const auto& args : served) {
    const auto result = run(alone(), args);
    EXPECT_EQ(result.exit_code, 0) << args[0] << " " << args.back() << ": " << result.err;
    EXPECT_EQ(result.err.find("fathom-torch"), std::string::npos) << result.err;
  }
  const auto json = run(alone(), {"--json", "--db", db(), "runs"});
  EXPECT_NE(json.out.find("\"first\""), std::string::npos) << json.out;
  const auto status = run(alone(), {"--db", db(), "sweep", "status", "s"});
  EXPECT_NE(status.out.find("1 runs: 1 queued"), std::string::npos) << status.out;
}

// `compare`'s paired bootstrap without fathom-torch: it reads each run's stored test
// hypotheses and their references, generated here from the synthetic task's config (no
// training corpus prepared, no model). Run 2 stored the task's test targets themselves, so
// against the references read its BLEU is exactly 100; run 3 dropped each sentence's last
// symbol, and scores less.
TEST_F(CliPrograms, CompareTestsStoredHypothesesWithoutFathomTorch) {
  const std::string yaml =
      "data:\n  task: synthetic\n  synthetic: {vocab: 12, train_size: 30, valid_size: 5, "
      "test_size: 40, min_len: 4, max_len: 9, seed: 7}\n";
  const fathom::RunConfig config = fathom::load_config_string(yaml, "test", "");
  const auto references = fathom::make_synthetic_task(config.data.synthetic).test.target;
  ASSERT_EQ(references.size(), 40u);
  auto store = fathom::db::Store::open(db());
  for (const bool shortened : {false, true}) {
    fathom::db::NewRun run;
    run.name = shortened ? "shortened" : "exact";
    run.config_yaml = yaml;
    run.config_json = fathom::config_to_json(config).dump();
    run.status = "finished";
    const int64_t id = store.create_run(run);
    // Where `fathom train` leaves it: the run's folder in the store's artifacts folder.
    const fs::path file =
        dir_.path() / "runs.artifacts" / ("run-" + std::to_string(id)) / "test.hyp";
    fs::create_directories(file.parent_path());
    std::ofstream out(file);
    for (const std::string& sentence : references)
      out << (shortened ? sentence.substr(0, sentence.rfind(' ')) : sentence) << "\n";
    out.close();
    store.add_artifact(id, "hypotheses", file.string(), std::nullopt);
  }
  const auto result = run(alone(), {"--json", "--db", db(), "compare", "2", "3"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto json = nlohmann::json::parse(result.out);
  ASSERT_TRUE(json.contains("paired_bootstrap") && json["paired_bootstrap"].contains("versus_3"))
      << result.out;
  const auto& paired = json["paired_bootstrap"]["versus_3"];
  EXPECT_DOUBLE_EQ(paired.at("baseline").at("bleu").get<double>(), 100.0) << result.out;
  EXPECT_LT(paired.at("system").at("bleu").get<double>(), 100.0) << result.out;
}

// Everything else goes to fathom-torch: a model's commands, a command
// without its sub-command, no command, the top-level help, and words that name no command (its
// answer names the closest).
TEST_F(CliPrograms, EveryOtherArgumentListIsHandedToFathomTorch) {
  const std::vector<std::vector<std::string>> handed = {
      {"train", "config.yaml"},
      {"sweep", "s.yaml"},
      {"sweep", "--help"},
      {"sweep"},
      {"--db", db(), "analyze", "beta", "config.yaml"},
      {"export"},
      {},
      {"--help"},
      {"trian"},
      {"--db", "runs", "trian"},
  };
  for (const auto& args : handed) {
    const auto result = run(alone(), args);
    EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
    EXPECT_NE(result.err.find("cannot run " + (dir_.path() / "fathom-torch").string()),
              std::string::npos)
        << result.err;
  }
  // Handed on, a command says exactly what fathom-torch says, and nothing of the front's.
  const std::string torch = ft::built_beside_fathom("fathom-torch").string();
  const auto via_front = run(ft::built_fathom_binary().string(), {"config", "missing.yaml"});
  const auto direct = run(torch, {"config", "missing.yaml"});
  EXPECT_EQ(via_front.exit_code, 2);
  EXPECT_EQ(via_front.exit_code, direct.exit_code);
  EXPECT_EQ(via_front.err, direct.err);
  EXPECT_EQ(via_front.out, direct.out);
  const auto hint = run(ft::built_fathom_binary().string(), {"trian"});
  EXPECT_EQ(hint.exit_code, 2);
  EXPECT_NE(hint.err.find("did you mean 'train'?"), std::string::npos) << hint.err;
}

TEST_F(CliPrograms, BothProgramsGiveAServedCommandTheSameHelp) {
  const std::string torch = ft::built_beside_fathom("fathom-torch").string();
  const std::vector<std::vector<std::string>> served = {{"runs"},
                                                        {"show"},
                                                        {"delete"},
                                                        {"cancel"},
                                                        {"bleu"},
                                                        {"report"},
                                                        {"metrics"},
                                                        {"db", "copy"},
                                                        {"export", "table"},
                                                        {"export", "lr-sensitivity"},
                                                        {"export", "importance"},
                                                        {"export", "lr-transfer"},
                                                        {"export", "plot"},
                                                        {"export", "verdicts"},
                                                        {"compare"},
                                                        {"data", "get"},
                                                        {"data", "prepare"},
                                                        {"sweep", "status"},
                                                        {"sweep", "cancel"}};
  for (const auto& command : served) {
    auto args = command;
    args.push_back("--help");
    const auto front = run(ft::built_fathom_binary().string(), args);
    const auto back = run(torch, args);
    EXPECT_EQ(front.exit_code, 0) << command.back();
    EXPECT_FALSE(front.out.empty()) << command.back();
    // The usage line names the program as it was called; the rest is the registration's.
    std::string expected = back.out;
    const std::string front_path = ft::built_fathom_binary().string();
    for (size_t at; (at = expected.find(torch)) != std::string::npos;)
      expected.replace(at, torch.size(), front_path);
    EXPECT_EQ(front.out, expected) << command.back();
  }
}

// The front needs no LibTorch: the dynamic loader lists no libtorch for it, and does for
// fathom-torch.
TEST_F(CliPrograms, TheFrontLinksNoLibTorch) {
  const auto front = run("ldd", {ft::built_fathom_binary().string()});
  const auto back = run("ldd", {ft::built_beside_fathom("fathom-torch").string()});
  ASSERT_EQ(front.exit_code, 0) << front.err;
  EXPECT_EQ(front.out.find("libtorch"), std::string::npos) << front.out;
  EXPECT_NE(back.out.find("libtorch"), std::string::npos) << back.out;
}

// The front starts fathom-torch with its heap on huge pages (kTorchHeapTunables), a fifth less
// CPU to load LibTorch, unless the caller set GLIBC_TUNABLES: then the caller's stays. Seen by a
// stand-in fathom-torch beside the copied front that prints what it was given.
TEST_F(CliPrograms, FathomTorchStartsWithItsHeapTunablesUnlessTheCallerSetSome) {
  const fs::path stand_in = dir_.path() / "fathom-torch";
  std::ofstream(stand_in) << "#!/bin/sh\necho \"tunables=$GLIBC_TUNABLES args=$*\"\n";
  fs::permissions(stand_in, fs::perms::owner_all);
  std::vector<std::string> argv{alone(), "train", "config.yaml"};
  const auto unset = fathom::run_program(argv, "", {"PATH=/usr/bin:/bin"}, 60);
  EXPECT_EQ(unset.exit_code, 0) << unset.err;
  EXPECT_EQ(unset.out, std::string("tunables=") + fathom::cli::kTorchHeapTunables +
                           " args=train config.yaml\n");
  const auto own = fathom::run_program(
      argv, "", {"PATH=/usr/bin:/bin", "GLIBC_TUNABLES=glibc.malloc.arena_max=2"}, 60);
  EXPECT_EQ(own.out, "tunables=glibc.malloc.arena_max=2 args=train config.yaml\n");
}

}  // namespace test_cli_programs_cli
