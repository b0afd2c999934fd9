// Running a program to its end with its output captured (base/util/process.h): how sbatch,
// squeue, scancel and scontrol are called, and what a person is told when one of them fails.
#include <gtest/gtest.h>

#include <csignal>
#include <string>

#include "base/util/process.h"

namespace test_run_program {
using fathom::program_end;
using fathom::ProgramResult;
using fathom::run_program;

TEST(RunProgram, BothOutputsAndTheExitCodeComeBack) {
  const ProgramResult r = run_program({"sh", "-c", "cat; echo to-err >&2; exit 3"}, "from-in\n");
  EXPECT_EQ(r.out, "from-in\n");
  EXPECT_EQ(r.err, "to-err\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(program_end(r), "exit 3");
}

// The case of `scontrol requeue` inside the job it requeues: Slurm SIGTERMs every process of
// the job, scontrol included. A program that signals itself stands in for that SIGTERM.
TEST(RunProgram, AProgramStartedWithSigtermIgnoredOutlivesOne) {
  const std::vector<std::string> self_terminating = {"sh", "-c", "kill -TERM $$; echo survived"};
  const ProgramResult killed = run_program(self_terminating);
  EXPECT_EQ(killed.exit_code, 128 + SIGTERM);
  EXPECT_EQ(killed.out, "");
  EXPECT_EQ(program_end(killed), "killed by signal 15 (Terminated)");

  const ProgramResult shielded = run_program(self_terminating, "", {}, 60, {SIGTERM});
  EXPECT_EQ(shielded.exit_code, 0) << program_end(shielded);
  EXPECT_EQ(shielded.out, "survived\n");
  // The ignoring is the child's alone: this process still has SIGTERM's default action.
  struct sigaction mine {};
  ASSERT_EQ(sigaction(SIGTERM, nullptr, &mine), 0);
  EXPECT_EQ(mine.sa_handler, SIG_DFL);
}

TEST(RunProgram, TimeoutsAndMissingProgramsSaySo) {
  const ProgramResult slow = run_program({"sleep", "5"}, "", {}, 0.2);
  EXPECT_TRUE(slow.timed_out);
  EXPECT_EQ(program_end(slow), "timed out");

  const ProgramResult missing = run_program({"fathom-no-such-program"});
  EXPECT_EQ(missing.exit_code, -1);
  EXPECT_EQ(program_end(missing), "not started");
  EXPECT_NE(missing.err.find("fathom-no-such-program: not found on PATH"), std::string::npos);
}

}  // namespace test_run_program
