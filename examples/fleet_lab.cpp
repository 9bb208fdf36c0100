#include "examples/fleet_lab.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "examples/demo_models.h"
#include "libcore/formats/etdump/etdump_writer.h"
#include "libcore/support/file.h"

namespace etkit::demo {

std::vector<uint8_t> profiled_etdump(const std::vector<std::vector<KernelTime>>& executions) {
  etdump::EtDumpWriter writer;
  writer.begin_block("Default");
  writer.add_profile_event("Method::init", -1, 0, 100, 20'000);
  writer.add_profile_event("Program::load_method", -1, 0, 0, 21'000);
  uint64_t clock = 100'000;
  for (const auto& kernels : executions) {
    writer.begin_block("Execute");
    const uint64_t start = clock;
    clock += 1'000;
    for (size_t i = 0; i < kernels.size(); ++i) {
      const auto ns = static_cast<uint64_t>(std::llround(kernels[i].us * 1000));
      const auto instruction = static_cast<int32_t>(i);
      writer.add_profile_event("native_call_" + kernels[i].op, 0, instruction, clock + 500, clock + 500 + ns);
      writer.add_profile_event("OPERATOR_CALL", 0, instruction, clock, clock + ns + 1'000);
      clock += ns + 1'000;
    }
    clock += 1'000;
    writer.add_profile_event("Method::execute", -1, 0, start, clock);
    clock += 10'000;
  }
  return writer.finish();
}

Result<size_t> write_fleet_lab(const std::string& dir, const LabOptions& options) {
  namespace fs = std::filesystem;
  uint64_t state = options.seed * 0x9e3779b97f4a7c15ULL + 1;
  auto noise = [&state]() {  // xorshift: deterministic, within +-2%
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return 0.98 + 0.04 * double(state % 1000) / 1000.0;
  };
  const auto& names = lenet_kernel_names();
  std::string manifest = "path\tdevice\tbuild\n";
  size_t written = 0;
  for (size_t d = 0; d < options.devices.size(); ++d) {
    const std::string& device = options.devices[d];
    std::error_code ec;
    fs::create_directories(fs::path(dir) / device, ec);
    if (ec) return io_error(dir, "cannot create the directory: " + ec.message());
    const double speed = 1.0 + 0.75 * double(d);  // the first device is the fastest
    for (size_t b = 1; b <= options.builds; ++b) {
      std::vector<std::vector<KernelTime>> executions(options.executions);
      for (auto& kernels : executions) {
        for (size_t i = 0; i < names.size(); ++i) {
          double us = (10.0 + 5.0 * double(i % 7)) * speed * noise();
          if (names[i] == options.slow_op && b == options.builds) us *= 1.3;
          kernels.push_back({names[i], us});
        }
      }
      char build[32];
      std::snprintf(build, sizeof build, "%03zu", b);  // zero-padded: sorts as it counts
      const std::string relative = device + "/build-" + build + ".etdp";
      ETKIT_TRY(write_file((fs::path(dir) / relative).string(), profiled_etdump(executions)));
      manifest += relative + "\t" + device + "\t" + build + "\n";
      ++written;
    }
  }
  ETKIT_TRY(write_text_file((fs::path(dir) / "manifest.tsv").string(), manifest));
  return written;
}

}  // namespace etkit::demo
