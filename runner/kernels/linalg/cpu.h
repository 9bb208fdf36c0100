// Whether the CPU runs AVX2 with fused multiply-add: the default build
// targets baseline x86-64, so the float kernels that have AVX2 versions
// (GEMM, depthwise convolution, strided copies) pick them at run time with
// this. ETKIT_NO_AVX2=1 in the environment forces the baseline versions, so
// the tests can run those on any machine (read once, at the first call).
// Likewise AVX-512VL (the 3x3 stride-2 depthwise loop's copy that uses 32
// vector registers), off with ETKIT_NO_AVX512=1 or ETKIT_NO_AVX2=1.
//
// Asked of CPUID here, at the first call, rather than through
// __builtin_cpu_supports: that links libgcc's CPU probe, a static
// constructor that runs CPUID in every process (a VM exit on a hypervisor)
// whether or not a kernel ever asks (docs/performance.md, "et-run start-up").
#pragma once

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

namespace etkit::rt::kernels::linalg {

#if defined(__x86_64__) && defined(__GNUC__)
// The register state the OS enables (XCR0's low word), 0 without OSXSAVE
// (CPUID leaf 1): XGETBV is not available then.
inline unsigned os_enabled_state() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !((c >> 27) & 1u)) return 0;
  unsigned xcr0_lo = 0, xcr0_hi = 0;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  return xcr0_lo;
}

// AVX2 and FMA in the CPU (CPUID leaves 1 and 7) and the AVX register state
// enabled by the OS (XCR0's SSE and AVX bits): what
// __builtin_cpu_supports("avx2") and ("fma") check.
inline bool cpuid_avx2_fma() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const bool fma = (c >> 12) & 1u, avx = (c >> 28) & 1u;
  if (!fma || !avx || (os_enabled_state() & 0x6u) != 0x6u) return false;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  return (b >> 5) & 1u;
}

// AVX-512F and VL in the CPU (CPUID leaf 7) and the opmask and upper
// sixteen vector registers' state enabled by the OS (XCR0 bits 5-7 with
// the SSE and AVX bits): what __builtin_cpu_supports("avx512f") and
// ("avx512vl") check.
inline bool cpuid_avx512vl() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if ((os_enabled_state() & 0xE6u) != 0xE6u) return false;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  return ((b >> 16) & 1u) && ((b >> 31) & 1u);
}

// Whether the environment variable turns a path off: set, not empty, not "0".
inline bool switched_off(const char* variable) {
  const char* value = std::getenv(variable);
  return value && *value && std::strcmp(value, "0") != 0;
}
#endif

inline bool cpu_has_avx2_fma() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool has = !switched_off("ETKIT_NO_AVX2") && cpuid_avx2_fma();
  return has;
#else
  return false;
#endif
}

inline bool cpu_has_avx512vl() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool has = cpu_has_avx2_fma() && !switched_off("ETKIT_NO_AVX512") && cpuid_avx512vl();
  return has;
#else
  return false;
#endif
}

}  // namespace etkit::rt::kernels::linalg
