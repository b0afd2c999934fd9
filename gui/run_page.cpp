#include "gui/run_page.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <stdexcept>
#include <vector>

#include <QComboBox>
#include <QDateTime>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QTabWidget>
#include <QTextCursor>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

#include "base/util/strings.h"
#include "db/artifact_files.h"
#include "db/early_stop_tag.h"
#include "db/fork_tags.h"
#include "db/run_status.h"
#include "db/system_summary.h"
#include "db/update_rate.h"
#include "db/valid_samples.h"
#include "experiments/worker_tags.h"
#include "gui/compare_window.h"
#include "gui/lm_attention_panel.h"
#include "gui/number_text.h"
#include "gui/run_charts.h"
#include "gui/run_state_text.h"
#include "gui/translate_panel.h"

namespace fathom::gui {
namespace {

QString when(double t) {
  return t > 0 ? QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(t * 1000)).toString(Qt::ISODate)
               : QStringLiteral("-");
}

QString size_text(const std::string& path) {
  const auto bytes = db::file_bytes(path);
  return bytes ? QString::fromStdString(format_bytes(*bytes)) : QStringLiteral("missing");
}

// The last `lines` lines of a text file; "" where it cannot be read.
QString tail_of(const std::string& path, int lines) {
  std::ifstream in(path);
  if (!in) return {};
  std::vector<std::string> kept;
  for (std::string line; std::getline(in, line);) {
    kept.push_back(line);
    if (kept.size() > static_cast<size_t>(lines)) kept.erase(kept.begin());
  }
  QString out;
  for (const auto& line : kept) out += QString::fromStdString(line) + "\n";
  return out;
}

QPlainTextEdit* text_view(const QString& text, const QString& name) {
  auto* view = new QPlainTextEdit(text);
  view->setObjectName(name);
  view->setReadOnly(true);
  view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  return view;
}

void flatten(const nlohmann::json& j, const std::string& path,
             std::map<std::string, std::string>* out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items())
      flatten(value, path.empty() ? key : path + "." + key, out);
  } else {
    (*out)[path] = j.is_string() ? j.get<std::string>() : j.dump();
  }
}

// The overview tab's text: rows laid out in one column as wide as the longest key plus two
// spaces (a fixed width ran long keys into their values: "decode_time_s5.98552").
QString overview_text(const db::RunRecord& run, const std::map<std::string, std::string>& tags,
                      const std::vector<db::Artifact>& artifacts, const std::string& run_dir,
                      const std::vector<db::SystemSummary>& system,
                      const std::vector<int64_t>& forks, std::optional<double> seconds_per_update) {
  struct Row {
    QString key, value;
    bool heading;
  };
  std::vector<Row> rows;
  auto line = [&rows](const QString& key, const QString& value) {
    rows.push_back({key, value, false});
  };
  auto heading = [&rows](const QString& title) { rows.push_back({title, {}, true}); };
  line("id", QString::number(run.id));
  line("name", QString::fromStdString(run.name));
  line("sweep", QString::fromStdString(run.sweep));
  if (const auto origin = db::fork_origin(tags))  // as `fathom show` says it
    line("fork of", QString::fromStdString(db::fork_of_text(*origin, tags)));
  if (!forks.empty()) line("forks", QString::fromStdString(db::forks_text(forks)));
  QString status = run_state_text(run, seconds_per_update);
  if (run.status == db::status::kFinished && db::ended_by_early_stop(tags))
    status += QStringLiteral(" (early stop: train.patience)");  // as `fathom show` says
  line("status", status);
  if (!run.error.empty()) line("error", QString::fromStdString(run.error));
  line("updates", QString::number(run.updates));
  line("created", when(run.created_at));
  line("started", when(run.started_at));
  line("finished", when(run.finished_at));
  line("heartbeat", when(run.heartbeat_at));
  line("host", QString::fromStdString(run.host + " " + run.device));
  line("git", QString::fromStdString(run.git_rev));
  heading("final metrics");
  for (const auto& [name, value] : run.final_metrics)
    line("  " + QString::fromStdString(name), number_text(value));
  // What the run cost the machine (sys.*, sampled at its log points): last, mean, max.
  if (!system.empty()) heading(QStringLiteral("system (last / mean / max)"));
  for (const auto& m : system)
    line("  " + QString::fromStdString(m.name), number_text(m.last) + " / " + number_text(m.mean) +
                                                    " / " + number_text(m.max) + " " +
                                                    QString::fromStdString(m.unit));
  heading("tags");
  for (const auto& [key, value] : tags)
    if (key != "note" && !db::is_samples_tag(key))
      line("  " + QString::fromStdString(key), QString::fromStdString(value));
  heading("artifacts");
  for (const auto& a : artifacts)
    line("  " + QString::fromStdString(a.kind),
         QString::fromStdString(a.path) +
             (a.step ? QStringLiteral(" (update %1)").arg(*a.step) : QString()) + "  [" +
             size_text(db::artifact_file(a, run_dir)) + "]");
  qsizetype width = 0;
  for (const Row& r : rows)
    if (!r.heading) width = std::max(width, r.key.size());
  QString text;
  for (const Row& r : rows)
    text += r.heading ? "\n" + r.key + "\n" : r.key.leftJustified(width + 2) + r.value + "\n";
  return text;
}

