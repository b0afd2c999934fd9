#include "experiments/stored_run_selection.h"

#include <utility>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "experiments/run_control.h"

namespace fathom::experiments {
namespace {

std::vector<db::RunRecord> listed_runs(const db::Store& store, const StoredRuns& asked, double now,
                                       const std::vector<std::string>& config_words) {
  std::vector<db::RunRecord> listed;
  for (auto& run : store.list_runs(asked.sweep, config_words))
    if (asked.status.empty() || shown_status(run, now) == asked.status)
      listed.push_back(std::move(run));
  return listed;
}

// None where the text is malformed: select_runs says what is wrong.
std::vector<std::string> config_words(const std::string& where) {
  try {
    return RunQuery::parse(trim(where)).config_words();
  } catch (const RunQueryError&) {
    return {};
  }
}

}  // namespace

// Where the narrowed runs leave none kept, or name a field none of them has, the whole listing
// answers, as without the words: "no run of the N listed matches" and a misspelt field's
// "(of N runs)" count all of them, and a field only runs left out have is no misspelling.
StoredSelection select_stored_runs(const db::Store& store, const StoredRuns& asked,
                                   const RunSelection& selection, double now,
                                   const std::string& command) {
  if (const auto words = config_words(selection.where); !words.empty()) {
    try {
      StoredSelection narrowed;
      narrowed.runs = select_runs(listed_runs(store, asked, now, words), selection, command);
      if (!narrowed.runs.empty()) return narrowed;
    } catch (const InputError&) {  // a field these runs lack: the whole listing decides
    }
  }
  StoredSelection all;
  std::vector<db::RunRecord> listed = listed_runs(store, asked, now, {});
  all.listed = listed.size();
  all.runs = select_runs(std::move(listed), selection, command);
  return all;
}

}  // namespace fathom::experiments
