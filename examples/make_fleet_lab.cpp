// etkit-make-fleet-lab DIR: a small device-lab folder for trying et-fleet:
// DIR/<device>/build-<k>.etdp and DIR/manifest.tsv (path, device, build).
#include <sstream>

#include "examples/fleet_lab.h"
#include "tools/common/tool_main.h"

using namespace etkit;

int main(int argc, char** argv) {
  std::string dir;
  demo::LabOptions options;
  std::string devices;
  CLI::App app{"Writes a device-lab folder of profiled LeNet runs (ETDumps) and its manifest into DIR.",
               "etkit-make-fleet-lab"};
  app.add_option("DIR", dir, "output directory (created if missing)")->required();
  app.add_option("--devices", devices, "comma-separated device names (default: pi5,pixel8,rk3588)");
  app.add_option("--builds", options.builds, "builds per device")->capture_default_str();
  app.add_option("--executions", options.executions, "executions per ETDump")->capture_default_str();
  app.add_option("--slow-op", options.slow_op, "this op (e.g. convolution.out) is 30% slower in the last build");
  app.add_option("--seed", options.seed, "noise seed")->capture_default_str();
  return tools::run_tool(app, argc, argv, [&]() -> Result<int> {
    if (!devices.empty()) {
      options.devices.clear();
      std::stringstream in(devices);
      for (std::string d; std::getline(in, d, ',');) options.devices.push_back(d);
    }
    ETKIT_ASSIGN_OR_RETURN(size_t count, demo::write_fleet_lab(dir, options));
    std::printf("%zu ETDumps and manifest.tsv in %s\n", count, dir.c_str());
    return 0;
  });
}