// The samples tab's text: the sample translations at each validation, newest first
// (train.valid_samples), then the first lines of the test hypotheses.
QString samples_text(const db::RunRecord& run, const std::map<std::string, std::string>& tags,
                     const std::vector<db::Artifact>& artifacts, const std::string& run_dir) {
  QString samples;
  const auto by_update = db::validation_samples(tags);
  // A language model continues a prompt (model.arch: decoder_only), greedily and top-k sampled.
  const bool lm = db::continues_prompts(run.config_json);
  const QString labels[3] = {lm ? "  prompt  " : "  src  ", lm ? "\n  text    " : "\n  ref  ",
                             lm ? "\n  greedy  " : "\n  hyp  "};
  for (auto it = by_update.rbegin(); it != by_update.rend(); ++it) {
    samples += QStringLiteral("validation at update %1\n").arg(it->first);
    for (const auto& s : it->second) {
      samples += labels[0] + QString::fromStdString(s.source) + labels[1] +
                 QString::fromStdString(s.reference) + labels[2] +
                 QString::fromStdString(s.hypothesis) + "\n";
      if (s.top_k > 0)
        samples += QStringLiteral("  top-%1  ").arg(s.top_k, -3) +
                   QString::fromStdString(s.sampled) + "\n";
    }
    samples += "\n";
  }
  QString test;
  for (const auto& a : artifacts)
    if (a.kind == "hypotheses")
      test = tail_of(db::artifact_file(a, run_dir), 1 << 30)
                 .split('\n', Qt::SkipEmptyParts)
                 .mid(0, 20)
                 .join('\n');
  if (!test.isEmpty()) samples += "test set (first 20 hypotheses)\n" + test;
  return samples;
}

}  // namespace

std::string config_diff(const std::string& mine, const std::string& theirs) {
  std::map<std::string, std::string> a, b;
  flatten(nlohmann::json::parse(mine, nullptr, false), "", &a);
  flatten(nlohmann::json::parse(theirs, nullptr, false), "", &b);
  std::map<std::string, std::pair<std::string, std::string>> keys;
  for (const auto& [k, v] : a) keys[k].first = v;
  for (const auto& [k, v] : b) keys[k].second = v;
  std::string out;
  for (const auto& [key, values] : keys) {
    const bool in_a = a.count(key) > 0, in_b = b.count(key) > 0;
    if (in_a && in_b && values.first == values.second) continue;
    out += key + ": " + (in_a ? values.first : "(none)") + " -> " +
           (in_b ? values.second : "(none)") + "\n";
  }
  return out;
}

