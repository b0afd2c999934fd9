#pragma once
// The sweep scheduler's terminal display: runs ended / running / queued, each running run's
// update and last training loss, and the ETA of the sweep from this session's update rate (or,
// before this session's first update, from the pace of the runs that ended before it).
// Rendering is a pure function of a snapshot, so it is tested without processes or a terminal.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fathom::experiments {

struct RunProgress {
  int64_t id = 0;
  std::string name;
  int64_t updates = 0, max_updates = 0;
  std::optional<double> train_loss;  // last logged
  std::string device;                // slot's device, "" when not mapped
};

struct SweepSnapshot {
  std::string sweep;
  int runs = 0;  // runs this session drives
  int finished = 0, diverged = 0, failed = 0, crashed = 0, cancelled = 0;
  int queued = 0;
  std::vector<RunProgress> running;
  // Updates over this session's runs: an ended run counts as all its updates (a diverged one
  // does not need the rest), a queued or running one as the updates it has.
  int64_t updates_done = 0, updates_total = 0;
  int64_t updates_at_start = 0;  // updates_done when the session began (resumed work)
  double elapsed_s = 0;
  // Seconds an update took in the sweep's runs that ended before this session (experiments/
  // sweep_pace.h); the ETA's pace, each running run one worker, until this session's first
  // update. nullopt for a new sweep.
  std::optional<double> ended_seconds_per_update;

  int ended() const { return finished + diverged + failed + crashed + cancelled; }
};

struct SweepEta {
  double seconds = 0;
  bool from_ended_runs = false;  // shown "~": a guess from earlier runs, not this session's rate
};

// Seconds left at this session's rate; before this session's first update, the updates left at
// the ended runs' pace shared by the running runs; nullopt where neither is known.
std::optional<SweepEta> sweep_eta(const SweepSnapshot& s);

// Summary line first, then one line per running run, each at most `width` characters.
std::vector<std::string> render_sweep_progress(const SweepSnapshot& s, int width);

}  // namespace fathom::experiments
