// scripts/check_op_coverage.sh on a tiny fake ExecuTorch checkout written
// here (the real one is not part of CI): which entries count (yaml entries;
// define()s with a mutable tensor argument, adjacent string literals
// joined, namespaces from Library() or the variable's name), the
// allow-list, the exit codes.
#include <catch2/catch.hpp>

#include <fstream>

#include "tests/support/test_support.h"

using namespace etkit;

namespace {

std::string script() { return test::shell_quote(std::filesystem::path(ETKIT_SCRIPTS_DIR) / "check_op_coverage.sh"); }
std::string et_run() { return test::shell_quote(std::filesystem::path(ETKIT_TOOLS_DIR) / "et-run"); }

void write(const std::filesystem::path& root, const std::string& relative, const std::string& text) {
  std::filesystem::create_directories((root / relative).parent_path());
  std::ofstream(root / relative) << text;
}

// Registered in et-run: add.out, _h2d_copy.out, quantized_decomposed::add.out,
// cortex_m::quantized_add.out, where.self_out, slice_scatter_, chunk.out,
// cortex_m::minimum.out, quantized_decomposed::embedding_byte.out.
// Not: no_such_op.out, made_up_op.out; allowed: idma_copy.out,
// quantized_conv.per_tensor_out, quantized_relu_per_tensor.out.
std::filesystem::path fake_checkout() {
  const auto root = test::scratch_dir() / "executorch";
  write(root, "kernels/portable/functions.yaml",
        "- op: add.out\n  kernels:\n    - arg_meta: null\n      kernel_name: torch::executor::add_out\n\n"
        "- op: no_such_op.out\n  kernels:\n    - arg_meta: null\n\n"
        "- func: et_copy::_h2d_copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n");
  write(root, "kernels/quantized/quantized.yaml",
        "- func: quantized_decomposed::add.out(Tensor a, *, Tensor(a!) out) -> Tensor(a!)\n");
  write(root, "backends/cortex_m/ops/operators.yaml",
        "- func: cortex_m::quantized_add.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n");
  write(root, "backends/cadence/aot/functions.yaml",
        "- op: where.self_out\n- func: cadence::quantized_relu_per_tensor.out(Tensor X, *, Tensor(a!) out) -> Tensor(a!)\n");
  write(root, "backends/cadence/aot/functions_vision.yaml",
        "- func: cadence::quantized_conv.per_tensor_out(Tensor input, *, Tensor(a!) out) -> Tensor(a!)\n");
  write(root, "backends/cadence/aot/ops_registrations.py",
        "lib = Library(\"cadence\", \"DEF\")\n"
        "lib.define(\n    \"made_up_op(Tensor x) -> Tensor\"\n)\n"  // functional: never in a program
        "lib.define(\n    \"made_up_op.out(Tensor x, \"\n    \"*, Tensor(a!) out) -> Tensor(a!)\"\n)\n"
        "lib.define(\"idma_copy.out(Tensor src, *, Tensor(a!) out) -> Tensor(a!)\")\n"
        "lib.define(\"slice_scatter_(Tensor(a!) self, Tensor src) -> Tensor(a!)\")\n"
        "aten_lib = Library(\"aten\", \"FRAGMENT\")\n"
        "aten_lib.define(\n    \"chunk.out(Tensor self, int chunks, int dim=0, *, Tensor(a!)[] out) -> ()\"\n)\n"
        "aten_lib.define(\"_cat_nop(Tensor[] tensors, int dim=0) -> Tensor(a!)\")\n");  // aliasing result only
  write(root, "backends/cortex_m/ops/operators.py",
        "lib = Library(\"cortex_m\", \"DEF\")\n"
        "lib.define(\"minimum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)\")\n");
  write(root, "exir/passes/_quant_patterns_and_replacements.py",
        "from torch.ao.quantization.fx._decomposed import quantized_decomposed_lib\n"
        "quantized_decomposed_lib.define(\n    \"embedding_byte.out(Tensor weight, \"\n"
        "    \"*, Tensor(a!) out) -> Tensor(a!)\",\n)\n"
        "quantized_decomposed_lib.define(\"mixed_mm(Tensor input) -> Tensor\")\n");
  return root;
}

}  // namespace

TEST_CASE("check_op_coverage.sh: lists the ops et-run lacks, marks the allowed ones, exits 1", "[cli][op_coverage]") {
  const auto root = fake_checkout();
  const auto r = test::run_shell(script() + " " + test::shell_quote(root) + " " + et_run());
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out ==
        "aten::no_such_op.out\tkernels/portable/functions.yaml\n"
        "cadence::idma_copy.out\tbackends/cadence/aot/ops_registrations.py\t(allowed)\n"
        "cadence::made_up_op.out\tbackends/cadence/aot/ops_registrations.py\n"
        "cadence::quantized_conv.per_tensor_out\tbackends/cadence/aot/functions_vision.yaml\t(allowed)\n"
        "cadence::quantized_relu_per_tensor.out\tbackends/cadence/aot/functions.yaml\t(allowed)\n");
  CHECK(r.err == "check_op_coverage: 14 operators, 2 missing, 3 not provided on purpose\n");

  // Only allowed ones left: success, still listed.
  write(root, "kernels/portable/functions.yaml", "- op: add.out\n");
  write(root, "backends/cadence/aot/ops_registrations.py",
        "lib = Library(\"cadence\", \"DEF\")\nlib.define(\"idma_copy.out(Tensor src, *, Tensor(a!) out) -> Tensor(a!)\")\n");
  const auto ok = test::run_shell("ET_RUN=" + et_run() + " " + script() + " " + test::shell_quote(root));
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("cadence::idma_copy.out\tbackends/cadence/aot/ops_registrations.py\t(allowed)\n") != std::string::npos);
  CHECK(ok.err == "check_op_coverage: 9 operators, 0 missing, 3 not provided on purpose\n");
}

TEST_CASE("check_op_coverage.sh: usage and a checkout without the expected files exit 2", "[cli][op_coverage]") {
  CHECK(test::run_shell(script()).exit_code == 2);
  const auto empty = test::scratch_dir();
  const auto r = test::run_shell(script() + " " + test::shell_quote(empty) + " " + et_run());
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("kernels/portable/functions.yaml: no such file") != std::string::npos);
  const auto no_tool = test::run_shell(script() + " " + test::shell_quote(fake_checkout()) + " /nonexistent/et-run");
  CHECK(no_tool.exit_code == 2);
  CHECK(no_tool.err.find("et-run not found") != std::string::npos);
}
