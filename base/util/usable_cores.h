#pragma once

namespace fathom {

// The CPUs this thread may run on: its affinity mask's count (taskset, a Slurm or container
// cpuset), not the machine's hardware_concurrency(), which counts every core and so gives
// "all cores" runs more threads than they may use (three analyses side by side on a third
// of a machine each would each start a thread per core of the machine). At least 1.
int usable_cores();

}  // namespace fathom
