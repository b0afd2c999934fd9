#pragma once
// The files a run keeps -- checkpoints, test hypotheses, prepared state -- written so that a
// worker that lost its run (db/lease.h) can never touch a file the run's new holder reads.
// Every file gets a name no other holder writes, <stem>[.u<update>].g<generation><ext>
// (checkpoint_last.u300.g2.pt), and becomes the run's only when the store records it, in a
// fenced write; the store's artifact rows are the one truth about which files are the run's.
// A name, once recorded, is never written again, so nothing can replace a recorded file
// between a check and a rename -- there is no such window, on a local disk or on NFS.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/artifact_files.h"
#include "db/store.h"

namespace fathom {

// The readings of artifact rows (recorded_file, kept_checkpoints) live in db/artifact_files.h.
using db::kept_checkpoint_kind;
using db::kept_checkpoints;
using db::KeptCheckpoint;
using db::recorded_file;

class RunFiles {
 public:
  // Reads the run's artifact rows: from here on this holder is the only one recording them.
  RunFiles(db::Store& store, db::Lease lease, std::string dir);

  const std::string& dir() const { return dir_; }
  const db::Lease& lease() const { return lease_; }

  // dir/<stem>[.u<update>].g<generation><ext>: a name only this holder writes.
  std::string name(const std::string& stem, std::optional<int64_t> update,
                   const std::string& ext) const;

  // Records the complete file `path` as the run's `kind` at `step`. With `previous_kind`, the
  // file `kind` named before becomes `previous_kind` (the resume point before this one), in
  // the same transaction. A file no row names any more is then removed. When the store
  // refuses (LeaseLost) or fails, `path` is removed and nothing is recorded. The rows of the
  // `retired` kinds go in the same transaction, and then their files.
  void record(const std::string& kind, const std::string& path, int64_t step,
              const std::string& previous_kind = "", const std::vector<std::string>& retired = {});

  // Records a file that is already the run's (another kind names it, or an older holder
  // wrote it) as its `kind`; on failure nothing is removed.
  void adopt(const std::string& kind, const std::string& path, int64_t step);

  // Every row this holder knows of, by kind, paths inside dir().
  std::vector<db::Artifact> rows() const;

  // The file recorded for `kind` ("" when none) and its step (-1).
  std::string current(const std::string& kind) const;
  int64_t current_step(const std::string& kind) const;

  // Removes files of earlier generations that no row names: a kill between writing a file
  // and recording it, or a holder refused after it wrote one.
  void remove_strays() const;

 private:
  bool named_by_a_row(const std::string& path) const;
  // After a recording: the cache follows, and each `displaced` file goes unless a row still
  // names it.
  void settle(const std::vector<db::Artifact>& recorded, const std::vector<std::string>& retired,
              const std::vector<std::string>& displaced);

  db::Store& store_;
  db::Lease lease_;
  std::string dir_;
  std::map<std::string, db::Artifact> rows_;  // by kind, paths inside dir_
};

}  // namespace fathom
