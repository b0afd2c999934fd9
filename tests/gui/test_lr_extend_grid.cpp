// The LR sensitivity tab's "Extend grid...": enabled only while a curve's best rate is at an end
// of its rates, and, given the sweep file, it writes `fathom sweep extend`'s file beside it when
// the user says so -- and nothing when the user cancels. The sweep is stored without training
// (tests/support/stored_lr_sweep.h): Post-LN's loss falls to the top rate, 4e-3, so its next
// rate is 8e-3, for seeds 1 and 2.
#include <QApplication>
#include <QMessageBox>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <filesystem>
#include <memory>

#include "experiments/sweep_spec.h"
#include "gui/lr_sensitivity_view.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"
#include "tests/gui/message_boxes.h"
#include "tests/support/stored_lr_sweep.h"

namespace test_lr_extend_grid {

class LrExtendGridTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString sweep_file_;
  std::unique_ptr<fathom::gui::StoreSession> session_;
  std::unique_ptr<fathom::gui::LrSensitivityView> view_;

  std::filesystem::path beside(const char* name) const {
    return std::filesystem::path(dir_.path().toStdString()) / name;
  }

 private slots:
  void init() {
    const std::filesystem::path dir = dir_.path().toStdString();
    sweep_file_ = QString::fromStdString(fathom::testing::write_lr_sweep_file(dir));
    const std::string db = (dir / "runs.db").string();
    std::filesystem::remove(db);
    std::filesystem::remove(beside("s-edge.yaml"));
    fathom::testing::store_lr_sweep_runs(db, sweep_file_.toStdString());
    QString error;
    session_ = fathom::gui::StoreSession::open(QString::fromStdString(db), &error);
    QVERIFY2(session_, qPrintable(error));
    view_ = std::make_unique<fathom::gui::LrSensitivityView>();
    view_->setStore(session_.get(), QString::fromStdString(db));
    view_->showRuns(session_->store.list_runs(), {});
  }
  void cleanup() {
    view_.reset();
    session_.reset();
  }

  void enabledWhileACurveIsAtAnEnd() {
    QVERIFY(view_->choose("s", "valid_loss"));
    QVERIFY(view_->extendButton()->isEnabled());  // Post-LN's best is the top rate
    QVERIFY(view_->choose("s", "valid_loss", "norm=pre"));
    QVERIFY(!view_->extendButton()->isEnabled());  // Pre-LN's alone is inside
  }

  void writesTheFileWhenAskedAndNothingWhenCancelled() {
    QVERIFY(view_->choose("s", "valid_loss"));
    int seen = 0;
    fathom::testing::answer_boxes(QMessageBox::Cancel, 1, &seen);
    QVERIFY(view_->extendGridFrom(sweep_file_).isEmpty());
    QCOMPARE(seen, 1);
    QVERIFY(!std::filesystem::exists(beside("s-edge.yaml")));
    seen = 0;
    fathom::testing::answer_boxes(QMessageBox::Yes, 2, &seen);
    const QString written = view_->extendGridFrom(sweep_file_);
    QCOMPARE(seen, 2);  // the question, then where it was written
    QCOMPARE(written.toStdString(), beside("s-edge.yaml").string());
    const auto runs = fathom::experiments::expand_sweep(
        fathom::experiments::load_sweep_file(written.toStdString()));
    QCOMPARE(runs.size(), size_t{2});  // Post-LN at 8e-3, seeds 1 and 2
    for (const auto& run : runs) QCOMPARE(run.config.train.lr, 8e-3);
  }
};

FATHOM_GUI_TEST(LrExtendGridTest);

}  // namespace test_lr_extend_grid

#include "test_lr_extend_grid.moc"
