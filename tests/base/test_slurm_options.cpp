// The `slurm:` section of a sweep file (experiments/slurm_options.h): parsed fields, the
// #SBATCH directives in their fixed order, GPU detection from gres, the accepted time forms,
// and errors located at the sweep file's line and "slurm.<key>". Torch-free.
//
// Texts are built from a list of lines (`lines`), so an expected line number is the 1-based
// index of the offending line in that list. Expected values are written out by hand.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/util/error.h"
#include "experiments/launcher_registry.h"
#include "experiments/slurm_options.h"
#include "experiments/sweep_spec.h"
#include "tests/support/input_error.h"

namespace fathom {
namespace test_slurm_options {

std::string lines(const std::vector<std::string>& text) {
  std::string out;
  for (const auto& l : text) out += l + "\n";
  return out;
}

// A minimal valid sweep: name, a small inline base and one axis (lines 1-6); `rest` starts
// at line 7.
std::string sweep(const std::vector<std::string>& rest) {
  std::vector<std::string> all = {
      "name: s",                                                                            // 1
      "base:",                                                                              // 2
      "  model: {d_model: 64, heads: 4, d_ff: 128, encoder_layers: 2, decoder_layers: 2}",  // 3
      "  data: {task: synthetic}",                                                          // 4
      "  train: {max_updates: 100, seed: 7}",                                               // 5
      "seeds: [1]",                                                                         // 6
  };
  all.insert(all.end(), rest.begin(), rest.end());
  return lines(all);
}

experiments::SweepSpec load(const std::string& text) {
  return experiments::load_sweep_string(text, "s.yaml", "");
}

// The slurm: section a sweep file's launcher parsed; nullopt when the file has none.
std::optional<experiments::SlurmOptions> slurm_of(const experiments::SweepSpec& spec) {
  if (!spec.launcher) return std::nullopt;
  EXPECT_EQ(spec.launcher->launcher, "slurm");
  return experiments::section_settings(spec, "slurm", experiments::SlurmOptions{});
}

// The section alone, as parse_slurm_options sees it (line 1 is the first key).
experiments::SlurmOptions parse(const std::vector<std::string>& section) {
  return experiments::parse_slurm_options(YAML::Load(lines(section)), "cluster.yaml");
}

using fathom::testing::expect_input_error;

// Loading the sweep must fail at s.yaml:line naming `field`, with `part` in the message.
void expect_sweep_error(const std::vector<std::string>& rest, int line, const std::string& field,
                        const std::string& part) {
  const InputError e = expect_input_error([&] { load(sweep(rest)); });
  EXPECT_EQ(e.file(), "s.yaml") << e.what();
  EXPECT_EQ(e.line(), line) << e.what();
  EXPECT_EQ(e.field(), field) << e.what();
  EXPECT_NE(e.message().find(part), std::string::npos) << e.what();
}

TEST(SlurmOptions, FullSectionThroughASweep) {
  const experiments::SweepSpec spec = load(sweep({
      "slurm:",                                                 // 7
      "  partition: gpu",                                       // 8
      "  time: \"04:00:00\"",                                   // 9
      "  gres: gpu:a100:2",                                     // 10
      "  cpus: 8",                                              // 11
      "  mem: 32G",                                             // 12
      "  account: mylab",                                       // 13
      "  qos: normal",                                          // 14
      "  max_parallel: 4",                                      // 15
      "  signal_seconds: 120",                                  // 16
      "  extra: [\"--constraint=a100\", \"--exclude=node7\"]",  // 17
  }));
  ASSERT_TRUE(slurm_of(spec).has_value());
  const experiments::SlurmOptions o = *slurm_of(spec);
  EXPECT_EQ(o.partition, "gpu");
  EXPECT_EQ(o.time, "04:00:00");
  EXPECT_EQ(o.gres, "gpu:a100:2");
  EXPECT_EQ(o.cpus, 8);
  EXPECT_EQ(o.mem, "32G");
  EXPECT_EQ(o.account, "mylab");
  EXPECT_EQ(o.qos, "normal");
  EXPECT_EQ(o.max_parallel, 4);
  EXPECT_EQ(o.signal_seconds, 120);
  EXPECT_EQ(o.extra, (std::vector<std::string>{"--constraint=a100", "--exclude=node7"}));
  EXPECT_EQ(o.file, "s.yaml");
  EXPECT_TRUE(o.requests_gpu());

  // Where each key was written.
  EXPECT_EQ(o.line_of("partition"), 8);
  EXPECT_EQ(o.line_of("time"), 9);
  EXPECT_EQ(o.line_of("gres"), 10);
  EXPECT_EQ(o.line_of("cpus"), 11);
  EXPECT_EQ(o.line_of("max_parallel"), 15);
  EXPECT_EQ(o.line_of("extra"), 17);
  EXPECT_EQ(o.line_of("nonexistent"), 0);

  // max_parallel and signal_seconds are the launcher's (--array=...%K, --signal), not here.
  const std::vector<std::string> expected = {
      "--partition=gpu", "--time=04:00:00", "--gres=gpu:a100:2", "--cpus-per-task=8", "--mem=32G",
      "--account=mylab", "--qos=normal",    "--constraint=a100", "--exclude=node7",
  };
  EXPECT_EQ(experiments::slurm_directives(o), expected);
}

TEST(SlurmOptions, DirectiveOrderIsFixedWhateverTheKeyOrder) {
  // Keys written in reverse order; the directives still come partition, time, gres, cpus,
  // mem, account, qos, then extra.
  const experiments::SlurmOptions o = parse({
      "extra: [--nice=10]",
      "qos: high",
      "account: lab",
      "mem: 4000M",
      "cpus: 2",
      "gres: gpu:1",
      "time: 90",
      "partition: short",
  });
  const std::vector<std::string> expected = {"--partition=short", "--time=90",   "--gres=gpu:1",
                                             "--cpus-per-task=2", "--mem=4000M", "--account=lab",
                                             "--qos=high",        "--nice=10"};
  EXPECT_EQ(experiments::slurm_directives(o), expected);
  EXPECT_EQ(o.file, "cluster.yaml");
  EXPECT_EQ(o.line_of("extra"), 1);
  EXPECT_EQ(o.line_of("partition"), 8);
}

TEST(SlurmOptions, DefaultsAndAbsentSection) {
  EXPECT_FALSE(slurm_of(load(sweep({}))).has_value());

  const experiments::SweepSpec spec = load(sweep({"slurm:", "  partition: debug"}));
  const std::optional<experiments::SlurmOptions> slurm = slurm_of(spec);
  ASSERT_TRUE(slurm.has_value());
  EXPECT_EQ(slurm->cpus, 0);
  EXPECT_EQ(slurm->max_parallel, 0);
  EXPECT_EQ(slurm->signal_seconds, 90);
  EXPECT_TRUE(slurm->extra.empty());
  EXPECT_FALSE(slurm->requests_gpu());
  EXPECT_EQ(experiments::slurm_directives(*slurm), std::vector<std::string>{"--partition=debug"});
  EXPECT_EQ(slurm->line_of("partition"), 8);
  EXPECT_EQ(slurm->line_of("time"), 0);

  // An empty mapping is valid and asks for nothing.
  EXPECT_TRUE(experiments::slurm_directives(parse({"{}"})).empty());
}

TEST(SlurmOptions, RequestsGpuFromGres) {
  struct Case {
    std::string gres;
    bool gpu;
  };
  const std::vector<Case> cases = {
      {"gpu:1", true},           {"gpu:a100:2", true},    {"gpu", true},
      {"shard:1", false},        {"mps:100,gpu:1", true}, {"mps:100", false},
      {"shard:2,mps:50", false},
  };
  for (const auto& c : cases) {
    const experiments::SlurmOptions o = parse({"gres: " + c.gres});
    EXPECT_EQ(o.gres, c.gres);
    EXPECT_EQ(o.requests_gpu(), c.gpu) << c.gres;
  }
  EXPECT_FALSE(parse({"partition: cpu"}).requests_gpu());  // no gres at all
}

TEST(SlurmOptions, AcceptedTimeForms) {
  for (const std::string t : {"90", "10:00", "04:00:00", "2-12", "1-00:30:00", "UNLIMITED"}) {
    // Quoted and plain: the text as written is what sbatch gets.
    EXPECT_EQ(parse({"time: \"" + t + "\""}).time, t);
    const experiments::SlurmOptions o = parse({"time: " + t});
    EXPECT_EQ(o.time, t);
    EXPECT_EQ(experiments::slurm_directives(o), std::vector<std::string>{"--time=" + t});
  }
}

TEST(SlurmOptions, RejectedTimeForms) {
  for (const std::string t : {"4 hours", "4h", "1:2", "04:00:00:00", "-5", "1-", "forever"}) {
    const InputError e = expect_input_error([&] { parse({"partition: gpu", "time: " + t}); });
    EXPECT_EQ(e.file(), "cluster.yaml") << t;
    EXPECT_EQ(e.line(), 2) << t;
    EXPECT_EQ(e.field(), "slurm.time") << t;
    EXPECT_NE(e.message().find("'" + t + "'"), std::string::npos) << e.what();
  }
}

TEST(SlurmOptions, UnknownKeySuggestsTheNearestOne) {
  expect_sweep_error({"slurm:", "  time: 10", "  partiton: gpu"}, 9, "slurm.partiton",
                     "did you mean 'partition'?");
  // Nothing close: no suggestion, but the list of keys.
  const InputError e = expect_input_error([&] { load(sweep({"slurm:", "  nodes: 4"})); });
  EXPECT_EQ(e.line(), 8);
  EXPECT_EQ(e.field(), "slurm.nodes");
  EXPECT_EQ(e.message().find("did you mean"), std::string::npos) << e.what();
  EXPECT_NE(e.message().find("partition, time, gres"), std::string::npos) << e.what();
}

TEST(SlurmOptions, BadValuesNameTheirLineAndKey) {
  expect_sweep_error({"slurm:", "  partition: gpu", "  time: 4 hours"}, 9, "slurm.time",
                     "not a Slurm time limit");
  expect_sweep_error({"slurm:", "  mem: lots"}, 8, "slurm.mem", "'lots' is not a memory size");
  expect_sweep_error({"slurm:", "  mem: 16GB"}, 8, "slurm.mem", "not a memory size");
  expect_sweep_error({"slurm:", "  partition: gpu", "  account: a", "  cpus: 0"}, 10, "slurm.cpus",
                     "'0' is not a whole number from 1 to 100000");
  expect_sweep_error({"slurm:", "  cpus: two"}, 8, "slurm.cpus", "'two' is not a whole number");
  expect_sweep_error({"slurm:", "  cpus: -3"}, 8, "slurm.cpus", "not a whole number");
  expect_sweep_error({"slurm:", "  max_parallel: 0"}, 8, "slurm.max_parallel",
                     "not a whole number");
  expect_sweep_error({"slurm:", "  signal_seconds: 70000"}, 8, "slurm.signal_seconds",
                     "from 1 to 65535");
  expect_sweep_error({"slurm:", "  gres: gpu 1"}, 8, "slurm.gres", "not a generic resource list");
  expect_sweep_error({"slurm:", "  partition: gpu queue"}, 8, "slurm.partition",
                     "not a Slurm name");
  // An empty value is located at its key, not at the line after it.
  expect_sweep_error({"slurm:", "  qos:"}, 8, "slurm.qos", "expected a value");
  expect_sweep_error({"slurm:", "  qos:", "  partition: gpu"}, 8, "slurm.qos", "expected a value");
  expect_sweep_error({"slurm:", "  extra:", "  partition: gpu"}, 8, "slurm.extra",
                     "expected a list of sbatch options");
  expect_sweep_error({"slurm:", "  partition: [a, b]"}, 8, "slurm.partition", "expected a value");
}

TEST(SlurmOptions, ExtraRefusesReservedAndNonOptions) {
  // Each item on its own line: the error is at the offending item, not at `extra:`.
  expect_sweep_error({"slurm:", "  extra:", "    - --constraint=a100", "    - --array=0-3"}, 10,
                     "slurm.extra", "--array is set by fathom");
  expect_sweep_error({"slurm:", "  extra:", "    - --output=x"}, 9, "slurm.extra",
                     "--output is set by fathom");
  expect_sweep_error({"slurm:", "  extra:", "    - --exclude=node7", "    - constraint=a100"}, 10,
                     "slurm.extra", "'constraint=a100' is not an sbatch option");
  expect_sweep_error({"slurm:", "  extra: --constraint=a100"}, 8, "slurm.extra",
                     "expected a list of sbatch options");
  // Reserved directives in their other spellings.
  // As sbatch reads an #SBATCH line, a value may follow a space, and a short option may carry
  // its value attached.
  for (const std::string bad :
       {"--signal=B:USR1@60", "--requeue", "--job-name=x", "--array 0-3", "--output\tx", "-J x",
        "-o out", "-a0-3", "-e err", "--arr=0-3", "--sig=USR1@60"}) {
    const InputError e = expect_input_error([&] { parse({"extra: [\"" + bad + "\"]"}); });
    EXPECT_EQ(e.field(), "slurm.extra") << bad;
    EXPECT_NE(e.message().find("is set by fathom"), std::string::npos) << bad << ": " << e.what();
  }
  // Options Fathom does not set pass through as written.
  EXPECT_EQ(parse({"extra: [--exclusive, \"--gpus-per-task=1\"]"}).extra,
            (std::vector<std::string>{"--exclusive", "--gpus-per-task=1"}));
}

TEST(SlurmOptions, KeyGivenTwice) {
  // yaml-cpp keeps both entries of a repeated key; the second is refused at its own line.
  expect_sweep_error({"slurm:", "  partition: gpu", "  time: 10", "  partition: cpu"}, 10,
                     "slurm.partition", "given twice");
}

TEST(SlurmOptions, SectionMustBeAMapping) {
  expect_sweep_error({"slurm: 3"}, 7, "slurm", "expected a mapping");
  expect_sweep_error({"slurm:", "  - partition: gpu"}, 8, "slurm", "expected a mapping");
}

}  // namespace test_slurm_options
}  // namespace fathom
