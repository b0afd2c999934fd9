#include "db/metric_writer.h"

#include <exception>
#include <iostream>

namespace fathom::db {

MetricWriter::MetricWriter(Store& store, Lease lease, size_t flush_rows, double flush_seconds)
    : store_(store),
      lease_(lease),
      flush_rows_(flush_rows == 0 ? 1 : flush_rows),
      flush_interval_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(flush_seconds))),
      last_flush_(std::chrono::steady_clock::now()) {
  buffer_.reserve(flush_rows_);
}

MetricWriter::~MetricWriter() {
  try {
    flush();
  } catch (const LeaseLost&) {
    // Not ours any more: the rows are rightly dropped (the trainer said why).
  } catch (const std::exception& e) {
    std::cerr << "warning: " << pending() << " metric rows and probe points of run " << lease_.run
              << " were not written: " << e.what() << "\n";
  }
}

void MetricWriter::log(int64_t step, const std::string& name, double value) {
  buffer_.emplace_back(step, name, value, unix_now());
  if (buffer_.size() >= flush_rows_ ||
      std::chrono::steady_clock::now() - last_flush_ >= flush_interval_)
    flush();
}

void MetricWriter::log_probes(std::vector<ProbeRow> rows) {
  const double now = unix_now();
  for (auto& row : rows) {
    row.wall_time = now;
    probes_.push_back(std::move(row));
  }
  flush();  // a probe point is rare (every train.probe_every updates) and large: write it now
}

void MetricWriter::flush() {
  last_flush_ = std::chrono::steady_clock::now();  // also after a failure: no retry storm
  if (!buffer_.empty()) {
    store_.write_metrics(lease_, buffer_);
    buffer_.clear();
  }
  if (!probes_.empty()) {
    store_.write_probes(lease_, probes_);
    probes_.clear();
  }
}

}  // namespace fathom::db