RunPage::RunPage(db::Store& store, const db::RunRecord& run,
                 const std::vector<db::RunRecord>& others, const std::string& run_dir,
                 QWidget* parent)
    : QWidget(parent), store_(&store), run_(run), run_dir_(run_dir) {
  setWindowFlag(Qt::Window);  // beside the workbench, never blocking it
  setWindowTitle(QStringLiteral("Run %1 %2").arg(run.id).arg(QString::fromStdString(run.name)));
  tabs_ = new QTabWidget;
  charts_ = new RunCharts;
  tabs_->addTab(charts_, QStringLiteral("C&harts"));
  overview_ = text_view(QString(), QStringLiteral("overview"));
  tabs_->addTab(overview_, QStringLiteral("&Overview"));
  config_ = text_view(QString::fromStdString(run.config_yaml), QStringLiteral("config"));
  tabs_->addTab(config_, QStringLiteral("Con&fig"));
  tabs_->addTab(buildDiffPage(others), QStringLiteral("Config &diff"));
  log_ = text_view(QString(), QStringLiteral("log"));
  tabs_->addTab(log_, QStringLiteral("&Log"));
  samples_ = text_view(QString(), QStringLiteral("samples"));
  tabs_->addTab(samples_, QStringLiteral("&Samples"));
  tabs_->addTab(buildNotesPage(store.tags(run.id)), QStringLiteral("&Notes"));
  auto location = [this] {
    return store_ ? QString::fromStdString(store_->location()) : QString();
  };
  if (!db::continues_prompts(run.config_json)) {  // a language model has no source to translate
    translate_ = new TranslatePanel(run, location);
    tabs_->addTab(translate_, QStringLiteral("&Translate"));
  } else {
    lm_attention_ = new LmAttentionPanel(run.id, location);
    tabs_->addTab(lm_attention_, QStringLiteral("&Attention"));
  }
  if (const auto origin = db::fork_origin(store.tags(run.id))) {
    compare_parent_ =
        new QPushButton(QStringLiteral("Compare with parent #%1").arg(origin->parent));
    compare_parent_->setToolTip(
        QStringLiteral("fathom compare %1 %2: settings, curves and the paired tests of test BLEU "
                       "and perplexity against the run this one was forked from")
            .arg(origin->parent)
            .arg(run.id));
    const int64_t parent_id = origin->parent;
    connect(compare_parent_, &QPushButton::clicked, this, [this, location, parent_id] {
      QString problem;
      if (!open_compare_window(this, location(), {parent_id, run_.id}, &problem))
        QMessageBox::warning(this, QStringLiteral("Compare with parent"), problem);
    });
    tabs_->setCornerWidget(compare_parent_, Qt::TopRightCorner);
  }
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(tabs_);
  resize(1100, 760);
  readAgain();
  log_->moveCursor(QTextCursor::End);  // a log is read from its end
}

namespace {

// Replaces a text view's text, keeping where it was scrolled to -- or, for a view scrolled to
// its end (a log being followed), staying at the end.
void set_text_in_place(QPlainTextEdit* view, const QString& text) {
  if (view->toPlainText() == text) return;
  QScrollBar* bar = view->verticalScrollBar();
  const bool at_end = bar->value() == bar->maximum() && bar->maximum() > 0;
  const int at = bar->value();
  view->setPlainText(text);
  bar->setValue(at_end ? bar->maximum() : at);
}

}  // namespace

void RunPage::refresh(const db::RunRecord& run) {
  if (run.id != run_.id) return;
  const bool moved = run.updates != run_.updates || run.status != run_.status ||
                     run.heartbeat_at != run_.heartbeat_at || run.finished_at != run_.finished_at;
  run_ = run;
  if (moved) readAgain();
  followProbes();
}

void RunPage::readAgain() {
  if (!store_) return;
  const auto tags = store_->tags(run_.id);
  const auto artifacts = store_->artifacts(run_.id);
  charts_->refresh(*store_, run_, tags, artifacts);
  if (translate_) translate_->setCheckpoints(artifacts);
  if (lm_attention_) lm_attention_->setCheckpoints(artifacts);
  set_text_in_place(
      overview_,
      overview_text(run_, tags, artifacts, run_dir_, db::system_summary(*store_, run_.id),
                    db::forks_among(store_->tagged_runs(db::kForkedFromTag), run_.id),
                    run_.status == db::status::kRunning
                        ? db::recent_seconds_per_update(*store_, run_)
                        : std::nullopt));
  set_text_in_place(config_, QString::fromStdString(run_.config_yaml));
  const std::string log = run_dir_.empty() ? "" : experiments::worker_log_path(run_dir_);
  const QString log_text = log.empty() ? QString() : tail_of(log, 400);
  set_text_in_place(log_,
                    log_text.isEmpty()
                        ? QStringLiteral("no worker log%1")
                              .arg(log.empty() ? QString() : " at " + QString::fromStdString(log))
                        : log_text);
  const QString samples = samples_text(run_, tags, artifacts, run_dir_);
  set_text_in_place(samples_, samples.isEmpty()
                                  ? QStringLiteral("no sample translations recorded (validation "
                                                   "samples: train.valid_samples; test "
                                                   "hypotheses: at the end of training)")
                                  : samples);
}

