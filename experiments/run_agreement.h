#pragma once
// Whether two runs computed the same trajectory: their stored curves compared value by value at
// every update both recorded, leaving out what measures the machine rather than the model
// (db::metric::measures_the_machine). `fathom compare` says it of each run against the first,
// `fathom train --reproduce` of a run trained again from a stored run's config. On the CPU a
// run is deterministic given its seed, so on the same code, kernels and device its twin
// agrees to the last bit; where it does not, the first update and metric that part say where
// to look (a change of code, of OpenBLAS kernels, of device), and the values at the last
// common update say how far apart the runs ended.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/records.h"

namespace fathom::db {
class Store;
}

namespace fathom::experiments {

// One metric's values in the two runs at one update.
struct CurvePoint {
  int64_t step = 0;
  std::string metric;
  double a = 0, b = 0;
  double relative = 0;  // |a - b| / max(|a|, |b|); 0 where both are 0 or both NaN
};

struct RunAgreement {
  double tolerance = 0;  // relative; 0: the values must be equal
  int64_t through = 0;   // the last update at which both runs recorded a compared metric
  size_t metrics = 0;    // compared: recorded by both, not measuring the machine
  size_t values = 0;     // value pairs compared
  // The first update at which a value differs beyond the tolerance (its metric the first in
  // name order there); none: the curves agree through `through`.
  std::optional<CurvePoint> first_departure;
  // Each compared metric at the last update both recorded it, where the values differ beyond
  // the tolerance, largest relative difference first.
  std::vector<CurvePoint> apart_at_end;
  // Compared metrics recorded at updates the other run lacks (one ran longer, or logged at
  // other updates), and metrics only one run recorded.
  int64_t unmatched_values = 0;
  std::vector<std::string> only_in_a, only_in_b;

  bool agrees() const { return !first_departure; }
};

// Rows as Store::metric_rows gives them (any order).
RunAgreement compare_trajectories(const std::vector<db::MetricRow>& a,
                                  const std::vector<db::MetricRow>& b, double tolerance = 0);

// The same read from a store metric by metric, never more than two series in memory (a run's
// whole rows are 2 GB at 12 million): `first` against each of `others`, in their order. A run
// still writing is read a metric at a time, not as one snapshot.
std::vector<RunAgreement> compare_stored_trajectories(const db::Store& store, int64_t first,
                                                      const std::vector<int64_t>& others,
                                                      double tolerance = 0);
RunAgreement compare_stored_trajectories(const db::Store& store, int64_t a, int64_t b,
                                         double tolerance = 0);

// Two values agree within `tolerance` (relative); both NaN agree, as do equal infinities.
bool values_agree(double a, double b, double tolerance);

// "identical: 1,250 values of 13 metrics through update 500" or "first recorded difference at
// update 10, grad_norm 1.2345 (#1) against 1.2346 (#7), relative 8.1e-05 (of ...); at the end
// ...", the runs named by `a` and `b`.
std::string describe_agreement(const RunAgreement& agreement, const std::string& a,
                               const std::string& b);

// For --json: agrees, tolerance, through, metrics, values, unmatched_values, only_in_first,
// only_in_this, first_departure {update, metric, values [a, b], relative} (null when none) and
// apart_at_end (a list of the same).
nlohmann::json agreement_json(const RunAgreement& agreement);

}  // namespace fathom::experiments
