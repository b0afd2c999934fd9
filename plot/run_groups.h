#pragma once
// Which runs belong together: a run's value of a key (a sweep axis, a tag or a config path),
// the keys "axes" stands for (every sweep axis but the seed), and a group's label. Shared by
// `fathom export plot curves --group-by`, reports and the desktop app's dashboard, so a figure
// in a paper groups exactly as the screen did.
#include <map>
#include <string>
#include <vector>

#include "base/config/seed_key.h"
#include "db/records.h"

namespace fathom::plot {

using Tags = std::map<std::string, std::string>;

// The run's sweep-axis tag "axis.KEY", else its tag KEY, else the dotted config path KEY of its
// config JSON; "" when it has none. A key may also be given as "axis.KEY".
std::string run_value(const Tags& tags, const std::string& config_json, const std::string& key);

// A seed key (train.seed, seed, ...): left out of "axes".
using fathom::is_seed_key;

// The tag a caller may add to each run's tags with the run's sweep name, so that grouping by
// "axes" keeps runs of different sweeps apart (expand_group_keys adds it as the first key
// when the runs carry two or more values of it).
inline constexpr char kSweepTag[] = "sweep";

// The keys to group by: each requested key as given, except "axes", which stands for every
// sweep axis the runs carry (their axis.* tags) other than the seed that takes two values or
// more among them (all of them where none does), in name order -- after the sweep (kSweepTag)
// where the runs come from several.
std::vector<std::string> expand_group_keys(const std::vector<std::string>& requested,
                                           const std::vector<Tags>& tags_of_runs);

// "#12 norm=post,seed=2": a run's id and name, without its sweep's prefix (sweep runs are named
// "<sweep>/<axis values>"; the axis values tell them apart) -- how a member is listed.
std::string run_short_name(const db::RunRecord& run);

// "norm=post, layers=18": each key's last dotted part where that is unambiguous among `keys`.
// The sweep (kSweepTag) comes last: its name is long and a list elides a label's end, which
// hid the axes that tell the groups of one sweep apart.
std::string group_label(const std::vector<std::string>& keys,
                        const std::vector<std::string>& values);

}  // namespace fathom::plot
