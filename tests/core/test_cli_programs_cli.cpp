// `fathom` and `fathom-torch` (cli/command_line.h): the program users call serves the store's
// commands without LibTorch and hands every other argument list to fathom-torch beside it. Shown
// by a copy of `fathom` alone in a folder (no fathom-torch beside it): what it serves still
// works there, what it hands on fails saying which program is missing. Both programs register
// a served command with the same code, so their help for it is the same text.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/util/process.h"
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

// Everything else goes to fathom-torch: a model's commands, `export verdicts`, a command
// without its sub-command, no command, the top-level help, and words that name no command (its
// answer names the closest).
TEST_F(CliPrograms, EveryOtherArgumentListIsHandedToFathomTorch) {
  const std::vector<std::vector<std::string>> handed = {
      {"train", "config.yaml"},
      {"sweep", "s.yaml"},
      {"sweep", "--help"},
      {"sweep"},
      {"--db", db(), "export", "verdicts"},
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

}  // namespace test_cli_programs_cli
