// `fathom rank --rendezvous HOST:PORT --rank R --world N`: one rank other than 0 of a
// data-parallel run, started by rank 0 (`fathom train --nproc N`, a worker of a run with
// train.processes > 1; cli/rank_launch.h). It takes everything else from rank 0 and writes
// nothing. Not for people to type: hidden from the help.
#include <memory>
#include <string>

#include "base/util/error.h"
#include "cli/commands.h"
#include "cli/rank_launch.h"

namespace fathom::cli {
namespace {

struct RankArgs {
  std::string rendezvous;
  int rank = 0, world = 0;
  std::string gloo_host;
};

}  // namespace

void add_rank_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<RankArgs>();
  CLI::App* cmd = app.add_subcommand("rank", "one rank (> 0) of a data-parallel run");
  cmd->group("");  // internal: started by rank 0
  cmd->add_option("--rendezvous", args->rendezvous, "rank 0's HOST:PORT")->required();
  cmd->add_option("--rank", args->rank, "this rank (1 .. world - 1)")->required();
  cmd->add_option("--world", args->world, "ranks in all")->required();
  cmd->add_option("--gloo-host", args->gloo_host, "this host's address for the group");
  cmd->callback([args] {
    if (args->world < 2 || args->rank < 1 || args->rank >= args->world)
      throw InputError("fathom rank", 0, "--rank",
                       "rank " + std::to_string(args->rank) + " of " + std::to_string(args->world) +
                           ": expected 1 .. world - 1");
    const int status =
        follow_rank(args->rank, args->world, parse_rank_address(args->rendezvous, "--rendezvous"),
                    args->gloo_host);
    if (status != 0) throw CommandExit{status};
  });
}

}  // namespace fathom::cli
