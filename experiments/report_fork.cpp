#include "experiments/report_fork.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "db/fork_tags.h"
#include "experiments/report_fork_verdicts.h"
#include "experiments/report_numbers.h"
#include "experiments/text_table.h"

namespace fathom::experiments {
namespace {

std::string run_name(const db::RunRecord& r) {
  return "run " + std::to_string(r.id) + " (`" + r.name + "`)";
}

// The fork's overrides as its command gave them ("`--set train.lr=0.004 --set ...`"; the tag
// joins them with "; "), or what says there were none.
std::string changed_settings(const std::map<std::string, std::string>& tags) {
  const std::string settings = db::fork_settings(tags);
  if (settings.empty()) return "no setting changed";
  std::string text = "`--set " + settings + "`";
  for (size_t p = 0; (p = text.find("; ", p)) != std::string::npos;) text.replace(p, 2, " --set ");
  return text;
}

// The final metrics both runs have, the fork's beside its parent's, and their difference.
void against_parent(std::ostream& out, const db::RunRecord& fork, const db::RunRecord& parent) {
  TextTable table;
  table.header = {"final metric", "#" + std::to_string(fork.id) + " (fork)",
                  "#" + std::to_string(parent.id) + " (parent)", "fork - parent"};
  for (const auto& [name, value] : fork.final_metrics) {
    const auto theirs = parent.final_metrics.find(name);
    if (theirs == parent.final_metrics.end()) continue;
    const double difference = value - theirs->second;
    std::vector<std::string> cells = column_numbers({value, theirs->second, difference});
    if (std::isfinite(difference) && difference > 0) cells[2] = "+" + cells[2];
    table.rows.push_back({name, cells[0], cells[1], cells[2]});
  }
  if (!table.rows.empty()) out << text_table_to_markdown(table) << "\n";
}

std::optional<db::RunRecord> fork_of(std::ostream& out, const db::Store& store,
                                     const db::RunRecord& run,
                                     const std::map<std::string, std::string>& tags,
                                     const PairedTester& test) {
  const auto origin = db::fork_origin(tags);
  if (!origin) return std::nullopt;
  const std::string parent_id = std::to_string(origin->parent);
  const auto parent = store.find_run(parent_id);
  const std::string at = std::to_string(origin->step);
  out << "## Fork of run " << parent_id << "\n\nThis run continues "
      << (parent ? run_name(*parent) : "run " + parent_id) << " from its checkpoint at update "
      << at << " (`fathom train --fork " << parent_id << " --from " << at << "`), with "
      << changed_settings(tags) << "; its curves up to update " << at << " are the parent's.";
  if (!parent) {
    out << " Run " << parent_id << " is no longer in the store.\n\n";
    return std::nullopt;
  }
  out << " The curves below draw the parent beside it, a diamond where they part; `fathom "
         "compare "
      << parent_id << " " << run.id << "` says what else differs"
      << (test ? "." : " and tests whether their test scores do.") << "\n\n";
  against_parent(out, run, *parent);
  if (test) out << fork_test_sentence(test(*parent, run)) << "\n\n";
  return parent;
}

// The runs forked from `run`, oldest first.
std::vector<db::RunRecord> forks_of(const db::Store& store, const db::RunRecord& run) {
  std::vector<db::RunRecord> forks;
  for (int64_t id : db::forks_among(store.tagged_runs(db::kForkedFromTag), run.id))
    if (auto fork = store.find_run(std::to_string(id))) forks.push_back(std::move(*fork));
  return forks;
}

void forks_table(std::ostream& out, const db::Store& store, const std::vector<db::RunRecord>& forks,
                 const std::vector<std::string>& wanted) {
  std::vector<std::string> metrics;
  for (const auto& m : wanted)
    if (std::any_of(forks.begin(), forks.end(),
                    [&](const db::RunRecord& f) { return f.final_metrics.count(m) > 0; }))
      metrics.push_back(m);
  TextTable table;
  table.header = {"run", "name", "from update", "changed", "status"};
  table.header.insert(table.header.end(), metrics.begin(), metrics.end());
  for (const auto& f : forks) {
    const auto tags = store.tags(f.id);
    const auto origin = db::fork_origin(tags);
    const std::string settings = db::fork_settings(tags);
    table.rows.push_back(
        {std::to_string(f.id), f.name, origin ? std::to_string(origin->step) : "?",
         settings.empty() ? "-" : settings,
         f.diverged_step ? f.status + "@" + std::to_string(*f.diverged_step) : f.status});
  }
  for (const auto& m : metrics) {  // a column's numbers with one number of decimals
    std::vector<double> values;
    for (const auto& f : forks) {
      const auto it = f.final_metrics.find(m);
      values.push_back(it == f.final_metrics.end() ? NAN : it->second);
    }
    const std::vector<std::string> cells = column_numbers(values);
    for (size_t i = 0; i < forks.size(); ++i)
      table.rows[i].push_back(forks[i].final_metrics.count(m) ? cells[i] : "-");
  }
  out << text_table_to_markdown(table) << "\n";
}

}  // namespace

std::vector<db::RunRecord> fork_sections(std::ostream& out, const db::Store& store,
                                         const db::RunRecord& run,
                                         const std::vector<std::string>& metrics,
                                         const PairedTester& test) {
  std::vector<db::RunRecord> beside;
  if (auto parent = fork_of(out, store, run, store.tags(run.id), test))
    beside.push_back(std::move(*parent));
  const std::vector<db::RunRecord> forks = forks_of(store, run);
  if (forks.empty()) return beside;
  out << "## Forks of this run\n\n"
      << forks.size() << (forks.size() == 1 ? " run continues" : " runs continue")
      << " this one from one of its checkpoints with changed settings (`fathom train --fork`)"
      << (forks.size() > kForksDrawn
              ? "; the curves below draw the newest " + std::to_string(kForksDrawn) + " beside it"
              : "; the curves below draw them beside it")
      << ".\n\n";
  forks_table(out, store, forks, metrics);
  beside.insert(beside.end(), forks.end() - std::min(forks.size(), kForksDrawn), forks.end());
  return beside;
}

std::optional<db::RunRecord> fork_sweep_note(std::ostream& out, const db::Store& store,
                                             const std::vector<db::RunRecord>& runs,
                                             const std::vector<std::string>& metrics) {
  std::vector<std::map<std::string, std::string>> runs_tags;
  for (const auto& r : runs) {
    runs_tags.push_back(store.tags(r.id));
    if (!db::fork_origin(runs_tags.back())) return std::nullopt;  // no fork sweep: read no more
  }
  const std::optional<db::ForkOrigin> shared = db::shared_fork_origin(runs_tags);
  if (!shared) return std::nullopt;
  const std::string id = std::to_string(shared->parent);
  const auto parent = store.find_run(id);
  out << "Every run is a fork of " << (parent ? run_name(*parent) : "run " + id)
      << " from its checkpoint at update " << shared->step << " (a fork sweep)";
  if (!parent) {
    out << "; run " << id << " is no longer in the store.\n\n";
    return std::nullopt;
  }
  std::vector<std::string> ended;
  for (const auto& m : metrics)
    if (const auto it = parent->final_metrics.find(m); it != parent->final_metrics.end())
      ended.push_back(m + " " + column_numbers({it->second})[0]);
  out << ": the parent (" << parent->status
      << (parent->diverged_step ? " at update " + std::to_string(*parent->diverged_step) : "")
      << ")" << (ended.empty() ? "" : " ended with ");
  for (size_t i = 0; i < ended.size(); ++i) out << (i ? ", " : "") << ended[i];
  out << " -- what its runs are measured against; the curves draw it.\n\n";
  return parent;
}

}  // namespace fathom::experiments
