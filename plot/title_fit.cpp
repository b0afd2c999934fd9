#include "plot/title_fit.h"

#include <QStringList>

namespace fathom::plot {
namespace {

// The pieces a line may break between, each keeping its break character.
QStringList pieces_of(const QString& text) {
  QStringList pieces;
  QString piece;
  for (const QChar c : text) {
    piece += c;
    if (c == ',' || c == ' ' || c == '/' || c == ';') {
      pieces << piece;
      piece.clear();
    }
  }
  if (!piece.isEmpty()) pieces << piece;
  return pieces;
}

}  // namespace

QString wrap_to_width(const QString& text, const QFontMetrics& metrics, int max_px, int max_lines) {
  if (metrics.horizontalAdvance(text) <= max_px) return text;
  QStringList lines;
  QString line;
  for (const QString& piece : pieces_of(text)) {
    if (!line.isEmpty() && metrics.horizontalAdvance(line + piece) > max_px) {
      lines << line;
      line.clear();
    }
    line += piece;
  }
  if (!line.isEmpty()) lines << line;
  // What does not fit in max_lines goes into the last, elided in the middle.
  while (lines.size() > max_lines) {
    const QString last = lines.takeLast();
    lines.last() += last;
  }
  for (QString& l : lines) l = metrics.elidedText(l.trimmed(), Qt::ElideMiddle, max_px);
  return lines.join('\n');
}

}  // namespace fathom::plot
