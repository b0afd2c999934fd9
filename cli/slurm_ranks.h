#pragma once
// The tasks of one Slurm step (`srun --ntasks N fathom worker --slurm-ranks ...`, written by the
// Slurm launcher for a sweep whose runs have train.processes N) as one data-parallel run's ranks
// (docs/distributed.md). Task 0 is the worker: it claims the run, serves the rendezvous and
// writes its address to a file of the step's in the shared artifacts folder; the other tasks
// wait for that file and follow. Where task 0 ends without a run to lead, the file says so and
// the others end too.
#include <optional>
#include <string>

namespace fathom::cli {

struct SlurmStepRanks {
  int rank = 0, world = 1;      // SLURM_PROCID, SLURM_NTASKS of the step
  std::string rendezvous_file;  // <artifacts>/slurm/rendezvous/<job>.<step>.<restarts>
};

// The step's ranks from Slurm's environment; an InputError naming --slurm-ranks outside a step.
SlurmStepRanks slurm_step_ranks(const std::string& artifacts_root);

// Task 0 ended without leading a run (none queued, an error): the others stop waiting.
void release_slurm_followers(const SlurmStepRanks& step);

// A task other than 0: waits for task 0's address and follows its run. The exit status.
int follow_slurm_step(const SlurmStepRanks& step);

}  // namespace fathom::cli
