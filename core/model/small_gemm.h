#pragma once
// Products of the small padded matrices of one attention head (core/model/cpu_attention.cpp),
// written so that the compiler keeps a 4 x 16 tile of the result in vector registers: the
// usual outer-product micro-kernel, no reduction to reassociate, no tail to handle (the caller
// pads rows to a multiple of kTileRows and columns to a multiple of kTileCols with zeros).
// Header-only and always inlined, so each instruction-set clone of the caller gets its own
// vector code.
#include <cstdint>
#include <cstring>

namespace fathom::small_gemm {

constexpr int64_t kTileRows = 4, kTileCols = 16;  // multiply below writes 4 rows by hand

constexpr int64_t padded(int64_t n, int64_t to) { return (n + to - 1) / to * to; }

// A matrix read element by element: A(r, k) = data[r * row_stride + k * col_stride], so a
// transposed operand is the same matrix with its strides swapped.
template <typename T>
struct Scalars {
  const T* data;
  int64_t row_stride, col_stride;
};

// kTileCols values of T as one vector (GCC and Clang's vector extension): the compiler maps it
// onto as many registers as the instruction set needs (one AVX-512 register of floats, four
// SSE ones) and keeps a tile of them in registers.
template <typename T>
struct LaneOf;
template <>
struct LaneOf<float> {
  typedef float type __attribute__((vector_size(kTileCols * sizeof(float))));
};
template <>
struct LaneOf<double> {
  typedef double type __attribute__((vector_size(kTileCols * sizeof(double))));
};
template <typename T>
using Lane = typename LaneOf<T>::type;

// C[M x N] = A[M x K] B[K x N], B and C row-major with row strides ldb and ldc; M a multiple of
// kTileRows, N of kTileCols (padding included); the sum over k runs in order, the same bits
// for a given instruction set.
template <typename T>
inline __attribute__((always_inline)) void multiply(int64_t M, int64_t N, int64_t K,
                                                    const Scalars<T>& A, const T* B, int64_t ldb,
                                                    T* C, int64_t ldc) {
  for (int64_t m0 = 0; m0 < M; m0 += kTileRows)
    for (int64_t n0 = 0; n0 < N; n0 += kTileCols) {
      Lane<T> acc0{}, acc1{}, acc2{}, acc3{};
      const T* a = A.data + m0 * A.row_stride;
      const int64_t ar = A.row_stride, ak = A.col_stride;
      for (int64_t k = 0; k < K; ++k) {
        Lane<T> b;
        std::memcpy(&b, B + k * ldb + n0, sizeof b);  // unaligned
        const T* ak_col = a + k * ak;
        acc0 += ak_col[0] * b;
        acc1 += ak_col[ar] * b;
        acc2 += ak_col[2 * ar] * b;
        acc3 += ak_col[3 * ar] * b;
      }
      std::memcpy(C + (m0 + 0) * ldc + n0, &acc0, sizeof acc0);
      std::memcpy(C + (m0 + 1) * ldc + n0, &acc1, sizeof acc1);
      std::memcpy(C + (m0 + 2) * ldc + n0, &acc2, sizeof acc2);
      std::memcpy(C + (m0 + 3) * ldc + n0, &acc3, sizeof acc3);
    }
}

}  // namespace fathom::small_gemm
