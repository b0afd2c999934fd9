// The curve list's labels in their room (gui/legend_label_fit.h): whole where they fit; else
// the settings that tell the entries apart first, those all share left out, then cut.
#include <QFont>
#include <QFontMetrics>
#include <QTest>

#include "gui/legend_label_fit.h"
#include "tests/gui/gui_test_registry.h"

namespace test_legend_label_fit {
using fathom::gui::LegendLabelFit;

class LegendLabelFitTest : public QObject {
  Q_OBJECT
 private slots:
  void aRunsVaryingSettingsComeFirstAndSharedOnesGo() {
    const QStringList labels = {"#218 lr=0.025,decoder_layers=24,norm=pre,init=xavier,seed=1",
                                "#219 lr=0.025,decoder_layers=24,norm=lns,init=xavier,seed=2",
                                "#220 lr=0.08,decoder_layers=24,norm=post,init=xavier,seed=3"};
    const LegendLabelFit fit(labels);
    const QFontMetrics metrics(QFont(QStringLiteral("DejaVu Sans"), 9));
    // Wide enough: unchanged.
    QCOMPARE(fit.fit(labels[0], metrics, 10000), labels[0]);
    // Narrow: norm and seed (this run's alone) before lr (two runs'); decoder_layers and init
    // (every run's) gone.
    const QString telling = QStringLiteral("#218 norm=pre,seed=1,lr=0.025");
    const int width = metrics.horizontalAdvance(telling) + 2;  // elidedText rounds up
    QCOMPARE(fit.fit(labels[0], metrics, width), telling);
    // Narrower still: cut at the right, the telling parts in front (lr=0.08 and norm=post are
    // #220's alone: in the label's order).
    const QString cut = fit.fit(labels[2], metrics, width / 2);
    QVERIFY2(cut.startsWith(QStringLiteral("#220 lr=0.08,")), qPrintable(cut));
    QVERIFY(metrics.horizontalAdvance(cut) <= width / 2);
  }

  void aGroupsLabelKeepsItsSeparatorAndAListOfOneKeepsEverything() {
    const QStringList groups = {
        "decoder_layers=24, init=xavier, norm=pre, sweep=lm-depth-2025 (n=3)",
        "decoder_layers=24, init=xavier, norm=post, sweep=lm-depth-2025 (n=3, 1 diverged)",
        "decoder_layers=2, init=?, norm=post, sweep=main (n=1)"};
    const LegendLabelFit fit(groups);
    const QFontMetrics metrics(QFont(QStringLiteral("DejaVu Sans"), 9));
    const int width = metrics.horizontalAdvance(QStringLiteral("decoder_layers=24, init=xavier"));
    // norm=post is this group's and the third's, the rest two groups' each: norm first.
    const QString shown = fit.fit(groups[0], metrics, width);
    QVERIFY2(shown.startsWith(QStringLiteral("norm=pre, ")), qPrintable(shown));
    // The count stays at the end, whole where there is room.
    QCOMPARE(fit.fit(groups[1], metrics, 10 * width).count(QStringLiteral("(n=3, 1 diverged)")), 1);
    // Its parts each shared by two groups: kept in order, the count after them, cut.
    const QString wide = fit.fit(groups[1], metrics, metrics.horizontalAdvance(groups[1]) - 1);
    QVERIFY2(wide.startsWith(QStringLiteral(
                 "decoder_layers=24, init=xavier, norm=post, sweep=lm-depth-2025 (n=3")),
             qPrintable(wide));
    const LegendLabelFit one({groups[0]});
    QVERIFY(one.fit(groups[0], metrics, width).startsWith(QStringLiteral("decoder_layers=24")));
  }
};

FATHOM_GUI_TEST(LegendLabelFitTest);

}  // namespace test_legend_label_fit

#include "test_legend_label_fit.moc"
