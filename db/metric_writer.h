#pragma once
// Buffered metric logging for the training loop (and the training probes' points, written
// with them: db/records.h ProbeRow). Rows are written in one transaction every
// `flush_rows` rows or `flush_seconds` seconds (whichever comes first), on flush() and on
// destruction, so a log() call costs a vector push and a clock read, not a disk write.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "db/store.h"

namespace fathom::db {

class MetricWriter {
 public:
  // `store` must outlive the writer and must not be moved while it exists. Rows are the
  // holder's writes (db/lease.h): a flush after the run was taken from `lease` throws LeaseLost.
  MetricWriter(Store& store, Lease lease, size_t flush_rows = 512, double flush_seconds = 2.0);
  // Flushes; an error is reported on stderr (a destructor must not throw). Call flush()
  // first where losing the tail of a curve should stop the program.
  ~MetricWriter();
  MetricWriter(const MetricWriter&) = delete;
  MetricWriter& operator=(const MetricWriter&) = delete;

  // Records `value` of metric `name` at update `step`, stamped with the current wall time.
  void log(int64_t step, const std::string& name, double value);
  // Records probe points (stamped now); written at the next flush, after the metric rows.
  void log_probes(std::vector<ProbeRow> rows);
  // Writes the buffered rows now (no-op when empty). On error the rows stay buffered.
  void flush();
  size_t pending() const { return buffer_.size() + probes_.size(); }

 private:
  Store& store_;
  Lease lease_;
  size_t flush_rows_;
  std::chrono::steady_clock::duration flush_interval_;
  std::chrono::steady_clock::time_point last_flush_;
  std::vector<MetricRow> buffer_;
  std::vector<ProbeRow> probes_;
};

}  // namespace fathom::db
