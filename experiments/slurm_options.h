#pragma once
// The `slurm:` section of a sweep file (docs/cluster.md): what every array task of the sweep
// asks Slurm for. Checked like every other key: an unknown key, a malformed time or memory
// size, a directive Fathom sets itself -> InputError with the sweep file, line and key.
//
//   slurm:
//     partition: gpu
//     time: "04:00:00"        # [D-]HH:MM:SS, MM:SS or minutes
//     gres: gpu:1
//     cpus: 8                 # --cpus-per-task; also the worker's train.threads
//     mem: 32G
//     account: mylab
//     qos: normal
//     max_parallel: 4         # --array=...%4: at most 4 tasks at once (default: --jobs)
//     signal_seconds: 90      # warning before a time limit or preemption (USR2)
//     extra: ["--constraint=a100", "--exclude=node7"]
#include <map>
#include <string>
#include <vector>

namespace YAML {
class Node;
}

namespace fathom::experiments {

struct SlurmOptions {
  std::string partition, time, gres, mem, account, qos;
  int cpus = 0;                      // --cpus-per-task; 0: Slurm's default
  int max_parallel = 0;              // the array's %K; 0: the sweep's --jobs
  int signal_seconds = 90;           // --signal=B:USR2@N
  std::vector<std::string> extra;    // more #SBATCH directives, each "--option[=value]"
  std::string file;                  // the sweep file, for errors
  std::map<std::string, int> lines;  // key -> line it was written on (0: not written)

  int line_of(const std::string& key) const;
  // Whether the tasks ask for a GPU (gres gpu[:type][:n]).
  bool requests_gpu() const;
};

// Parses the section's mapping; errors name `file`, the line and "slurm.<key>".
SlurmOptions parse_slurm_options(const YAML::Node& node, const std::string& file);

// The #SBATCH directives of these options (partition, time, gres, ...), in a fixed order.
std::vector<std::string> slurm_directives(const SlurmOptions& options);

}  // namespace fathom::experiments
