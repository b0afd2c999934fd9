#pragma once
// What the runs view can do to runs. Everything that trains goes through the `fathom`
// command line in a separate, detached process; the GUI itself only writes a status.
#include <cstdint>
#include <vector>

#include <QString>
#include <QStringList>

#include "db/store.h"

namespace fathom::gui {

// Cancels queued and running runs exactly as `fathom sweep cancel` does
// (experiments/run_control.h): status cancelled, and each running worker stopped through the
// launcher that started it (SIGTERM to a local process, scancel of a Slurm job). Returns how
// many were cancelled; workers that could not be stopped are added to *problems (may be null).
// Store errors throw.
int cancel_runs(const QString& db_location, const std::vector<db::RunRecord>& runs,
                QStringList* problems = nullptr);

// `fathom sweep cancel NAME`, detached. false and *message when it cannot start.
bool cancel_sweep(const QString& db_location, const QString& sweep, QString* message);

// `fathom train --resume ID`, detached, output appended to the run's worker.log. false and
// *message when it cannot start, or when the store has no artifacts directory (a server store
// without --artifacts / $FATHOM_ARTIFACTS).
bool resume_run(const QString& db_location, int64_t run, QString* message);

// A run that trained and no longer does: what `fathom train --reproduce` can compare with.
bool can_reproduce(const db::RunRecord& run);

// `fathom train --reproduce ID`, detached, output appended to the original run's
// reproductions.log (the new run's id is the command's to choose). As resume_run otherwise.
bool reproduce_run(const QString& db_location, int64_t run, QString* message);

// Deletes runs from the store (Store::delete_run: every row about them) and then their
// artifact directories (checkpoints, logs). A running run is refused: it is skipped and its
// reason added to *errors; so is a store with no artifacts directory configured (the rows go,
// the files stay). Returns how many were deleted; a store that cannot be opened throws.
int delete_runs(const QString& db_location, const std::vector<db::RunRecord>& runs,
                QStringList* errors);

// Removes the run's artifact directory and everything in it; true when it is gone (or never
// was), false when it could not be removed or no artifacts directory is configured.
bool remove_run_artifacts(const QString& db_location, int64_t run);

// Where `fathom` keeps a run's files (db::store_paths: $FATHOM_ARTIFACTS/run-<id>/, else
// <db dir>/<db stem>.artifacts/run-<id>/ for a SQLite store); "" for a server store with no
// artifacts directory configured.
QString run_artifacts_dir(const QString& db_location, int64_t run);

}  // namespace fathom::gui
