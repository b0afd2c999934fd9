#pragma once
// A figure's title kept inside the figure: a run's name as a default title can be 120
// characters, wider than a column figure; one text element that wide squeezed the colour
// scale beside the cells to nothing and was clipped at both ends.
#include <QFontMetrics>
#include <QString>

namespace fathom::plot {

// `text` in lines no wider than `max_px`, broken after a ',', ' ', '/' or ';' (a run name's
// axes stay whole); at most `max_lines`, the last elided in the middle where more would be
// needed, as is a single piece wider than a line.
QString wrap_to_width(const QString& text, const QFontMetrics& metrics, int max_px,
                      int max_lines = 3);

}  // namespace fathom::plot
