// etkit-make-demo DIR: writes the project's demo artifacts with its own
// writers: lenet.pte and lenet.bpte, mlp.pte and mlp.bpte (2 test cases each,
// expected outputs from plain-loop reference code), lenet.etrecord (the edge
// program of examples/lenet.py, linked to lenet.pte's instructions), and
// demo.etdp with demo_debug.bin (3 executions of the LeNet kernels, program
// outputs logged).
#include <filesystem>

#include "examples/demo_etrecord.h"
#include "examples/demo_models.h"
#include "examples/demo_xnnpack.h"
#include "libcore/formats/program/program_writer.h"
#include "libcore/support/file.h"
#include "tools/common/tool_main.h"

using namespace etkit;

int main(int argc, char** argv) {
  std::string dir;
  CLI::App app{"Writes the etkit demo model, bundled program and ETDump into DIR.", "etkit-make-demo"};
  app.add_option("DIR", dir, "output directory (created if missing)")->required();
  return tools::run_tool(app, argc, argv, [&]() -> Result<int> {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return io_error(dir, "cannot create directory: " + ec.message());
    const std::filesystem::path out(dir);

    const pte::Program lenet_program = demo::lenet();
    ETKIT_ASSIGN_OR_RETURN(auto lenet, pte::write_program(lenet_program));
    ETKIT_TRY(write_file((out / "lenet.pte").string(), lenet));
    ETKIT_ASSIGN_OR_RETURN(auto etrecord, demo::lenet_etrecord(lenet_program));
    ETKIT_TRY(write_file((out / "lenet.etrecord").string(), etrecord));
    ETKIT_TRY(write_file((out / "lenet.bpte").string(), demo::bundled_lenet(lenet, 2)));
    ETKIT_ASSIGN_OR_RETURN(demo::XnnpackLenet xnnpack, demo::lenet_xnnpack());
    ETKIT_TRY(write_file((out / "lenet_xnnpack.pte").string(), xnnpack.program));
    ETKIT_TRY(write_file((out / "lenet_xnnpack.bpte").string(), demo::bundled_lenet(xnnpack.program, 2)));
    ETKIT_TRY(write_file((out / "lenet_xnnpack.etrecord").string(), xnnpack.etrecord));
    ETKIT_ASSIGN_OR_RETURN(auto mlp, pte::write_program(demo::mlp()));
    ETKIT_TRY(write_file((out / "mlp.pte").string(), mlp));
    ETKIT_TRY(write_file((out / "mlp.bpte").string(), demo::bundled_mlp(mlp, 2)));

    std::vector<uint8_t> debug_buffer;
    demo::SyntheticRun run;
    run.executions = 3;
    run.log_program_output = true;
    ETKIT_TRY(write_file((out / "demo.etdp").string(), demo::synthetic_etdump(run, &debug_buffer)));
    ETKIT_TRY(write_file((out / "demo_debug.bin").string(), debug_buffer));
    return tools::kExitOk;
  });
}
