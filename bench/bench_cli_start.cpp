// What a `fathom` call costs before it does any work, and what the front program saves
// (cli/command_line.h): the same commands served by `fathom` (no LibTorch) and by
// `fathom-torch` (which loads it), side by side, alternating, on a store of two tiny trained
// runs (`compare` runs its paired bootstrap on their stored test hypotheses). Prints
// per program the median wall time, the mean CPU (user + system) and the peak resident memory
// of one call, and their ratios. A command fathom-torch serves (`config`) is timed through the
// front too: what handing it on adds.
//   build/bench/bench_cli_start [CALLS (default 20)]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {
namespace fs = std::filesystem;

struct Call {
  double wall_s = 0, cpu_s = 0, rss_mb = 0;
};

// Runs argv with its output discarded; its wall time and its own rusage (wait4).
Call run(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(stdout);  // else the child's freopen writes this process's pending lines again
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(127);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  Call c;
  c.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  c.cpu_s = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 + usage.ru_stime.tv_sec +
            usage.ru_stime.tv_usec * 1e-6;
  c.rss_mb = usage.ru_maxrss / 1024.0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "%s ... failed (status %d)\n", argv[0].c_str(), status);
    std::exit(1);
  }
  return c;
}

struct Summary {
  double wall_median = 0, cpu_mean = 0, rss_max = 0;
};

Summary summarize(const std::vector<Call>& calls) {
  std::vector<double> walls;
  Summary s;
  for (const auto& c : calls) {
    walls.push_back(c.wall_s);
    s.cpu_mean += c.cpu_s / calls.size();
    s.rss_max = std::max(s.rss_max, c.rss_mb);
  }
  std::sort(walls.begin(), walls.end());
  s.wall_median = walls[walls.size() / 2];
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 20;
  const fs::path build = fs::read_symlink("/proc/self/exe").parent_path().parent_path();
  const std::string front = (build / "fathom").string(), torch = (build / "fathom-torch").string();
  const fs::path dir = fs::temp_directory_path() / ("bench-cli-start-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string db = (dir / "runs.db").string();
  const std::string config = (dir / "c.yaml").string();
  std::FILE* f = std::fopen(config.c_str(), "w");
  std::fputs("name: c\ndata: {task: synthetic}\n", f);
  std::fclose(f);
  // Two finished runs of a tiny model for `compare`: their stored test hypotheses (200
  // sentences) and the paired bootstrap against the task's references.
  const std::string tiny = (dir / "tiny.yaml").string();
  f = std::fopen(tiny.c_str(), "w");
  std::fputs(
      "name: tiny\nmodel: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, "
      "decoder_layers: 1}\ndata: {task: synthetic, synthetic: {vocab: 8, train_size: "
      "100, valid_size: 10, test_size: 200}}\ntrain: {max_updates: 2, threads: 1}\n"
      "eval: {beam: 1}\n",
      f);
  std::fclose(f);
  for (const char* seed : {"train.seed=1", "train.seed=2"})
    run({torch, "--db", db, "train", tiny, "--set", seed, "--no-progress"});
  std::printf("%d calls of each, alternating; wall: median, CPU: mean, memory: peak RSS\n\n",
              calls);
  std::printf("| command | program | wall ms | CPU ms | RSS MB | front / fathom-torch |\n");
  std::printf("|---|---|---:|---:|---:|---|\n");
  const std::vector<std::vector<std::string>> commands = {{"--db", db, "runs"},
                                                          {"--db", db, "metrics"},
                                                          {"--db", db, "export", "table", "--help"},
                                                          {"--db", db, "compare", "1", "2"}};
  for (const auto& command : commands) {
    std::vector<Call> by_front, by_torch;
    for (int i = 0; i < calls; ++i) {
      std::vector<std::string> a = {front}, b = {torch};
      a.insert(a.end(), command.begin(), command.end());
      b.insert(b.end(), command.begin(), command.end());
      by_front.push_back(run(a));
      by_torch.push_back(run(b));
    }
    const Summary x = summarize(by_front), y = summarize(by_torch);
    std::string name;
    for (size_t i = 2; i < command.size(); ++i) name += (i > 2 ? " " : "") + command[i];
    std::printf("| %s | fathom | %.0f | %.0f | %.0f | wall %.3f, CPU %.3f |\n", name.c_str(),
                1e3 * x.wall_median, 1e3 * x.cpu_mean, x.rss_max, x.wall_median / y.wall_median,
                x.cpu_mean / y.cpu_mean);
    std::printf("| %s | fathom-torch | %.0f | %.0f | %.0f | |\n", name.c_str(), 1e3 * y.wall_median,
                1e3 * y.cpu_mean, y.rss_max);
  }
  // Handed on: the front's start and exec before fathom-torch's own.
  std::vector<Call> via_front, direct;
  for (int i = 0; i < calls; ++i) {
    via_front.push_back(run({front, "config", config}));
    direct.push_back(run({torch, "config", config}));
  }
  const Summary x = summarize(via_front), y = summarize(direct);
  std::printf(
      "| config c.yaml | fathom -> fathom-torch | %.0f | %.0f | %.0f | wall %.3f, CPU %.3f |\n",
      1e3 * x.wall_median, 1e3 * x.cpu_mean, x.rss_max, x.wall_median / y.wall_median,
      x.cpu_mean / y.cpu_mean);
  std::printf("| config c.yaml | fathom-torch | %.0f | %.0f | %.0f | |\n", 1e3 * y.wall_median,
              1e3 * y.cpu_mean, y.rss_max);
  fs::remove_all(dir);
  return 0;
}
