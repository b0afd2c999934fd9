#include "experiments/slurm_options.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <regex>

#include "base/util/error.h"
#include "base/util/strings.h"

namespace fathom::experiments {
namespace {

const std::vector<std::string> kKeys = {
    "partition", "time", "gres",         "cpus",           "mem",
    "account",   "qos",  "max_parallel", "signal_seconds", "extra"};

// Directives Fathom writes itself: a sweep file that sets them would break claiming, logs,
// requeueing or the warning signal.
const std::vector<std::string> kReserved = {
    "--array",    "--output", "--error", "--signal", "--requeue", "--no-requeue", "--job-name",
    "--parsable", "--export", "--wrap",  "-a",       "-o",        "-e",           "-J"};

int line_of_node(const YAML::Node& node) {
  return node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
}

// The option an sbatch argument sets, as sbatch reads an #SBATCH line: a long option up to its
// '=' or a space ("--array=0-3", "--array 0-3"), a short one by its letter ("-J x", "-a0-3").
std::string option_name(const std::string& text) {
  if (text.rfind("--", 0) == 0) return text.substr(0, text.find_first_of("= \t"));
  return text.substr(0, 2);
}

}  // namespace

int SlurmOptions::line_of(const std::string& key) const {
  auto it = lines.find(key);
  return it == lines.end() ? 0 : it->second;
}

bool SlurmOptions::requests_gpu() const {
  for (const std::string& part : split(gres, ','))
    if (part == "gpu" || part.rfind("gpu:", 0) == 0) return true;
  return false;
}

namespace {

[[noreturn]] void fail_at(const std::string& file, const YAML::Node& at, const std::string& key,
                          const std::string& message) {
  throw InputError(file, line_of_node(at), key.empty() ? "slurm" : "slurm." + key, message);
}

// `extra`: sbatch options passed as given, none of those Fathom writes itself.
std::vector<std::string> extra_options(const YAML::Node& value, const YAML::Node& value_at,
                                       const std::string& file) {
  const std::string key = "extra";
  if (!value.IsSequence())
    fail_at(file, value_at, key, "expected a list of sbatch options, e.g. [\"--constraint=a100\"]");
  std::vector<std::string> extra;
  for (const auto& item : value) {
    const std::string text = item.IsScalar() ? item.Scalar() : "";
    if (text.rfind("-", 0) != 0 || text.find('\n') != std::string::npos)
      fail_at(file, item, key, "'" + text + "' is not an sbatch option (e.g. --constraint=a100)");
    const std::string option = option_name(text);
    // sbatch also takes an unambiguous prefix of a long option (--arr for --array).
    const bool reserved =
        std::any_of(kReserved.begin(), kReserved.end(), [&](const std::string& r) {
          return r == option ||
                 (option.size() > 3 && option.rfind("--", 0) == 0 && r.rfind(option, 0) == 0);
        });
    if (reserved)
      fail_at(file, item, key,
              option + " is set by fathom (job arrays, logs, requeue and the warning signal)");
    extra.push_back(text);
  }
  return extra;
}

// Every key but `extra`: one scalar, checked against the form sbatch accepts.
void set_scalar(SlurmOptions& o, const std::string& key, const YAML::Node& value,
                const YAML::Node& value_at, const std::string& file) {
  auto fail = [&](const YAML::Node& at, const std::string& message) {
    fail_at(file, at, key, message);
  };
  if (!value.IsScalar() || value.Scalar().empty()) fail(value_at, "expected a value");
  const std::string text = value.Scalar();
  auto positive_int = [&](int min, int max) {
    if (!std::regex_match(text, std::regex("[0-9]{1,9}")) || std::stoi(text) < min ||
        std::stoi(text) > max)
      fail(value, "'" + text + "' is not a whole number from " + std::to_string(min) + " to " +
                      std::to_string(max));
    return std::stoi(text);
  };
  if (key == "cpus") {
    o.cpus = positive_int(1, 100000);
  } else if (key == "max_parallel") {
    o.max_parallel = positive_int(1, 100000);
  } else if (key == "signal_seconds") {
    o.signal_seconds = positive_int(1, 65535);  // Slurm's limit for --signal's time
  } else if (key == "time") {
    // Slurm's forms: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS; or UNLIMITED.
    static const std::regex time_re(
        "[0-9]+|[0-9]+:[0-9]{2}|[0-9]+:[0-9]{2}:[0-9]{2}|[0-9]+-[0-9]+(:[0-9]{2}){0,2}|UNLIMITED|"
        "INFINITE");
    if (!std::regex_match(text, time_re))
      fail(value, "'" + text + "' is not a Slurm time limit (minutes, HH:MM:SS or D-HH:MM:SS)");
    o.time = text;
  } else if (key == "mem") {
    if (!std::regex_match(text, std::regex("[0-9]+[KMGT]?")))
      fail(value, "'" + text + "' is not a memory size (e.g. 16G, 4000M)");
    o.mem = text;
  } else if (key == "gres") {
    static const std::regex gres_re(
        "[A-Za-z_][A-Za-z0-9_]*(:[A-Za-z0-9_.-]+){0,2}"
        "(,[A-Za-z_][A-Za-z0-9_]*(:[A-Za-z0-9_.-]+){0,2})*");
    if (!std::regex_match(text, gres_re))
      fail(value, "'" + text + "' is not a generic resource list (e.g. gpu:1, gpu:a100:2)");
    o.gres = text;
  } else {  // partition, account, qos: names
    if (!std::regex_match(text, std::regex("[A-Za-z0-9_.,-]+")))
      fail(value, "'" + text + "' is not a Slurm name");
    (key == "partition" ? o.partition : key == "account" ? o.account : o.qos) = text;
  }
}

}  // namespace

SlurmOptions parse_slurm_options(const YAML::Node& node, const std::string& file) {
  SlurmOptions o;
  o.file = file;
  if (!node.IsMap())
    fail_at(file, node, "", "expected a mapping (partition, time, gres, cpus, mem, ...)");
  for (const auto& entry : node) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    const YAML::Node& value = entry.second;
    // An empty value (`qos:`) has no place of its own: yaml-cpp marks where the next token is.
    const YAML::Node& value_at = value.IsNull() ? entry.first : value;
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
      const std::string hint = closest_match(key, kKeys);
      fail_at(file, entry.first, key,
              "unknown key" + (hint.empty() ? "" : "; did you mean '" + hint + "'?") +
                  " (keys: " + join(kKeys, ", ") + ")");
    }
    if (o.lines.count(key)) fail_at(file, entry.first, key, "given twice");
    o.lines[key] = line_of_node(entry.first);
    if (key == "extra")
      o.extra = extra_options(value, value_at, file);
    else
      set_scalar(o, key, value, value_at, file);
  }
  return o;
}

std::vector<std::string> slurm_directives(const SlurmOptions& o) {
  std::vector<std::string> out;
  if (!o.partition.empty()) out.push_back("--partition=" + o.partition);
  if (!o.time.empty()) out.push_back("--time=" + o.time);
  if (!o.gres.empty()) out.push_back("--gres=" + o.gres);
  if (o.cpus > 0) out.push_back("--cpus-per-task=" + std::to_string(o.cpus));
  if (!o.mem.empty()) out.push_back("--mem=" + o.mem);
  if (!o.account.empty()) out.push_back("--account=" + o.account);
  if (!o.qos.empty()) out.push_back("--qos=" + o.qos);
  out.insert(out.end(), o.extra.begin(), o.extra.end());
  return out;
}

}  // namespace fathom::experiments
