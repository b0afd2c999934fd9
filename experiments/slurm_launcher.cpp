// The Slurm launcher: one job array per sweep launch, submitted with sbatch. Every array task
// runs `fathom worker --sweep NAME`, which claims the next queued run from the store -- so a
// task Slurm requeues (preemption, a time limit) simply claims again, and nothing about a run
// travels in argv. The store and artifacts root reach the tasks through sbatch's exported
// environment ($FATHOM_DB, $FATHOM_ARTIFACTS): the batch script on disk holds no password.
//
// Following: squeue tells which tasks are still queued or running; a run left "running" in
// the store after its task left the queue died without recording an end (scontrol gives the
// job's final state while Slurm still remembers it).
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "base/util/error.h"
#include "base/util/file_write.h"
#include "base/util/process.h"
#include "base/util/strings.h"
#include "db/heartbeat.h"
#include "db/run_status.h"
#include "experiments/launcher_registry.h"
#include "experiments/slurm_options.h"
#include "experiments/sweep_spec.h"

namespace fathom::experiments {
namespace {
namespace fs = std::filesystem;

const std::string kSlurmName = "slurm";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& line : split(text, '\n'))
    if (!trim(line).empty()) out.push_back(trim(line));
  return out;
}

std::string tag_or(const WorkerTags& tags, const std::string& key,
                   const std::string& fallback = "") {
  auto it = tags.find(key);
  return it == tags.end() ? fallback : it->second;
}

// JobState=... of `scontrol show job ID` while Slurm still remembers the job, else "".
std::string final_job_state(const std::string& job) {
  const ProgramResult r = run_program({"scontrol", "-o", "show", "job", job}, "", {}, 20);
  if (r.exit_code != 0) return "";
  const auto at = r.out.find("JobState=");
  if (at == std::string::npos) return "";
  std::string state = r.out.substr(at + 9, r.out.find(' ', at) - at - 9);
  const auto reason = r.out.find(" Reason=");
  if (reason != std::string::npos) {
    const std::string why = r.out.substr(reason + 8, r.out.find(' ', reason + 1) - reason - 8);
    if (why != "None") state += ", " + why;
  }
  return state;
}

class SlurmLauncher : public Launcher {
 public:
  explicit SlurmLauncher(const SweepSpec& spec)
      : options_(section_settings(spec, kSlurmName, SlurmOptions{})) {
    if (options_.file.empty()) options_.file = spec.file;
  }

  std::string name() const override { return kSlurmName; }

