// etkit-bench-make-etdump OUT.etdp [--events N]: a large synthetic ETDump
// for benchmarks, written with the project's streaming writer. It looks like
// et-run's output for a MobileNet-like program: a "Default" block, then
// "Execute" blocks of 100 instructions (native_call_<op> + OPERATOR_CALL
// each, every tenth a DELEGATE_CALL with 3 delegate events), Method::execute,
// nanosecond timestamps from a fixed-seed generator.
#include <random>

#include "libcore/formats/etdump/etdump_writer.h"
#include "libcore/support/file.h"
#include "tools/common/tool_main.h"

using namespace etkit;

int main(int argc, char** argv) {
  std::string out;
  uint64_t target_events = 1'500'000;
  CLI::App app{"Writes a synthetic ETDump with about N events (default 1.5 million, ~108 MB).",
               "etkit-bench-make-etdump"};
  app.add_option("OUT", out, "output .etdp")->required();
  app.add_option("--events", target_events, "approximate number of events")->capture_default_str();
  return tools::run_tool(app, argc, argv, [&]() -> Result<int> {
    static const char* kOps[] = {"native_call_convolution.out", "native_call_relu.out",
                                 "native_call__native_batch_norm_legit_no_training.out", "native_call_add.out",
                                 "native_call_hardtanh.out", "native_call_mean.out", "native_call_addmm.out",
                                 "native_call_permute_copy.out", "native_call__clone_dim_order.out"};
    static const char* kDelegate[] = {"Convolution (NHWC, F32) IGEMM #1", "Convolution (NHWC, F32) DWConv #2",
                                      "Fully Connected (NC, F32) GEMM #3"};
    std::mt19937 rng(42);
    std::uniform_int_distribution<uint64_t> duration(200, 40'000);
    etdump::EtDumpWriter writer;
    writer.begin_block("Default");
    writer.add_profile_event("Method::init", -1, 0, 1000, 5000);
    writer.add_profile_event("Program::load_method", -1, 0, 900, 5200);
    uint64_t clock = 10'000, events = 2;
    while (events < target_events) {
      writer.begin_block("Execute");
      const uint64_t exec_start = clock;
      for (int32_t i = 0; i < 100; ++i) {
        const uint64_t start = clock;
        if (i % 10 == 9) {
          for (const char* id : kDelegate) {
            etdump::ProfileEvent e;
            e.chain_index = 0;
            e.instruction_id = i;
            e.delegate_debug_id_str = id;
            e.delegate_debug_metadata = std::vector<uint8_t>{};
            e.start_time = clock + 10;
            e.end_time = clock + 10 + duration(rng);
            clock = e.end_time;
            writer.add_profile_event(e);
          }
          writer.add_profile_event("DELEGATE_CALL", 0, i, start, clock + 20);
          events += 4;
        } else {
          const uint64_t end = clock + 30 + duration(rng);
          writer.add_profile_event(kOps[size_t(i) % std::size(kOps)], 0, i, clock + 30, end);
          writer.add_profile_event("OPERATOR_CALL", 0, i, start, end + 15);
          clock = end + 15;
          events += 2;
        }
        clock += 20;
      }
      writer.add_profile_event("Method::execute", -1, 0, exec_start, clock);
      ++events;
      clock += 1000;
    }
    ETKIT_TRY(write_file(out, writer.finish()));
    std::fprintf(stderr, "wrote %s: %llu events\n", out.c_str(), static_cast<unsigned long long>(events));
    return tools::kExitOk;
  });
}
