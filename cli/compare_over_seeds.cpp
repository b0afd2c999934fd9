#include "cli/compare_over_seeds.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <stdexcept>

#include "base/config/config_io.h"
#include "base/config/seed_key.h"
#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/perplexity_bootstrap.h"
#include "experiments/paired_test.h"

namespace fathom::cli {
namespace {

template <typename Run>
std::vector<Run> pick(const std::vector<Run>& all, const std::vector<size_t>& which) {
  std::vector<Run> out;
  for (size_t i : which) out.push_back(all[i]);
  return out;
}

// `test` of the system's and the baseline's files, or why not.
template <typename Run>
std::string arms_or_why(
    const OverSeeds& o, const std::vector<Run>& files, std::optional<SeedArmsTest>& out,
    const std::function<SeedArmsTest(const std::vector<Run>&, const std::vector<Run>&)>& test) {
  try {
    out = test(pick(files, o.system), pick(files, o.baseline));
  } catch (const std::invalid_argument& e) {  // other tokenisations, other lengths
    return e.what();
  }
  return "";
}

// Orders both arms by each run's train.seed so that position j is one seed's pair, or says why
// they do not pair.
std::string pair_by_seed(const std::vector<db::RunRecord>& runs, OverSeeds& o) {
  std::map<uint64_t, size_t> baseline, system;
  const auto seeds_of = [&runs](const std::vector<size_t>& arm, std::map<uint64_t, size_t>& out) {
    for (size_t i : arm) {
      const uint64_t s =
          load_config_string(runs[i].config_yaml, run_label(runs[i]) + " config", "").train.seed;
      if (!out.emplace(s, i).second)
        return "two runs of one configuration have seed " + std::to_string(s);
    }
    return std::string();
  };
  if (std::string why = seeds_of(o.baseline, baseline); !why.empty()) return why;
  if (std::string why = seeds_of(o.system, system); !why.empty()) return why;
  o.baseline.clear();
  o.system.clear();
  for (const auto& [s, i] : baseline) {
    const auto it = system.find(s);
    if (it == system.end())
      return run_label(runs[i]) + "'s seed " + std::to_string(s) + " has no run in the other";
    o.baseline.push_back(i);
    o.system.push_back(it->second);
  }
  if (o.system.size() != system.size()) return "the configurations' seeds differ";
  if (o.system.size() < 2) return "fewer than two seeds in common";
  o.paired_by_seed = true;
  return "";
}

std::string run_ids(const std::vector<db::RunRecord>& runs, const std::vector<size_t>& which) {
  std::string text;
  for (size_t i : which) text += (text.empty() ? "#" : ", #") + std::to_string(runs[i].id);
  return text;
}

std::string decimals(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

}  // namespace

std::vector<std::vector<size_t>> configurations_but_seed(
    const std::map<std::string, std::vector<std::string>>& differing, size_t runs) {
  std::vector<std::string> signatures(runs);
  for (const auto& [key, values] : differing)
    if (key != "name" && !is_seed_key(key))
      for (size_t i = 0; i < runs && i < values.size(); ++i)
        signatures[i] += key + "=" + values[i] + "\n";
  std::vector<std::vector<size_t>> groups;
  std::vector<std::string> seen;
  for (size_t i = 0; i < runs; ++i) {
    const auto it = std::find(seen.begin(), seen.end(), signatures[i]);
    if (it == seen.end()) {
      seen.push_back(signatures[i]);
      groups.push_back({i});
    } else {
      groups[static_cast<size_t>(it - seen.begin())].push_back(i);
    }
  }
  return groups;
}

OverSeeds over_seeds(const std::vector<db::RunRecord>& runs, const PairedInput& hypotheses,
                     const NllInput& nll, const std::vector<std::vector<size_t>>& configurations,
                     int samples, uint64_t seed, bool pair_seeds) {
  OverSeeds o;
  if (configurations.size() != 2) {
    o.why_not = "the runs are " + std::to_string(configurations.size()) +
                " configurations by their settings but the seed; the test over seeds takes two";
    return o;
  }
  o.baseline = configurations[0];
  o.system = configurations[1];
  if (o.baseline.size() < 2 && o.system.size() < 2) {
    o.why_not = "each configuration has one run: the paired tests above are theirs";
    return o;
  }
  if (pair_seeds) {
    o.why_not = pair_by_seed(runs, o);
    if (!o.why_not.empty()) {
      o.why_not = "the runs do not pair by seed: " + o.why_not;
      return o;
    }
  }
  o.bleu_why_not = hypotheses.why_not;
  if (o.bleu_why_not.empty())
    o.bleu_why_not = arms_or_why<std::vector<std::string>>(
        o, hypotheses.hypotheses, o.bleu, [&](const auto& system, const auto& baseline) {
          const auto test = o.paired_by_seed ? seed_paired_bleu : seed_arms_bleu;
          return test(system, baseline, hypotheses.references, samples, seed);
        });
  o.perplexity_why_not = nll.why_not;
  if (o.perplexity_why_not.empty())
    o.perplexity_why_not = arms_or_why<std::vector<SegmentNll>>(
        o, nll.segments, o.perplexity, [&](const auto& system, const auto& baseline) {
          const auto test = o.paired_by_seed ? seed_paired_perplexity : seed_arms_perplexity;
          return test(system, baseline, evaluation_segments(runs.front()).order);
        });
  return o;
}

nlohmann::json over_seeds_json(const OverSeeds& o, const std::vector<db::RunRecord>& runs) {
  if (!o.why_not.empty()) return {{"skipped", o.why_not}};
  nlohmann::json j;
  for (size_t i : o.baseline) j["baseline_runs"].push_back(runs[i].id);
  for (size_t i : o.system) j["system_runs"].push_back(runs[i].id);
  j["paired_by_seed"] = o.paired_by_seed;
  const auto put = [&](const char* key, const std::optional<SeedArmsTest>& t,
                       const std::string& why_not) {
    if (!t) {
      j[key] = {{"skipped", why_not}};
      return;
    }
    j[key] = {{"baseline_mean", t->mean_b},   {"system_mean", t->mean_a},
              {"baseline_seeds", t->seeds_b}, {"system_seeds", t->seeds_a},
              {"difference", t->difference},  {"difference_ci95", {t->low, t->high}},
              {"baseline_sd", t->sd_b},       {"system_sd", t->sd_a},
              {"shared_se", t->shared_se},    {"p", t->p}};
  };
  put("bleu", o.bleu, o.bleu_why_not);
  put("perplexity", o.perplexity, o.perplexity_why_not);
  return j;
}

void print_over_seeds(std::ostream& out, const OverSeeds& o,
                      const std::vector<db::RunRecord>& runs) {
  if (!o.why_not.empty()) {
    out << "\nNo test over seeds and sentences: " << o.why_not << ".\n";
    return;
  }
  out << "\nOver seeds and sentences: " << run_ids(runs, o.system)
      << " as one configuration's seeds against " << run_ids(runs, o.baseline)
      << (o.paired_by_seed ? ", paired by seed in that order" : "")
      << " (a generalised t test of the seeds' spread and the test set's error; "
         "docs/methods.md \"A configuration over its seeds\"):\n\n";
  const auto line = [&out](const std::string& score, const std::optional<SeedArmsTest>& t,
                           const std::string& why_not, int digits) {
    if (!t) {
      out << "- test " << score << ": no test: " << why_not << ".\n";
      return;
    }
    const auto sign = [digits](double v) { return (v > 0 ? "+" : "") + decimals(v, digits); };
    out << "- test " << score << ": mean " << decimals(t->mean_a, digits) << " vs "
        << decimals(t->mean_b, digits) << ", difference " << sign(t->difference) << " ["
        << sign(t->low) << ", " << sign(t->high) << "], " << experiments::p_in_words(t->p) << "\n";
  };
  line("BLEU", o.bleu, o.bleu_why_not, 2);
  line("perplexity", o.perplexity, o.perplexity_why_not, 3);
}

}  // namespace fathom::cli