  void check(const LaunchRequest& request, const std::vector<RunConfig>& configs) override {
    for (const char* tool : {"sbatch", "squeue", "scancel", "scontrol", "sinfo"})
      if (!find_on_path(tool))
        fail("", std::string(tool) +
                     " not found on PATH: --launcher slurm needs Slurm's client "
                     "commands (run on a login node, or install slurm-client)");
    // The partition the tasks will run in: the named one, else the cluster's default.
    std::string partition = options_.partition;
    const ProgramResult parts = run_program({"sinfo", "-h", "-o", "%P|%G"}, "", {}, 30);
    if (parts.exit_code != 0)
      fail("", "sinfo could not reach the Slurm controller: " + trim(parts.err + parts.out));
    std::map<std::string, std::string> gres_of;  // partition -> its nodes' gres ("(null)": none)
    std::string fallback;
    for (const std::string& line : lines_of(parts.out)) {
      auto bar = line.find('|');
      std::string name = line.substr(0, bar);
      const std::string gres = bar == std::string::npos ? "" : line.substr(bar + 1);
      const bool is_default = !name.empty() && name.back() == '*';
      if (is_default) name.pop_back();
      gres_of[name] += (gres_of[name].empty() ? "" : ",") + gres;
      if (is_default) fallback = name;
    }
    if (partition.empty()) partition = fallback;
    if (!options_.partition.empty() && !gres_of.count(options_.partition)) {
      std::vector<std::string> known;
      for (const auto& [name, gres] : gres_of) known.push_back(name);
      fail("partition", "Slurm has no partition '" + options_.partition +
                            "' (partitions: " + join(known, ", ") + ")");
    }
    // One job array asks every task for the same number of tasks (its step's ranks).
    std::set<int> processes;
    for (const RunConfig& c : configs) processes.insert(c.train.processes);
    if (processes.size() > 1)
      fail("", "the sweep's runs differ in train.processes (" + std::to_string(*processes.begin()) +
                   " to " + std::to_string(*processes.rbegin()) +
                   "): a Slurm job array gives every task the same --ntasks; sweep them apart");
    processes_ = processes.empty() ? 1 : *processes.begin();
    bool config_wants_gpu = false;
    for (const RunConfig& c : configs) config_wants_gpu |= c.device.rfind("cuda", 0) == 0;
    if (config_wants_gpu && !options_.requests_gpu())
      fail(options_.lines.count("gres") ? "gres" : "",
           "the runs' device is cuda but the tasks ask for no GPU: add 'gres: gpu:1' to the slurm: "
           "section");
    if (options_.requests_gpu()) {
      const std::string gres = gres_of.count(partition) ? gres_of[partition] : "";
      if (gres.find("gpu") == std::string::npos)
        fail(options_.lines.count("partition") ? "partition" : "gres",
             "the runs need a GPU (gres " + options_.gres + ") but partition '" + partition +
                 "' has none (its nodes' generic resources: " + (gres.empty() ? "none" : gres) +
                 ")");
    }
    (void)request;
  }

  std::string launch(db::Store& store, const LaunchRequest& request) override {
    sweep_ = request.sweep;
    // Only workers elsewhere to follow: an array of no task cannot be submitted.
    if (request.runs == 0) return "no queued run: no job array submitted";
    const int parallel =
        options_.max_parallel > 0 ? options_.max_parallel : std::max(1, request.parallel);
    const fs::path log_dir = fs::path(request.artifacts_root) / "slurm" / request.sweep;
    fs::create_directories(log_dir);
    std::string script = "#!/bin/sh\n";
    auto directive = [&](const std::string& d) { script += "#SBATCH " + d + "\n"; };
    directive("--job-name=fathom-" + request.sweep);
    directive("--array=0-" + std::to_string(request.runs - 1) + "%" + std::to_string(parallel));
    directive("--requeue");
    // B: the signal goes to the batch shell, which exec's the worker. Not USR1: NCCL takes it.
    directive("--signal=B:USR2@" + std::to_string(options_.signal_seconds));
    directive("--output=" + (log_dir / "%A_%a.out").string());
    directive("--open-mode=append");  // a requeued task adds to its log instead of replacing it
    for (const std::string& d : slurm_directives(options_)) directive(d);
    script += "# Each task claims the next queued run of the sweep from the store ($FATHOM_DB).\n";
    // A run of train.processes N: the task is one step of N tasks, its data-parallel ranks.
    if (processes_ > 1) directive("--ntasks=" + std::to_string(processes_));
    script += "exec ";
    if (processes_ > 1)
      script += "srun --ntasks=" + std::to_string(processes_) + " --kill-on-bad-exit=1 ";
    script += shell_quote(request.fathom_binary) + " worker --sweep " + shell_quote(request.sweep);
    if (processes_ > 1) script += " --slurm-ranks";
    if (options_.requests_gpu()) script += " --device cuda";  // Slurm sets CUDA_VISIBLE_DEVICES
    if (request.heartbeat_s != db::HeartbeatThread::kDefaultInterval)
      script += " --heartbeat " + format_number(request.heartbeat_s);
    script += "\n";
    const auto stamp = std::to_string(static_cast<long long>(db::unix_now()));
    const fs::path kept = log_dir / ("submit-" + stamp + ".sh");
    write_file_or_throw(kept.string(), script, "the Slurm submit script");

    const auto env = environment_with(
        {"FATHOM_DB=" + request.db_location, "FATHOM_ARTIFACTS=" + request.artifacts_root});
    const ProgramResult r = run_program({"sbatch", "--parsable"}, script, env, 120);
    if (r.exit_code != 0 || trim(r.out).empty())
      fail("", "sbatch refused the job array" +
                   (r.timed_out ? std::string(" (no answer in 120 s)") : "") + ": " +
                   trim(r.err.empty() ? r.out : r.err));
    array_job_ = trim(r.out.substr(0, r.out.find(';')));  // "ID" or "ID;cluster"
    for (const auto& run : store.list_runs(request.sweep))
      if (run.status == db::status::kQueued) store.set_tag(run.id, "slurm.array_job", array_job_);
    active_ = true;
    return "Slurm job array " + array_job_ + ": " + std::to_string(request.runs) +
           " task(s), at most " + std::to_string(parallel) + " at once; task logs in " +
           log_dir.string() + "; batch script " + kept.string();
  }

