// The project's own demo models, built with the program writer: a LeNet-style
// CNN (the 14 kernels of ExecuTorch's devtools tutorial) and a two-layer MLP,
// with deterministic weights; plus a bundled MLP and a synthetic ETDump that
// follows the runtime's event contract (runtime_events.md §2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libcore/formats/etdump/etdump.h"
#include "libcore/formats/program/program.h"

namespace etkit::demo {

// Deterministic pseudo-weights in [-scale, scale]: sin of a golden-ratio walk.
std::vector<float> weights(size_t count, uint32_t seed, float scale);

// x[1,1,32,32] -> logits[1,10]: conv(1->6,5) relu maxpool2 conv(6->16,5) relu
// maxpool2 view [1,400] then three addmm layers (400->120->84->10).
pte::Program lenet();

// LeNet's forward pass computed directly with plain loops (double
// accumulation), independent of the runtime's kernels: the reference for the
// bundled LeNet's expected outputs.
std::vector<float> lenet_reference(const std::vector<float>& input);
// LeNet bundled with `cases` test cases (inputs from weights(), expected
// outputs from lenet_reference).
std::vector<uint8_t> bundled_lenet(const std::vector<uint8_t>& program_bytes, int cases);

// x[1,8] -> addmm(8->16) relu addmm(16->4) -> y[1,4].
inline constexpr int kMlpIn = 8, kMlpHidden = 16, kMlpOut = 4;
pte::Program mlp();
// The MLP's forward pass computed directly (double accumulation), as the
// reference for bundled expected outputs.
std::vector<float> mlp_reference(const std::vector<float>& input);

// The MLP bundled with `cases` test cases (inputs from weights(), expected
// outputs from mlp_reference). `program_bytes` must outlive the result's use.
std::vector<uint8_t> bundled_mlp(const std::vector<uint8_t>& program_bytes, int cases);

struct SyntheticRun {
  int executions = 1;
  int kernels_per_execution = 14;
  bool log_program_output = false;  // a debug event with a FLOAT[1,10] output
  uint64_t seed = 1;
};
// An ETDump as `et-run` would write it for a LeNet-like program: "Default"
// with Method::init and Program::load_method, then per execution an
// "Execute" block with native_call_<op> + OPERATOR_CALL per instruction and
// Method::execute. Timestamps are deterministic nanoseconds. When
// `debug_buffer` is non-null, program outputs go there.
std::vector<uint8_t> synthetic_etdump(const SyntheticRun& run, std::vector<uint8_t>* debug_buffer);

// The op names of LeNet's 14 kernels in order (no namespace, with overload).
const std::vector<std::string>& lenet_kernel_names();

}  // namespace etkit::demo
