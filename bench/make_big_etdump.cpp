// etkit-bench-make-etdump OUT.etdp [--events N] [--debug-buffer OUT.bin]:
// a large synthetic ETDump for benchmarks (bench/synthetic_etdump.cpp: et-run's
// output for a MobileNetV2-like program, partly delegated), written with the
// project's EtDumpWriter. The default, 1.5 million events, gives about 110 MB.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "libcore/support/file.h"

#include "bench/synthetic_etdump.h"

namespace {

constexpr const char* kTool = "etkit-bench-make-etdump";

int fail(const etkit::Error& error) {
  std::fprintf(stderr, "%s: error: %s\n", kTool, error.describe().c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out;
  std::string debug_out;
  uint64_t target_events = 1'500'000;
  CLI::App app{"Writes a synthetic ETDump of about N profiling events (default 1.5 million, about 110 MB),\n"
               "shaped like et-run's output for a MobileNetV2-like program; with --debug-buffer, every\n"
               "tenth execution also logs its FLOAT[1,1000] output, whose bytes go to that file.",
               kTool};
  app.add_option("OUT", out, "output .etdp")->required();
  app.add_option("--events", target_events, "number of events (the last execution is cut short to fit)")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{5}, uint64_t{20'000'000}));
  app.add_option("--debug-buffer", debug_out, "also log program outputs, their bytes to this file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  std::vector<uint8_t> debug_buffer;
  uint64_t events = 0;
  const std::vector<uint8_t> etdump =
      etkit::bench::mobilenet_like_etdump(target_events, debug_out.empty() ? nullptr : &debug_buffer, &events);
  if (auto s = etkit::write_file(out, etdump); !s) return fail(s.error());
  if (!debug_out.empty()) {
    if (auto s = etkit::write_file(debug_out, debug_buffer); !s) return fail(s.error());
  }
  std::printf("%s: %llu events, %zu bytes\n", out.c_str(), static_cast<unsigned long long>(events), etdump.size());
  if (!debug_out.empty()) std::printf("%s: %zu bytes\n", debug_out.c_str(), debug_buffer.size());
  return 0;
}
