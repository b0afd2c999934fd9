#pragma once
// Which files a run's artifact rows name: the one reading of the rows for the trainer
// (core/train/run_files.h), the command line and the desktop app. A row's path is resolved
// inside today's run directory, so a moved artifacts root still finds the files.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/records.h"

namespace fathom::db {

// Where the rows say the run's `kind` file is: the file name of its row, inside `dir`. ""
// when there is none.
std::string recorded_file(const std::vector<Artifact>& artifacts, const std::string& dir,
                          const std::string& kind);

// Where one artifact's file is today: inside `dir`, as recorded_file() resolves it, or the row's
// own path where `dir` is "" (a server store with no folder for runs here).
std::string artifact_file(const Artifact& artifact, const std::string& dir);

// The size of the file at `path`; nullopt where there is none (removed, never written).
std::optional<std::uintmax_t> file_bytes(const std::string& path);

// What removing the files at `paths` frees: the size of each file all of whose names are among
// them -- a file another name still links to (a fork's copy of its parent's checkpoint, a resume
// point at a kept update: hard links) frees nothing. A missing file frees nothing.
std::uintmax_t bytes_freed_by_removing(const std::vector<std::string>& paths);

// The run's resume point (checkpoint_last) and the one before it (checkpoint_previous, the
// fallback when the last is unreadable), as the rows name them ("" where there is none). Runs
// trained before files carried their holder's generation wrote checkpoint_last.pt and kept the
// one before beside it as checkpoint_previous.pt, without a row: that file is named then.
struct ResumePoints {
  std::string last, previous;
  bool previous_has_row = false;
};
ResumePoints resume_points(const std::vector<Artifact>& artifacts, const std::string& dir);

// A checkpoint train.keep_checkpoint_every kept: the row checkpoint_<update>.
struct KeptCheckpoint {
  int64_t update = 0;
  std::string path;  // inside `dir`, as recorded_file() gives it
};

// The kind of the kept checkpoint at `update`: "checkpoint_<update>".
std::string kept_checkpoint_kind(int64_t update);

// Every kept checkpoint the rows name, oldest first.
std::vector<KeptCheckpoint> kept_checkpoints(const std::vector<Artifact>& artifacts,
                                             const std::string& dir);

}  // namespace fathom::db
