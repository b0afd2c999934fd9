#pragma once
// Portable randomness for the data pipeline. std::mt19937_64's output sequence is fixed by the
// C++ standard, but std::uniform_int_distribution and std::shuffle are not, so data order and
// synthetic corpora would differ between libstdc++ and libc++. These helpers are the only
// places that turn raw engine output into ranges and permutations.
#include <cstdint>
#include <random>
#include <vector>

namespace fathom {

// SplitMix64 finalizer: a cheap bijective mixer that turns related seeds (1, 2, 3...) into
// unrelated engine seeds.
std::uint64_t mix64(std::uint64_t x);

// A seed for one purpose derived from a base seed and a stream id (split, epoch, ...).
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

// Uniform integer in [0, n) without modulo bias (rejection sampling). n must be > 0.
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n);

// Uniform permutation of 0..n-1 (Fisher-Yates driven by uniform_below).
std::vector<std::size_t> random_permutation(std::size_t n, std::mt19937_64& rng);

}  // namespace fathom
