#pragma once
// "Open run": the run page (issues 36, 58 item 2), a window of its own that stays open beside
// the workbench -- several at once, one per run -- and follows its run while it trains (the
// runs view hands it the run's new record at each poll: gui/run_pages.h). Tabs:
//  - Charts: the run's curves (gui/run_charts.h): loss, perplexity, lr, grad norm, its other
//    curves, system metrics when present, the probes' scalars;
//  - Probes, once the run has any: its probes as the Probes tab draws them (depth x update
//    heatmaps or lines; gui/probes_view.h), read on a connection of its own, live;
//  - Overview: status and error, progress and ETA of a live run, times, final metrics, tags,
//    artifacts with their sizes (or "missing");
//  - Config: the run's full config;
//  - Config diff: the config keys in which another run (its sweep's first) differs;
//  - Log: the end of the worker's log (run-<id>/worker.log under the artifacts root);
//  - Samples: each validation's sample translations, the first test translations;
//  - Notes: the user's notes on the run, stored with it (tag "note");
//  - Translate, for a translation model: sentences of one's own through one of its checkpoints
//    (gui/translate_panel.h); for a language model, Attention: where its layers look while it
//    reads a text of one's own (gui/lm_attention_panel.h).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <QWidget>

#include "db/store.h"

class QComboBox;
class QLabel;
class QPushButton;
class QPlainTextEdit;
class QTabWidget;

namespace fathom::gui {

class ProbesView;
class RunCharts;
struct StoreSession;
class TranslatePanel;
class LmAttentionPanel;

class RunPage : public QWidget {
  Q_OBJECT
 public:
  // `others`: runs to diff the config against; `run_dir`: the run's artifact directory
  // (db::StorePaths::run_dir), "" where unknown. A page with no parent is a window.
  RunPage(db::Store& store, const db::RunRecord& run, const std::vector<db::RunRecord>& others = {},
          const std::string& run_dir = "", QWidget* parent = nullptr);
  ~RunPage() override;

  int64_t runId() const { return run_.id; }
  // The run as the store has it now (each poll): the overview, charts, log and samples are
  // read again when it moved on (updates, status or heartbeat); the notes being edited stay.
  void refresh(const db::RunRecord& run);
  // The store reconnected (nullptr while it is closed: nothing is read then).
  void setStore(db::Store* store) { store_ = store; }
  // The store's location, for the Probes tab's reads (gui/run_page_probes.cpp): the tab
  // appears once the run has probes, at once or at a later refresh.
  void showProbes(const QString& location);
  ProbesView* probes() const { return probes_; }
  // Stores the notes tab's text as the run's "note" tag (the Save button).
  bool saveNotes();

  QTabWidget* tabs() const { return tabs_; }
  RunCharts* charts() const { return charts_; }
  TranslatePanel* translator() const { return translate_; }
  LmAttentionPanel* lmAttention() const { return lm_attention_; }
  // A fork's "Compare with parent #N" beside the tabs: `fathom compare PARENT RUN` in a window
  // (gui/compare_window.h) -- the paired tests of the rescue against the run it left. Null for a
  // run that is no fork.
  QPushButton* compareWithParent() const { return compare_parent_; }

 private:
  // The tabs that hold widgets of the page's own.
  QWidget* buildNotesPage(const std::map<std::string, std::string>& tags);
  QWidget* buildDiffPage(const std::vector<db::RunRecord>& others);
  void showDiff();
  void readAgain();     // what changes while the run trains: charts, overview, log, samples
  void followProbes();  // adds the Probes tab once the run has probes; hands it the run

  db::Store* store_;
  db::RunRecord run_;
  std::string run_dir_;
  std::vector<db::RunRecord> others_;
  QTabWidget* tabs_;
  RunCharts* charts_;
  QPlainTextEdit *overview_, *config_, *log_, *samples_;
  QPlainTextEdit* notes_;
  QLabel* note_status_;
  QPlainTextEdit* diff_;
  QComboBox* diff_with_;
  TranslatePanel* translate_ = nullptr;          // none for a language model
  LmAttentionPanel* lm_attention_ = nullptr;     // a language model's only
  QPushButton* compare_parent_ = nullptr;        // a fork's only
  QString location_;                             // for the probes' connection; "" before showProbes
  std::unique_ptr<StoreSession> probe_session_;  // the Probes tab's store
  ProbesView* probes_ = nullptr;
};

// "key: mine -> theirs" for every config key whose value differs, in key order (a key one
// side lacks shows "(none)"); "" when the configs agree. Both are config JSON texts.
std::string config_diff(const std::string& mine, const std::string& theirs);

}  // namespace fathom::gui
