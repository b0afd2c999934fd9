#pragma once
// Where the sweep editor marks a check's error (sweep_check.h): on the value that is wrong
// ("sideways" in `model.norm: [post, sideways]`), or on the key when the key itself is the
// error (an unknown key), never the whole line when a part of it can be named.
#include <QString>

#include "gui/sweep_check.h"

namespace fathom::gui {

// Whether the check blames the key rather than its value: a key neither the config schema
// nor the sweep file (experiments::sweep_keys: name, base, seeds, ...) knows.
bool sweep_error_is_in_key(const SweepCheck& check);

// The characters of `line` (one line of the sweep YAML, the error's) to mark: [start, start +
// length). The key's text when the key is the error; else the value after "key:" (or after a
// list item's "- "), narrowed to a quoted word of the message ('sideways') where the value
// holds it. {0, 0} when the line is empty.
struct TextSpan {
  int start = 0, length = 0;
};
TextSpan sweep_error_span(const QString& line, const SweepCheck& check);

}  // namespace fathom::gui
