// The launcher recipe of docs/architecture.md, followed in this file alone: a launcher whose
// workers are threads of this process, with its own section of the sweep file (`threads:`),
// registered here with add_launcher and run through the sweep's whole path -- the sweep file
// names it by its section, its entry parses and checks that section, the runs are queued, its
// workers claim and end them, the scheduler follows the launch to its end, and status views
// name each run's worker by the tags it wrote. No file outside this one was edited for it.
// Torch-free: a worker "trains" by writing a loss curve and a final metric from its run's own
// config.
#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <any>
#include <atomic>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/util/error.h"
#include "base/util/process.h"
#include "db/run_status.h"
#include "db/store.h"
#include "experiments/launcher_registry.h"
#include "experiments/scheduler.h"
#include "experiments/sweep_queue.h"
#include "experiments/sweep_spec.h"
#include "experiments/worker_tags.h"
#include "tests/support/input_error.h"
#include "tests/support/temp_dir.h"

namespace fathom {
namespace test_launcher_recipe {
using experiments::WorkerTags;

const std::string kName = "threads";
const std::string kJobTag = "threads.worker";  // this launcher's own tag: which thread

// The `threads:` section: how many worker threads, and the prefix of their job names.
struct ThreadSettings {
  int workers = 1;
  std::string prefix = "t";
};

std::any parse_threads(const YAML::Node& node, const std::string& file) {
  ThreadSettings s;
  auto fail = [&](const YAML::Node& at, const std::string& key, const std::string& message) {
    throw InputError(file, at.Mark().line + 1, kName + (key.empty() ? "" : "." + key), message);
  };
  if (!node.IsMap()) fail(node, "", "expected a mapping (workers, prefix)");
  for (const auto& entry : node) {
    const std::string key = entry.first.Scalar();
    const std::string value = entry.second.IsScalar() ? entry.second.Scalar() : "";
    if (key == "workers") {
      if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos ||
          value.size() > 2 || std::stoi(value) < 1 || std::stoi(value) > 8)
        fail(entry.second, key, "'" + value + "' is not a whole number from 1 to 8");
      s.workers = std::stoi(value);
    } else if (key == "prefix") {
      s.prefix = value;
    } else {
      fail(entry.first, key, "unknown key (keys: workers, prefix)");
    }
  }
  return s;
}

// One worker thread: claims runs of the sweep until none is queued, and for each records
// itself, writes a short loss curve and the run's seed as a final metric, and finishes it.
void work(const experiments::LaunchRequest& request, const std::string& job) {
  db::Store store = db::Store::open(request.db_location);
  while (auto run = store.claim_next_run(request.sweep, host_name(), "")) {
    const db::Lease lease{run->id, run->lease};
    WorkerTags tags = experiments::holder_tags(kName, getpid());
    tags[kJobTag] = job;
    experiments::record_worker_tags(store, lease, tags);
    const auto config = nlohmann::json::parse(run->config_json);
    const double seed = config.at("train").at("seed").get<double>();
    store.write_metrics(lease, {{1, "train_loss", 4.0, 0.0}, {2, "train_loss", 3.0, 0.0}});
    store.set_final_metric(lease, "seed_seen", seed);
    store.finish_run(lease, db::status::kFinished);
  }
}

class ThreadLauncher : public experiments::Launcher {
 public:
  explicit ThreadLauncher(const experiments::SweepSpec& spec)
      : settings_(experiments::section_settings(spec, kName, ThreadSettings{})) {}
  ~ThreadLauncher() override {
    for (auto& t : threads_) t.join();
  }
  std::string name() const override { return kName; }
  void check(const experiments::LaunchRequest&, const std::vector<RunConfig>&) override {}
  // The threads start at the first poll, as local workers do: the scheduler sees every run
  // go from queued to its end.
  std::string launch(db::Store&, const experiments::LaunchRequest& request) override {
    request_ = request;
    starting_ = true;
    return std::to_string(settings_.workers) + " thread(s)";
  }
  std::vector<experiments::WorkerEnd> poll(db::Store&) override {
    for (int i = 0; starting_ && i < settings_.workers; ++i) {
      ++running_;
      threads_.emplace_back([this, i] {
        work(request_, settings_.prefix + std::to_string(i));
        --running_;
      });
    }
    starting_ = false;
    return {};
  }
  bool active() const override { return starting_ || running_ > 0; }

 private:
  ThreadSettings settings_;
  experiments::LaunchRequest request_;
  std::vector<std::thread> threads_;
  bool starting_ = false;
  std::atomic<int> running_{0};
};

std::string tag_of(const WorkerTags& tags, const std::string& key) {
  auto it = tags.find(key);
  return it == tags.end() ? "" : it->second;
}

experiments::LauncherEntry thread_launcher_entry() {
  experiments::LauncherEntry e;
  e.name = kName;
  e.make = [](const experiments::SweepSpec& spec) -> std::unique_ptr<experiments::Launcher> {
    return std::make_unique<ThreadLauncher>(spec);
  };
  e.section = {kName, "worker threads of this process: workers, prefix", parse_threads};
  e.follows_until_done = true;
  e.uses_local_devices = false;
  e.stop = [](const db::RunRecord&, const WorkerTags&) -> std::optional<std::string> {
    return std::nullopt;  // a thread sees its run cancelled at its next write
  };
  e.gone = [](const db::RunRecord&, const WorkerTags&) -> std::optional<std::string> {
    return std::nullopt;
  };
  e.cancel_pending = [](const std::vector<WorkerTags>&) { return std::vector<std::string>{}; };
  e.states = [](const std::vector<WorkerTags>& sweep_tags) {
    std::map<std::string, std::string> states;
    for (const auto& tags : sweep_tags)
      if (!tag_of(tags, kJobTag).empty()) states[tag_of(tags, kJobTag)] = "a thread";
    return states;
  };
  e.job_of = [](const WorkerTags& tags) { return tag_of(tags, kJobTag); };
  e.queued_state = [](const WorkerTags&) { return std::string(); };
  e.this_worker_tags = [] { return WorkerTags{}; };
  e.this_worker_cores = [] { return 0; };
  e.after_requeue = [](int) { return std::string(); };
  return e;
}

// The recipe's one registration, once per test program.
void register_thread_launcher() {
  static std::once_flag once;
  std::call_once(once, [] { experiments::add_launcher(thread_launcher_entry()); });
}

// Three seeds of a tiny synthetic model; `section` ends the file (from line 6).
std::string sweep_text(const std::string& section) {
  return "name: rec\n"  // 1
         "base:\n"      // 2
         "  model: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: 1}\n"
         "  data: {task: synthetic}\n"  // 4
         "seeds: [11, 12, 13]\n" +      // 5
         section;
}

class LauncherRecipe : public ::testing::Test {
 protected:
  void SetUp() override { register_thread_launcher(); }

