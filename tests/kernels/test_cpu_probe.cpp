// The AVX2+FMA probe asks CPUID itself (cpu.h); it must agree with GCC's
// own probe, which the kernels used before and which the test binary may
// link freely.
#include <catch2/catch.hpp>

#include "runner/kernels/linalg/cpu.h"

#if defined(__x86_64__) && defined(__GNUC__)
TEST_CASE("the CPUID probe agrees with __builtin_cpu_supports on avx2 and fma", "[kernels][cpu]") {
  __builtin_cpu_init();
  const bool gcc = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  CHECK(etkit::rt::kernels::linalg::cpuid_avx2_fma() == gcc);
}
#endif
