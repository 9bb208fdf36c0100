// Whether the CPU runs AVX2 with fused multiply-add: the default build
// targets baseline x86-64, so the float kernels that have AVX2 versions
// (GEMM, depthwise convolution) pick them at run time with this.
#pragma once

namespace etkit::rt::kernels::linalg {

inline bool cpu_has_avx2_fma() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
#else
  return false;
#endif
}

}  // namespace etkit::rt::kernels::linalg
