#pragma once
// How the runs table writes a number: whole numbers in full with thousands separators
// (params 235,780, not 2.3578e+05), others to four significant digits without an exponent
// between 0.001 and a million (2.019, 0.8502, 13.49, 7.5; 12346 from 1000 on), with one
// outside (1.5e-05, 2.4e+07).
#include <QString>

namespace fathom::gui {

QString number_text(double value);

}  // namespace fathom::gui
