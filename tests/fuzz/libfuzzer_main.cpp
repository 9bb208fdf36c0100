// libFuzzer's entry point for the target named by ETKIT_FUZZ_TARGET.
#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return etkit::fuzz::ETKIT_FUZZ_TARGET(data, size);
}
