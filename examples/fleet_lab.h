// ETDumps with chosen kernel times, and a device-lab folder of them, for
// et-fleet's tests, benchmark and demo: every duration is the one asked for,
// so the tables et-fleet prints can be derived by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libcore/support/result.h"

namespace etkit::demo {

struct KernelTime {
  std::string op;     // e.g. "convolution.out": the event is native_call_<op>
  double us = 0;      // the kernel's duration; stored as whole nanoseconds
};

// An ETDump as et-run writes it: a "Default" block (Method::init,
// Program::load_method), then one "Execute" block per execution, instruction
// i of chain 0 running kernels[i] (native_call_<op> inside an OPERATOR_CALL
// 1 us longer), and Method::execute around them.
std::vector<uint8_t> profiled_etdump(const std::vector<std::vector<KernelTime>>& executions);

struct LabOptions {
  std::vector<std::string> devices = {"pi5", "pixel8", "rk3588"};
  size_t builds = 3;         // builds 1..N, one ETDump per (device, build)
  size_t executions = 5;     // per ETDump
  std::string slow_op;       // this op is 30% slower from the last build on ("" none)
  uint64_t seed = 1;
};

// Writes DIR/<device>/build-<k>.etdp for every device and build (the LeNet
// kernels at instruction ids matching examples' lenet.pte, device-specific
// speeds, a few percent of deterministic noise) and DIR/manifest.tsv with
// columns path, device, build. Returns the number of ETDumps.
Result<size_t> write_fleet_lab(const std::string& dir, const LabOptions& options);

}  // namespace etkit::demo
