#include "gui/probe_reader.h"

namespace fathom::gui {

ProbeAnswer read_probes(const db::Store& store, const ProbeQuery& query) {
  ProbeAnswer answer;
  answer.generation = query.generation;
  for (int64_t run : query.name_runs) answer.names[run] = store.probe_names(run);
  for (const ProbeRead& read : query.reads)
    answer.series.emplace_back(read, store.probe_series(read.run, read.probe, read.after_step));
  return answer;
}

ProbeReader::ProbeReader(QObject* parent) : QObject(parent), worker_(new StoreWorker(this)) {
  connect(worker_, &StoreWorker::failed, this, &ProbeReader::failed);
}

void ProbeReader::request() {
  // The query is taken when the read is sent: after the answer in flight is shown, it asks
  // only for the points after those.
  worker_->request([this]() -> StoreWorker::Job {
    ProbeQuery query = query_ ? query_() : ProbeQuery{};
    return [this, query = std::move(query)](const db::Store* store) -> std::function<void()> {
      // No store, or one locked by another process: an empty answer skips this tick.
      auto answer =
          std::make_shared<const ProbeAnswer>(store ? read_probes(*store, query) : ProbeAnswer{});
      return [this, answer] { emit probesRead(answer); };
    };
  });
}

}  // namespace fathom::gui

#include "moc_probe_reader.cpp"  // moc output for probe_reader.h: compiled in this unit
