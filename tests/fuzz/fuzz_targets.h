// The fuzz targets' bodies, one per untrusted input. Each is built into a
// libFuzzer binary (`cmake -DETKIT_FUZZ=ON`, scripts/fuzz.sh) and into the
// normal test binary, which replays the saved reproducers under
// tests/fuzz/regressions/<target>/ (test_fuzz_regressions.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace etkit::fuzz {

// An XNNPACK delegate payload, or a .pte whose XNNPACK delegates are taken
// in turn: read, compile and run once on small generated inputs.
int xnnpack_payload(const uint8_t* data, size_t size);

}  // namespace etkit::fuzz
