// Real Cortex-M programs (../shared/fixtures) run with the cortex_m::
// kernels. The cmsisops programs come with the outputs their repository
// computed with eager PyTorch in float: an int8 program can only meet them
// to within its quantization step, so each check allows one step (LSB) of
// the quantizer that limits the precision, and says which one.
#include <cmath>
#include <cstring>

#include "runner/executor.h"
#include "runner/program_file.h"
#include "tests/support/test_support.h"

namespace {

using etkit::ScalarType;

std::vector<float> floats_of(const std::vector<uint8_t>& bytes) {
  std::vector<float> v(bytes.size() / sizeof(float));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

struct Run {
  std::vector<float> output;
  std::vector<int32_t> sizes;
};

// Loads `pte` (relative to the fixtures dir), feeds raw float32 inputs and
// returns output 0.
Run run_program(const std::string& pte, const std::vector<std::vector<uint8_t>>& inputs) {
  auto file = etkit::rt::open_program_file((etkit::test::fixtures_dir() / pte).string());
  REQUIRE(file.ok());
  auto method = etkit::rt::load_method(file->program, "forward");
  if (!method.ok()) FAIL(method.error().message);
  auto& m = **method;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const etkit::rt::Tensor& t = *m.input(i).tensor;
    REQUIRE(inputs[i].size() == t.nbytes());
    const std::vector<int32_t> sizes(t.sizes().begin(), t.sizes().end());
    REQUIRE(m.set_input_tensor(i, ScalarType::kFloat, sizes, inputs[i]).ok());
  }
  const auto s = etkit::rt::execute(m);
  if (!s.ok()) FAIL(s.error().message);
  const etkit::rt::Tensor& out = *m.output(0).tensor;
  REQUIRE(out.dtype() == ScalarType::kFloat);
  Run r;
  r.output.assign(out.data_as<float>(), out.data_as<float>() + out.numel());
  r.sizes.assign(out.sizes().begin(), out.sizes().end());
  return r;
}

Run run_cmsisops(const std::string& op, size_t num_inputs) {
  std::vector<std::vector<uint8_t>> inputs;
  const auto io = etkit::test::fixtures_dir() / "wild/io" / ("cortex_m__" + op);
  for (size_t i = 0; i < num_inputs; ++i) {
    inputs.push_back(etkit::test::read_bytes(io / ("input_" + std::to_string(i) + ".bin")));
  }
  return run_program("wild/pte/cmsisops_cortex_m__" + op + ".pte", inputs);
}

std::vector<float> expected_of(const std::string& op) {
  return floats_of(etkit::test::read_bytes(etkit::test::fixtures_dir() / "wild/io" / ("cortex_m__" + op) /
                                           "expected_0.bin"));
}

void check_within(const std::vector<float>& got, const std::vector<float>& want, double tolerance) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", PyTorch " << want[i]);
    CHECK(std::fabs(double(got[i]) - double(want[i])) <= tolerance);
  }
}

}  // namespace

TEST_CASE("cmsisops quantized_add.pte meets PyTorch within one output step", "[cortex_m][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  const Run r = run_cmsisops("quantized_add", 2);
  // Output quantized with scale 0.023517923 (the dequantize's); the sum of
  // two quantized inputs rounded to that grid is within one step of the
  // float sum (observed: at most 0.56 step).
  check_within(r.output, expected_of("quantized_add"), 0.023517923429608345);
}

TEST_CASE("cmsisops softmax.pte meets PyTorch within one step of the CMSIS-NN output", "[cortex_m][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  const Run r = run_cmsisops("softmax", 1);
  // cortex_m::softmax produces probabilities on CMSIS-NN's fixed 1/256 grid
  // (zero point -128), then the program requantizes them to 0.001724: one
  // 1/256 step bounds the error (observed: at most 0.0019).
  check_within(r.output, expected_of("softmax"), 1.0 / 256);
}

