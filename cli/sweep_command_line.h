#pragma once
// `fathom sweep`'s command line: its options, and its `status`, `cancel` and `extend`
// sub-commands, which only read and write the store (and `extend` a sweep file). Registered alike
// by both programs (cli/command_line.h): by fathom-torch, whose `sweep FILE` runs the sweep
// (cli/cmd_sweep.cpp), and by the front, which serves `sweep status`, `sweep cancel` and `sweep
// extend` itself.
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "db/heartbeat.h"
#include "experiments/run_control.h"

namespace fathom::cli {

struct SweepArgs {
  std::string file;
  bool dry_run = false;
  bool resume = false;
  bool no_progress = false;
  int jobs = 1;
  std::string devices = "auto";        // --devices cuda:0,cuda:1; "auto": every visible GPU; "none"
  std::vector<std::string> overrides;  // --set KEY=VALUE: fixed values for every run
  std::string rename;                  // --name: the sweep under another name
  std::string launcher;  // --launcher; empty: the one whose section the sweep file has
  bool wait = false;     // --wait: follow a cluster launch until it ends
  bool yes = false;      // --yes: queue more than kManyRuns runs
  double heartbeat_timeout = experiments::kDefaultHeartbeatTimeout;
  double heartbeat_interval = db::HeartbeatThread::kDefaultInterval;
  std::vector<std::string> retry;  // --retry: ended statuses a resume takes back
};

// Adds `sweep` with every option into `args`, and its `status NAME`, `cancel NAME` and
// `extend FILE` sub-commands (their own callbacks); returns it for the caller's callback. `sweep`
// needs no sub-command: the front, which cannot run a sweep, requires one of its own copy.
CLI::App* add_sweep_command_line(CLI::App& app, const std::shared_ptr<SweepArgs>& args,
                                 GlobalOptions& global);

// `sweep extend FILE`: the sweep file of one more learning rate for the curves whose optimum is
// at the grid's end (cli/cmd_sweep_extend.cpp); added by add_sweep_command_line.
void add_sweep_extend_command(CLI::App& sweep_cmd, GlobalOptions& global);

}  // namespace fathom::cli
