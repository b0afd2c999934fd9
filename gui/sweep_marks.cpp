#include "gui/sweep_marks.h"

#include <algorithm>

#include <QRegularExpression>

#include "base/config/config_schema.h"
#include "experiments/sweep_spec.h"

namespace fathom::gui {
namespace {

// The words the message quotes ('sideways', 'model.inits'), in order.
QStringList quoted_words(const QString& message) {
  QStringList words;
  static const QRegularExpression quoted(QStringLiteral("'([^'\\n]+)'"));
  for (auto it = quoted.globalMatch(message); it.hasNext();) words << it.next().captured(1);
  return words;
}

// Where the value starts in `line`: after "key:" (and its spaces), or after a list item's "- ".
int value_start(const QString& line) {
  int i = 0;
  while (i < line.size() && line[i].isSpace()) ++i;
  if (line.mid(i).startsWith(QLatin1String("- "))) {  // a block list item: the whole item
    i += 2;
  } else {
    const int colon = line.indexOf(QLatin1String(": "), i);
    if (colon >= 0)
      i = colon + 2;
    else if (line.endsWith(QLatin1Char(':')))
      return static_cast<int>(line.size());  // "key:" with its value on the lines below
  }
  while (i < line.size() && line[i].isSpace()) ++i;
  return i;
}

}  // namespace

bool sweep_error_is_in_key(const SweepCheck& check) {
  if (check.ok || check.field.empty() || find_field(check.field)) return false;
  // Neither a config key nor one of the sweep file's own (name, base, seeds, ...): the key
  // is what is wrong ('lr' for train.lr, 'grd' for grid).
  const std::vector<std::string> own = experiments::sweep_keys();
  return std::find(own.begin(), own.end(), check.field) == own.end();
}

TextSpan sweep_error_span(const QString& line, const SweepCheck& check) {
  const QString text = line.trimmed().isEmpty() ? QString() : line;
  if (text.isEmpty()) return {};
  int start = 0;
  while (start < text.size() && text[start].isSpace()) ++start;
  const QString key = QString::fromStdString(check.field);
  if (sweep_error_is_in_key(check)) {
    const int at = key.isEmpty() ? -1 : static_cast<int>(text.indexOf(key, start));
    if (at >= 0) return {at, static_cast<int>(key.size())};
    const int colon = text.indexOf(QLatin1Char(':'), start);
    return {start, (colon > start ? colon : static_cast<int>(text.size())) - start};
  }
  int from = value_start(text);
  if (from >= text.size()) from = start;  // nothing after the key: the line's text
  int end = static_cast<int>(text.size());
  const int comment = text.indexOf(QLatin1String(" #"), from);
  if (comment >= 0) end = comment;
  while (end > from && text[end - 1].isSpace()) --end;
  // A quoted word of the message inside the value ('sideways' of "[post, sideways]").
  const QString value = text.mid(from, end - from);
  for (const QString& word : quoted_words(QString::fromStdString(check.message))) {
    if (word == key) continue;
    static const QRegularExpression bounds(QStringLiteral("[\\s\\[\\],{}:]"));
    for (int at = static_cast<int>(value.indexOf(word)); at >= 0;
         at = static_cast<int>(value.indexOf(word, at + 1))) {
      const bool left = at == 0 || bounds.match(value.mid(at - 1, 1)).hasMatch();
      const int after = at + static_cast<int>(word.size());
      const bool right = after >= value.size() || bounds.match(value.mid(after, 1)).hasMatch();
      if (left && right) return {from + at, static_cast<int>(word.size())};
    }
  }
  return {from, end - from};
}

}  // namespace fathom::gui
