#pragma once
// Number checks for command-line options that say what is wrong in a few words: "must be
// positive (got -1)". CLI11's PositiveNumber and NonNegativeNumber answer with the range they
// check, whose upper end is the largest double written out in 309 digits.
#include <CLI/CLI.hpp>

namespace fathom::cli {

// > 0.
CLI::Validator positive_number();
// >= 0.
CLI::Validator non_negative_number();

}  // namespace fathom::cli