  experiments::SweepSpec load(const std::string& section) {
    const std::string path = dir_.file("rec.yaml");
    std::ofstream(path) << sweep_text(section);
    return experiments::load_sweep_file(path);
  }

  testing::TempDir dir_;
};

TEST_F(LauncherRecipe, ALauncherAddedInOneFileRunsASweepNamedByItsSection) {
  const experiments::SweepSpec spec = load("threads:\n  workers: 2\n  prefix: w\n");
  ASSERT_TRUE(spec.launcher.has_value());
  EXPECT_EQ(spec.launcher->launcher, kName);
  EXPECT_EQ(spec.launcher->line, 6);
  const experiments::LauncherEntry& chosen = experiments::chosen_launcher(spec, "");
  ASSERT_EQ(chosen.name, kName);

  const std::string db = dir_.file("runs.db");
  db::Store store = db::Store::open(db);
  const auto runs = experiments::expand_sweep(spec);
  ASSERT_EQ(runs.size(), 3u);
  auto launcher = chosen.make(spec);
  experiments::LaunchRequest request;
  request.sweep = spec.name;
  request.sweep_file = spec.file;
  request.db_location = db;
  request.run_dir = [&](int64_t id) { return dir_.file("run-" + std::to_string(id)); };
  launcher->check(request, {});
  const auto queued = experiments::queue_sweep(store, spec, runs, false, 180);
  request.runs = queued.queued;
  EXPECT_EQ(launcher->launch(store, request), "2 thread(s)");
  experiments::FollowOptions follow;
  follow.sweep = spec.name;
  follow.progress = false;
  const experiments::SweepCounts counts = experiments::follow_sweep(store, *launcher, follow);
  EXPECT_EQ(counts.finished, 3);
  EXPECT_EQ(counts.crashed + counts.failed + counts.left_queued, 0);

  std::set<double> seeds;
  std::vector<WorkerTags> all_tags;
  for (const auto& run : store.list_runs(spec.name)) {
    EXPECT_EQ(run.status, db::status::kFinished) << run.name;
    seeds.insert(run.final_metrics.at("seed_seen"));
    const WorkerTags tags = store.tags(run.id);
    all_tags.push_back(tags);
    EXPECT_EQ(tag_of(tags, experiments::worker_tag::kLauncher), kName);
    EXPECT_EQ(tag_of(tags, experiments::worker_tag::kPid), std::to_string(getpid()));
    // Status views ask the launcher that wrote the tags: its job names, its states.
    const std::string job = experiments::worker_job(tags);
    EXPECT_TRUE(job == "w0" || job == "w1") << job;
    EXPECT_EQ(experiments::worker_state(run, tags, experiments::worker_states(all_tags)),
              "a thread");
  }
  EXPECT_EQ(seeds, (std::set<double>{11, 12, 13}));  // each run trained with its own config
}

TEST_F(LauncherRecipe, ItsSectionIsCheckedByItsOwnParserAtTheFilesLine) {
  const InputError e = testing::expect_input_error([&] { load("threads:\n  workers: 0\n"); });
  EXPECT_EQ(e.line(), 7) << e.what();
  EXPECT_EQ(e.field(), "threads.workers") << e.what();
  EXPECT_NE(e.message().find("from 1 to 8"), std::string::npos) << e.what();
  // A misspelt section is an unknown sweep key whose hint names the launcher's section.
  const InputError typo = testing::expect_input_error([&] { load("thread:\n  workers: 2\n"); });
  EXPECT_EQ(typo.line(), 6) << typo.what();
  EXPECT_NE(typo.message().find("did you mean 'threads'"), std::string::npos) << typo.what();
}

TEST_F(LauncherRecipe, AFileHoldsOneLaunchersSectionAndTheFlagOverridesIt) {
  const InputError e = testing::expect_input_error(
      [&] { load("threads:\n  workers: 2\nslurm:\n  partition: gpu\n"); });
  EXPECT_EQ(e.line(), 8) << e.what();
  EXPECT_NE(e.message().find("one launcher"), std::string::npos) << e.what();
  const experiments::SweepSpec spec = load("threads:\n  workers: 2\n");
  EXPECT_EQ(experiments::chosen_launcher(spec, "local").name, "local");
  EXPECT_EQ(experiments::chosen_launcher(load(""), "").name, "local");  // no section: default
  EXPECT_NE(experiments::describe_launchers().find(
                "threads (default when the sweep file has a threads: section)"),
            std::string::npos)
      << experiments::describe_launchers();
}

}  // namespace test_launcher_recipe
}  // namespace fathom
