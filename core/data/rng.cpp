#include "core/data/rng.h"

#include <numeric>
#include <utility>

namespace fathom {

std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  // Mixing twice keeps (seed, stream) and (seed + 1, stream - 1) far apart.
  return mix64(mix64(seed) ^ (stream * 0xd6e8feb86659fd93ULL + 0x632be59bd9b4e019ULL));
}

std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n) {
  // Reject the lowest (2^64 mod n) values so every residue is equally likely.
  const std::uint64_t threshold = (0 - n) % n;
  for (;;) {
    const std::uint64_t x = rng();
    if (x >= threshold) return x % n;
  }
}

std::vector<std::size_t> random_permutation(std::size_t n, std::mt19937_64& rng) {
  std::vector<std::size_t> perm(n);
  std::iota(perm.begin(), perm.end(), std::size_t{0});
  for (std::size_t i = n; i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(uniform_below(rng, i));
    std::swap(perm[i - 1], perm[j]);
  }
  return perm;
}

}  // namespace fathom
