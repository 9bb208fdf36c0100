// The AVX2+FMA and AVX-512VL probes ask CPUID themselves (cpu.h); they
// must agree with GCC's own probe, which the kernels used before and which
// the test binary may link freely.
#include <catch2/catch.hpp>

#include "runner/kernels/linalg/cpu.h"

#if defined(__x86_64__) && defined(__GNUC__)
TEST_CASE("the CPUID probe agrees with __builtin_cpu_supports on avx2 and fma", "[kernels][cpu]") {
  __builtin_cpu_init();
  const bool gcc = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  CHECK(etkit::rt::kernels::linalg::cpuid_avx2_fma() == gcc);
}

TEST_CASE("the CPUID probe agrees with __builtin_cpu_supports on avx512f and avx512vl", "[kernels][cpu]") {
  __builtin_cpu_init();
  const bool gcc = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
  CHECK(etkit::rt::kernels::linalg::cpuid_avx512vl() == gcc);
}
#endif