  std::vector<WorkerEnd> poll(db::Store& store) override {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_poll_ < std::chrono::seconds(3)) return {};
    last_poll_ = now;
    const ProgramResult q =
        run_program({"squeue", "-h", "-r", "-j", array_job_, "-o", "%i"}, "", {}, 30);
    std::set<std::string> present;
    if (q.exit_code == 0) {
      for (const std::string& line : lines_of(q.out)) present.insert(line);
    } else if (q.err.find("Invalid job id") == std::string::npos) {
      return {};  // the controller did not answer: judge nothing this round
    }
    active_ = !present.empty();
    std::vector<WorkerEnd> ended;
    for (const auto& run : store.list_run_states(sweep_)) {  // states only, every 3 s
      if (run.status != db::status::kRunning || reported_.count(run.id)) continue;
      const auto tags = store.tags(run.id);
      if (tag_or(tags, "slurm.array_job") != array_job_) continue;
      const std::string job = tag_or(tags, "slurm.job");
      if (job.empty() || present.count(job)) continue;
      // The task left the queue while its run is still running in the store. Read the store
      // again: a worker may have recorded its end after the listing above.
      auto again = store.find_run(std::to_string(run.id));
      if (!again || again->status != db::status::kRunning) continue;
      const std::string state = final_job_state(tag_or(tags, "slurm.job_id", job));
      reported_.insert(run.id);
      ended.push_back({run.id,
                       "Slurm job " + job + " ended" + (state.empty() ? "" : " (" + state + ")") +
                           " without recording an end",
                       again->lease});
    }
    return ended;
  }

  bool active() const override { return active_; }

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw InputError(options_.file, key.empty() ? 0 : options_.line_of(key),
                     key.empty() ? "slurm" : "slurm." + key, message);
  }

  SlurmOptions options_;
  std::string sweep_, array_job_;
  int processes_ = 1;  // train.processes of the sweep's runs: the tasks of each array task's step
  bool active_ = false;
  std::set<int64_t> reported_;
  std::chrono::steady_clock::time_point last_poll_{};
};

std::optional<std::string> stop_slurm(const db::RunRecord& run, const WorkerTags& tags) {
  const std::string job = tag_or(tags, "slurm.job_id", tag_or(tags, "slurm.job"));
  if (job.empty()) return std::nullopt;
  const ProgramResult r = run_program({"scancel", job}, "", {}, 60);
  if (r.exit_code == 0 || r.err.find("already completed") != std::string::npos ||
      r.err.find("Invalid job id") != std::string::npos)
    return std::nullopt;
  return "run " + std::to_string(run.id) + ": scancel " + job + " failed: " + trim(r.err + r.out);
}

