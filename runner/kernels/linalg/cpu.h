// Whether the CPU runs AVX2 with fused multiply-add: the default build
// targets baseline x86-64, so the float kernels that have AVX2 versions
// (GEMM, depthwise convolution, strided copies) pick them at run time with
// this. ETKIT_NO_AVX2=1 in the environment forces the baseline versions, so
// the tests can run those on any machine (read once, at the first call).
#pragma once

#include <cstdlib>
#include <cstring>

namespace etkit::rt::kernels::linalg {

inline bool cpu_has_avx2_fma() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool has = [] {
    const char* off = std::getenv("ETKIT_NO_AVX2");
    if (off && *off && std::strcmp(off, "0") != 0) return false;
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return has;
#else
  return false;
#endif
}

}  // namespace etkit::rt::kernels::linalg