TEST_CASE("cmsisops quantized_conv2d.pte meets PyTorch within its two quantization errors", "[cortex_m][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  const Run r = run_cmsisops("quantized_conv2d", 1);
  // The program is quantize -> dequantize -> float aten::convolution ->
  // quantize -> dequantize. Two roundings reach the output: the input's
  // (half of 0.0078393 per value, times at most sum|w| = 2.3402 over an
  // output channel's 18 float weights in the program) and the output's (half
  // of 0.0029913): 0.0015 + 2.3402 * 0.0039197 = 0.0107 bounds the error
  // (observed: at most 0.0055, i.e. 1.8 output steps).
  CHECK(r.sizes == std::vector<int32_t>{1, 3, 6, 6});
  check_within(r.output, expected_of("quantized_conv2d"), 0.0029912982136011124 / 2 + 2.3402 * 0.007839307188987732 / 2);
}

TEST_CASE("cmsisops quantized_linear.pte: the program's int8 aten::mm wraps, so it cannot meet PyTorch",
          "[cortex_m][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  // The exported graph is quantize -> cortex_m::transpose(weight) ->
  // aten::mm.out on int8 x int8 -> int8 -> dequantize(scale 0.0048545, zp 48):
  // no requantization survived the export, so the int8 mm wraps modulo 256.
  // Worked by hand from the input (x / 0.0156786 rounded: -128, -91, -55,
  // -18, 18, 55, 91, 127) and the program's int8 weights, the int32 dot
  // products are 9354, -4144, 2890, -20724; wrapped to int8: -118, -48, 74,
  // 12. The float reference (0.383, -0.172, 0.118, -0.856) is the float
  // model's, which no faithful execution of this program reproduces.
  const Run r = run_cmsisops("quantized_linear", 1);
  const float scale = 0.004854518920183182f;
  std::vector<float> want;
  for (int q : {-118, -48, 74, 12}) want.push_back(float(q - 48) * scale);
  CHECK(r.output == want);
  const auto pytorch = expected_of("quantized_linear");
  REQUIRE(pytorch.size() == 4);
  CHECK(std::fabs(r.output[0] - pytorch[0]) > 1.0f);  // documents the mismatch
}

TEST_CASE("keyword_spotting_cortex_m.pte runs with the cortex_m kernels", "[cortex_m][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  // Input [1, 1, 49, 10] float (dim order 0, 2, 1, 3): a smooth signal.
  std::vector<float> x(490);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(50 * std::sin(double(i) * 0.37) + 20 * std::cos(double(i) * 0.11));
  std::vector<uint8_t> bytes(x.size() * sizeof(float));
  std::memcpy(bytes.data(), x.data(), bytes.size());
  const Run r = run_program("pte/keyword_spotting_cortex_m.pte", {bytes});
  CHECK(r.sizes == std::vector<int32_t>{1, 12});
  // Every output is an int8 value dequantized with scale 0.154293 and zero
  // point 23, and the 12 scores are not all equal (the network did work).
  bool varied = false;
  for (float v : r.output) {
    const double q = double(v) / 0.15429316461086273 + 23;
    CHECK(std::fabs(q - std::round(q)) < 1e-3);
    CHECK(q >= -128.5);
    CHECK(q <= 127.5);
    varied = varied || v != r.output[0];
  }
  CHECK(varied);
}

TEST_CASE("mnist_ethos_u55.pte: only the Ethos-U delegate is missing", "[cortex_m][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  auto file = etkit::rt::open_program_file((etkit::test::fixtures_dir() / "pte/mnist_ethos_u55.pte").string());
  REQUIRE(file.ok());
  auto method = etkit::rt::load_method(file->program, "forward");
  REQUIRE_FALSE(method.ok());
  CHECK_THAT(method.error().message, Catch::Contains("EthosUBackend"));
  CHECK_THAT(method.error().message, !Catch::Contains("cortex_m::"));
}