std::optional<std::string> gone_slurm(const db::RunRecord&, const WorkerTags& tags) {
  const std::string job = tag_or(tags, "slurm.job_id", tag_or(tags, "slurm.job"));
  if (job.empty()) return std::nullopt;
  const ProgramResult r = run_program({"squeue", "-h", "-j", job, "-o", "%T"}, "", {}, 30);
  const bool unknown = r.exit_code != 0 && r.err.find("Invalid job id") != std::string::npos;
  if (unknown || (r.exit_code == 0 && lines_of(r.out).empty()))
    return "its Slurm job " + tag_or(tags, "slurm.job", job) + " is no longer queued or running";
  return std::nullopt;  // still there, or Slurm did not answer: only the heartbeat can tell
}

// SIGKILL to the batch shell (the worker); only if the job is still there after a
// while, a plain scancel, whose SIGCONT and SIGTERM would wake a frozen worker to checkpoint a run
// no longer its own. Both return before the task ends; a frozen task on a SQLite store's
// machine holds its write lock until it does, so wait for that (bounded).
std::optional<std::string> put_down_slurm(const db::RunRecord& run, const WorkerTags& tags) {
  const std::string job = tag_or(tags, "slurm.job_id", tag_or(tags, "slurm.job"));
  if (job.empty() || gone_slurm(run, tags)) return std::nullopt;
  const auto gone_within = [&](double seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      if (gone_slurm(run, tags)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    return false;
  };
  const std::string named = "its Slurm job " + tag_or(tags, "slurm.job", job);
  // --batch: the raw signal to the batch shell, which exec's the worker (or srun, whose step
  // then ends). With --full, Slurm 22.05 sent SIGCONT and SIGTERM first, as a cancel does.
  run_program({"scancel", "--batch", "--signal=KILL", job}, "", {}, 60);
  if (gone_within(10)) return named + " was killed";
  if (stop_slurm(run, tags)) return std::nullopt;
  gone_within(30);
  return named + " was cancelled";
}

std::map<std::string, std::string> states_slurm(const std::vector<WorkerTags>& sweep_tags) {
  std::set<std::string> arrays;
  for (const auto& tags : sweep_tags)
    if (auto it = tags.find("slurm.array_job"); it != tags.end()) arrays.insert(it->second);
  std::map<std::string, std::string> states;  // "17_3" -> "RUNNING node"
  if (arrays.empty() || !find_on_path("squeue")) return states;
  std::vector<std::string> list(arrays.begin(), arrays.end());
  const ProgramResult r =
      run_program({"squeue", "-h", "-r", "-j", join(list, ","), "-o", "%i %T %N"}, "", {}, 30);
  for (const std::string& line : lines_of(r.out)) {
    const auto space = line.find(' ');
    if (space != std::string::npos) states[line.substr(0, space)] = line.substr(space + 1);
  }
  std::map<std::string, std::string> by_job;
  for (const auto& tags : sweep_tags) {
    const std::string job = tag_or(tags, "slurm.job");
    if (auto it = states.find(job); !job.empty() && it != states.end()) by_job[job] = it->second;
  }
  return by_job;
}

std::string job_slurm(const WorkerTags& tags) {
  if (const std::string job = tag_or(tags, "slurm.job"); !job.empty()) return job;
  const std::string pid = tag_or(tags, worker_tag::kPid);
  return pid.empty() ? "" : "pid " + pid;
}

std::string queued_state_slurm(const WorkerTags& tags) {
  const std::string array = tag_or(tags, "slurm.array_job");
  return array.empty() ? "" : "array " + array;  // a pending task of this array will claim it
}

std::string env_or(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

bool started_this_process_slurm() { return !env_or("SLURM_JOB_ID").empty(); }

WorkerTags this_worker_tags_slurm() {
  const std::string array = env_or("SLURM_ARRAY_JOB_ID");
  WorkerTags tags;
  // As squeue shows it (17_3), and the unique id that scancel and requeue take.
  tags["slurm.job"] =
      array.empty() ? env_or("SLURM_JOB_ID") : array + "_" + env_or("SLURM_ARRAY_TASK_ID");
  tags["slurm.job_id"] = env_or("SLURM_JOB_ID");
  if (!array.empty()) tags["slurm.array_job"] = array;
  tags["slurm.node"] = env_or("SLURMD_NODENAME", host_name());
  tags["slurm.restarts"] = env_or("SLURM_RESTART_COUNT", "0");
  return tags;
}

// --cpus-per-task of the array (`slurm: cpus:` in the sweep file).
int this_worker_cores_slurm() {
  const std::string cpus = env_or("SLURM_CPUS_PER_TASK");
  try {
    return cpus.empty() ? 0 : std::max(0, std::stoi(cpus));
  } catch (const std::exception&) {
    return 0;  // not a number: Slurm sets none such; fall back to the config's threads
  }
}

// SIGUSR2 is the array's warning before its time limit: the task must be requeued by name, or
// it would end as TIMEOUT. SIGTERM is left to Slurm: preemption with PreemptMode=REQUEUE
// requeues the task itself, and a plain scancel means stop (the run stays queued in the store
// for `fathom sweep --resume`).
std::string after_requeue_slurm(int signal) {
  const std::string job = env_or("SLURM_JOB_ID");
  if (job.empty() || signal != SIGUSR2) return "";
  // scontrol runs inside the job it requeues: the requeue SIGTERMs the job's processes, which
  // raced scontrol's own exit ("failed ()" though the task was requeued). It ignores SIGTERM,
  // answers, and is gone long before the SIGKILL that follows KillWait.
  const ProgramResult r = run_program({"scontrol", "requeue", job}, "", {}, 60, {SIGTERM});
  if (r.exit_code == 0) return "scontrol requeue " + job + ": ok";
  const std::string said = trim(r.err + r.out);
  return "scontrol requeue " + job + ": failed (" + program_end(r) +
         (said.empty() ? "" : ": " + said) + ")";
}

std::vector<std::string> cancel_pending_slurm(const std::vector<WorkerTags>& sweep_tags) {
  std::set<std::string> arrays;
  for (const auto& tags : sweep_tags)
    if (auto it = tags.find("slurm.array_job"); it != tags.end()) arrays.insert(it->second);
  std::vector<std::string> problems;
  for (const std::string& array : arrays) {
    const ProgramResult r = run_program({"scancel", array}, "", {}, 60);
    if (r.exit_code != 0 && r.err.find("already completed") == std::string::npos &&
        r.err.find("Invalid job id") == std::string::npos)
      problems.push_back("scancel " + array + " failed: " + trim(r.err + r.out));
  }
  return problems;
}

}  // namespace

LauncherEntry slurm_launcher_entry() {
  LauncherEntry e;
  e.name = kSlurmName;
  e.make = [](const SweepSpec& spec) -> std::unique_ptr<Launcher> {
    return std::make_unique<SlurmLauncher>(spec);
  };
  e.section = {kSlurmName,
               "what every array task asks Slurm for: partition, time, gres, cpus, mem, account, "
               "qos, max_parallel, signal_seconds, extra (docs/cluster.md)",
               [](const YAML::Node& node, const std::string& file) -> std::any {
                 return parse_slurm_options(node, file);
               }};
  e.follows_until_done = false;  // the cluster's queue keeps the array: --wait follows it
  e.uses_local_devices = false;  // Slurm hands each task its GPUs (gres)
  e.stop = stop_slurm;
  e.gone = gone_slurm;
  e.put_down = put_down_slurm;
  e.cancel_pending = cancel_pending_slurm;
  e.states = states_slurm;
  e.job_of = job_slurm;
  e.queued_state = queued_state_slurm;
  e.started_this_process = started_this_process_slurm;
  e.this_worker_tags = this_worker_tags_slurm;
  e.this_worker_cores = this_worker_cores_slurm;
  e.after_requeue = after_requeue_slurm;
  return e;
}

}  // namespace fathom::experiments
