#pragma once
// Sorting and filtering of the runs table: by sweep (one sweep, single runs only, or all) and
// by an expression of the filter language (experiments/run_query.h): "norm=pre and
// valid_ppl<3", or a bare word matched against name, status and sweep as before; and by the
// runs brushed in another view (gui/run_brush.h). A run must pass all three.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <QSortFilterProxyModel>
#include "experiments/run_query.h"

namespace fathom::gui {

class RunBrush;

class RunsFilter : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit RunsFilter(QObject* parent = nullptr);
  // Also watches `source` for rows whose run changed, to drop what was kept of their configs.
  void setSourceModel(QAbstractItemModel* source) override;

  // nullopt: every run; "": runs outside any sweep; else that sweep's runs.
  void setSweep(std::optional<QString> sweep);
  // A malformed expression keeps the last good one in force (the table does not jump while a
  // word is half typed) and is reported by error() and filterStatusChanged().
  void setText(const QString& text);
  // Only the brushed runs while `brush` is set (gui/run_brush.h); nullptr: no brushing.
  void setBrush(const RunBrush* brush);
  // Why the text does not parse ("" when it does), with its column.
  QString error() const { return error_; }
  // What to tell the user about the filter now: the parse error; where nothing matches
  // "no run matches: ... (no run has test_bleu)"; else how many runs it shows ("30 of 230 runs
  // shown"); "" without an expression.
  QString statusText() const;

 signals:
  void filterStatusChanged();

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

 private:
  experiments::RunFields fieldsOf(const db::RunRecord& run) const;
  // Drops the kept config answers of the source's rows first..last (their run changed: a
  // config set again on resume) or of every row (a reset: another store, runs deleted).
  void forgetConfigs(int first, int last);

  std::optional<QString> sweep_;
  const RunBrush* brush_ = nullptr;
  QString text_;
  experiments::RunQuery query_;
  std::shared_ptr<const std::vector<std::string>> queryFields_;  // lower case
  QString error_;
  // Each run's answers to the config keys a filter asked, read from its config's text in one
  // pass for all the filter's fields at once, and kept while its row is unchanged: the next
  // keystroke mostly asks the same fields. Keeping each run's parsed config instead held
  // 1.4 GB at 100,000 runs, against 32 MB (bench/bench_runs_filter.cpp).
  using ConfigAnswers = std::map<std::string, std::optional<experiments::QueryValue>>;
  mutable std::map<int64_t, ConfigAnswers> configAnswers_;
  std::vector<QMetaObject::Connection> sourceConnections_;
};

}  // namespace fathom::gui
