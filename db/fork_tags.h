#pragma once
// The run tags of a fork (`fathom train --fork RUN --from STEP`, core/train/fork.h): the run it
// left (forked_from), the update where it left it (forked_at) and the settings it changed
// (fork.settings, "key=value" the --set overrides), and fork.copied where its files could not
// be linked. One vocabulary for the writer and its
// readers -- the desktop app's fork marks, the curves' labels and marks, a fork's report.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fathom::db {

inline constexpr const char* kForkedFromTag = "forked_from";
inline constexpr const char* kForkedAtTag = "forked_at";
inline constexpr const char* kForkSettingsTag = "fork.settings";
// Set where the fork's files were copied, not linked, and kept checkpoints it cannot average
// were left with the parent: what it says.
inline constexpr const char* kForkCopiedTag = "fork.copied";

struct ForkOrigin {
  int64_t parent = 0;  // the run it was forked from
  int64_t step = 0;    // the update it continues from
};

// nullopt for a run that is no fork (or whose fork tags do not read as whole numbers: a tag
// someone set by hand).
std::optional<ForkOrigin> fork_origin(const std::map<std::string, std::string>& tags);

// Where every run of `runs_tags` (each run's tags) is a fork of one run at one update -- a fork
// sweep's runs --, that origin; else (a run that is no fork, two origins, no runs) nullopt.
std::optional<ForkOrigin> shared_fork_origin(
    const std::vector<std::map<std::string, std::string>>& runs_tags);

// The runs forked from `run`, oldest first, among `forked_from` (each tagged run's parent as
// Store::tagged_runs(kForkedFromTag) gives them).
std::vector<int64_t> forks_among(const std::map<int64_t, std::string>& forked_from, int64_t run);

// "3 runs: #13, #14, #15" (the first ten named, then "and N more"): `fathom show`'s and the run
// page's "forks" line.
std::string forks_text(const std::vector<int64_t>& forks);

// "(fork of #12 at 300)", for a run's label.
std::string fork_label(const ForkOrigin& origin);

// The settings the fork changed as its tag says them ("train.lr=0.0005; train.z_loss=0.0001"),
// "" when it changed none.
std::string fork_settings(const std::map<std::string, std::string>& tags);

// "run 12 at update 300 (train.lr=0.0005)" or "... (nothing changed)": `fathom show`'s and the
// run page's "fork of" line.
std::string fork_of_text(const ForkOrigin& origin, const std::map<std::string, std::string>& tags);

}  // namespace fathom::db
