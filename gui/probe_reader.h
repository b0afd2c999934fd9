#pragma once
// Reads the Probes tab's probe points in a worker thread with its own read-only Store
// (gui/store_worker.h): a live run's poll asks only for the points after those already shown,
// and a slow or locked store never stalls the window.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <QObject>
#include <QString>

#include "db/store.h"
#include "gui/store_worker.h"

namespace fathom::gui {

// One probe of one run: its points with step > after_step.
struct ProbeRead {
  int64_t run = 0;
  std::string probe;
  int64_t after_step = -1;
};

struct ProbeQuery {
  std::vector<int64_t> name_runs;  // runs whose probe names to read
  std::vector<ProbeRead> reads;
  uint64_t generation = 0;  // the asker's; an answer to an older one is stale
};

struct ProbeAnswer {
  std::map<int64_t, std::vector<std::string>> names;          // per run of name_runs (sorted)
  std::vector<std::pair<ProbeRead, db::ProbeSeries>> series;  // one per read, in order
  uint64_t generation = 0;
};

// The reads themselves (any thread that owns `store`).
ProbeAnswer read_probes(const db::Store& store, const ProbeQuery& query);

class ProbeReader : public QObject {
  Q_OBJECT
 public:
  explicit ProbeReader(QObject* parent = nullptr);

  // The store to read (Store::location(); it may hold a password: never shown); "" closes the
  // connection before returning.
  void setDatabase(const QString& location) { worker_->setDatabase(location); }
  // What to read, asked on the UI thread when a read is sent.
  void setQuery(std::function<ProbeQuery()> query) { query_ = std::move(query); }
  // One read in flight at a time: a request meanwhile sends one more after it.
  void request();
  bool busy() const { return worker_->busy(); }

 signals:
  void probesRead(std::shared_ptr<const fathom::gui::ProbeAnswer> answer);
  void failed(const QString& message);

 private:
  StoreWorker* worker_;
  std::function<ProbeQuery()> query_;
};

}  // namespace fathom::gui

Q_DECLARE_METATYPE(std::shared_ptr<const fathom::gui::ProbeAnswer>)
