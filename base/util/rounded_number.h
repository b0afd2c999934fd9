#pragma once
// A float as JSON writes it well: nlohmann::json stores numbers as doubles and prints the
// shortest text that reads back as that double, so a float32 0.1f leaves as
// 0.10000000149011612 -- seventeen digits of which the last ten are the float's rounding. The
// double nearest the value's 6 significant decimal digits prints as at most those 6 (float32
// holds about 7): `fathom attention --json`'s maps shrink to less than half and every value is
// within 5e-7 of itself, relative.
namespace fathom {

// The double nearest `value` written with `digits` significant decimal digits (1..17).
double rounded_to_significant(double value, int digits = 6);

}  // namespace fathom