// The notes tab: the run's "note" tag, edited and saved with the run.
QWidget* RunPage::buildNotesPage(const std::map<std::string, std::string>& tags) {
  auto* notes_page = new QWidget;
  notes_ = new QPlainTextEdit;
  notes_->setObjectName(QStringLiteral("notes"));
  if (auto note = tags.find("note"); note != tags.end())
    notes_->setPlainText(QString::fromStdString(note->second));
  notes_->setPlaceholderText(QStringLiteral("notes on this run, kept in the store (tag \"note\")"));
  auto* save = new QPushButton(QStringLiteral("&Save notes"));
  connect(save, &QPushButton::clicked, this, [this] { saveNotes(); });
  note_status_ = new QLabel;  // what became of the last save: never written into the note
  note_status_->setObjectName(QStringLiteral("note_status"));
  note_status_->setWordWrap(true);
  auto* save_row = new QHBoxLayout;
  save_row->addWidget(note_status_, 1);
  save_row->addWidget(save);
  auto* notes_layout = new QVBoxLayout(notes_page);
  notes_layout->addWidget(notes_);
  notes_layout->addLayout(save_row);
  return notes_page;
}

// The config diff tab: against another run, its sweep's first by default.
QWidget* RunPage::buildDiffPage(const std::vector<db::RunRecord>& others) {
  for (const auto& o : others)
    if (o.id != run_.id) others_.push_back(o);
  auto* diff_page = new QWidget;
  diff_with_ = new QComboBox;
  for (const auto& o : others_)
    diff_with_->addItem(QStringLiteral("#%1 %2").arg(o.id).arg(QString::fromStdString(o.name)));
  // The same sweep's first other run first: the run it most likely is to be compared with.
  for (size_t i = 0; i < others_.size(); ++i)
    if (!run_.sweep.empty() && others_[i].sweep == run_.sweep) {
      diff_with_->setCurrentIndex(static_cast<int>(i));
      break;
    }
  diff_ = text_view(QString(), QStringLiteral("diff"));
  auto* diff_bar = new QHBoxLayout;
  diff_bar->addWidget(new QLabel(QStringLiteral("against")));
  diff_bar->addWidget(diff_with_, 1);
  auto* diff_layout = new QVBoxLayout(diff_page);
  diff_layout->addLayout(diff_bar);
  diff_layout->addWidget(diff_);
  connect(diff_with_, &QComboBox::currentIndexChanged, this, &RunPage::showDiff);
  showDiff();
  return diff_page;
}

void RunPage::showDiff() {
  const int i = diff_with_->currentIndex();
  if (i < 0 || i >= static_cast<int>(others_.size())) {
    diff_->setPlainText(QStringLiteral("no other run to compare with"));
    return;
  }
  const std::string diff = config_diff(run_.config_json, others_[i].config_json);
  diff_->setPlainText(diff.empty() ? QStringLiteral("the configs agree in every key")
                                   : QString::fromStdString(diff));
}

bool RunPage::saveNotes() {
  // The window reads its store read-only (gui/store_session.cpp): the note, the one thing
  // this page writes, goes through a short-lived read-write connection of its own.
  try {
    if (!store_) throw std::runtime_error("the run store is closed");
    auto writer = db::Store::open(store_->location(), db::OpenMode::ReadWrite);
    writer.set_tag(run_.id, "note", notes_->toPlainText().toStdString());
    note_status_->setText(QStringLiteral("saved"));
    return true;
  } catch (const std::exception& e) {
    note_status_->setText(QStringLiteral("not saved: %1").arg(QString::fromUtf8(e.what())));
    return false;
  }
}

}  // namespace fathom::gui

#include "moc_run_page.cpp"  // moc output for run_page.h: compiled in this unit
