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

// The file readers (fuzz_readers.cpp), each through the entry point its tool uses.
int program(const uint8_t* data, size_t size);      // .pte
int etdump(const uint8_t* data, size_t size);       // .etdp, and event blocks with a debug buffer
int bundled(const uint8_t* data, size_t size);      // .bpte
int etrecord(const uint8_t* data, size_t size);     // ETRecord zip (JSON members, pickles)
int etrecord_json(const uint8_t* data, size_t size);  // an ETRecord member's JSON (ExportedProgram)
int etrecord_pickle(const uint8_t* data, size_t size);  // an ETRecord side-car's pickle (torch.save data.pkl)
int npy(const uint8_t* data, size_t size);          // .npy
int ptd(const uint8_t* data, size_t size);          // .ptd (FlatTensor)
int json_encode(const uint8_t* data, size_t size);  // et-dump-decode --encode

// The runtime (fuzz_runner.cpp): a program loaded and executed as et-run does.
int runner(const uint8_t* data, size_t size);         // raw .pte bytes
int runner_mutate(const uint8_t* data, size_t size);  // field edits to valid programs built in memory

}  // namespace etkit::fuzz
