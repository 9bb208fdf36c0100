// The XNNPACK payload reader: layout facts (XH00 header, XN00 identifier,
// constant offsets) and every class of bad payload, each named by field.
#include <catch2/catch.hpp>

#include <tuple>

#include "libcore/formats/xnnpack/xnn_reader.h"
#include "tests/support/xnn_graph_builder.h"

using namespace etkit;
using namespace etkit::test;
using T = xnn::NodeType;

namespace {

// x (input 0) + constant [1, 2] -> y (output 1).
XnnGraphBuilder add_graph() {
  XnnGraphBuilder g;
  const uint32_t x = g.input({2});
  const uint32_t c = g.constant<float>({2}, {1, 2});
  const uint32_t y = g.output({2});
  g.node(T::kAdd, {x, c}, {y}).debug_handle = 7;
  return g;
}

std::string read_error(ByteSpan bytes) {
  auto r = xnn::read_xnn_payload(bytes);
  REQUIRE_FALSE(r.ok());
  return r.error().field + ": " + r.error().message;
}

}  // namespace

TEST_CASE("xnn payload: the header, identifier and constant region are where ExecuTorch puts them", "[xnnpack]") {
  auto g = add_graph();
  const auto bytes = g.payload();
  // XNNHeader: "XH00" at 4, header length 30 at 8, flatbuffer at 32 (30 aligned to 16).
  CHECK(std::string(bytes.begin() + 4, bytes.begin() + 8) == "XH00");
  CHECK((bytes[8] | bytes[9] << 8) == 30);
  CHECK(load_u32_le(bytes.data() + 10) == 32);
  CHECK(std::string(bytes.begin() + 32 + 4, bytes.begin() + 32 + 8) == "XN00");
  const uint32_t cd = load_u32_le(bytes.data() + 18);
  CHECK(cd % 16 == 0);
  CHECK(load_u64_le(bytes.data() + 22) == 8);  // two floats
  float first;
  std::memcpy(&first, bytes.data() + cd, 4);
  CHECK(first == 1.0f);

  auto r = xnn::read_xnn_payload(bytes);
  REQUIRE(r.ok());
  CHECK(r->has_header);
  CHECK(r->identifier == "XN00");
  REQUIRE(r->nodes.size() == 1);
  CHECK(r->nodes[0].type == T::kAdd);
  CHECK(r->nodes[0].debug_handle == 7);
  CHECK(r->constants.size() == 2);
  CHECK(r->constants[1].bytes.size() == 8);
}

TEST_CASE("xnn payload: bad payloads are refused with the field named", "[xnnpack]") {
  auto good = add_graph().payload();
  SECTION("truncated") {
    const std::vector<uint8_t> cut(good.begin(), good.begin() + 40);
    CHECK(read_error(cut) == "header: flatbuffer [32, +" + std::to_string(load_u32_le(good.data() + 14)) +
                                 ") does not fit the 40-byte payload");
  }
  SECTION("wrong identifier") {
    auto bad = good;
    bad[32 + 4] = 'Q';
    CHECK(read_error(bad) == "identifier: XNNPACK payload identifier 'QN00' is not XN00 or XN01");
  }
  SECTION("every truncation fails cleanly") {
    for (size_t n = 0; n < good.size(); ++n) {
      auto r = xnn::read_xnn_payload(ByteSpan(good.data(), n));
      CHECK_FALSE(r.ok());
    }
  }
  SECTION("a node reading a value that does not exist") {
    auto g = add_graph();
    g.graph().nodes[0].inputs[1] = 42;
    CHECK(read_error(g.payload()) == "xnodes[0] (Add): operand 1 names value 42, which does not exist");
  }
  SECTION("a node reading a value before it is written") {
    XnnGraphBuilder g;
    const uint32_t x = g.input({2});
    const uint32_t mid = g.internal({2});
    const uint32_t y = g.output({2});
    g.node(T::kAdd, {x, mid}, {y});
    g.node(T::kAbs, {x}, {mid});
    CHECK(read_error(g.payload()) == "xnodes[0] (Add): operand 1 reads value 1 before any node writes it");
  }
  SECTION("an output that is a constant") {
    XnnGraphBuilder g;
    const uint32_t x = g.input({2});
    const uint32_t c = g.constant<float>({2}, {1, 2});
    g.node(T::kAbs, {x}, {c});
    CHECK(read_error(g.payload()) == "xnodes[0] (Abs): output value 1 is a constant");
  }
  SECTION("dims that disagree with num_dims, and constants too small for their dims") {
    auto g = add_graph();
    g.graph().values[1].dims = {3};  // 3 floats need 12 bytes, the constant has 8
    CHECK(read_error(g.payload()) == "xvalues[1]: constant 1 holds 8 bytes, 12 needed for fp32 dims");
  }
  SECTION("per-channel scales of the wrong length") {
    XnnGraphBuilder g;
    const uint32_t x = g.input({1, 2});
    const uint32_t w = g.constant<int8_t>({2, 2}, {1, 2, 3, 4}, xnn::Datatype::kQcint8);
    g.value(w).quantized = true;
    g.value(w).quant.scheme = xnn::QuantScheme::kPerChannel;
    g.value(w).quant.scales = {0.5f, 1, 2};
    const uint32_t y = g.output({1, 2});
    g.node(T::kFullyConnected, {x, w, xnn::kInvalidId}, {y});
    CHECK(read_error(g.payload()) == "xvalues[1].quant_params.scale: 3 scales for 2 channels");
  }
  SECTION("8-bit zero points outside the datatype and subnormal scales, as XNNPACK refuses them") {
    for (auto [dt, zp, scale, message] :
         {std::tuple{xnn::Datatype::kQint8, 128, 1.0f, "xvalues[0].quant_params.zero_point: zero point 128 outside [-128, 127]"},
          std::tuple{xnn::Datatype::kQuint8, -1, 1.0f, "xvalues[0].quant_params.zero_point: zero point -1 outside [0, 255]"},
          std::tuple{xnn::Datatype::kQint8, 0, 1e-40f, "xvalues[0].quant_params.scale: per-tensor scale 0.000000 is subnormal"}}) {
      XnnGraphBuilder g;
      const uint32_t x = g.input({2}, dt);
      const uint32_t y = g.output({2}, dt);
      for (uint32_t id : {x, y}) {
        g.value(id).quantized = true;
        g.value(id).quant.scheme = xnn::QuantScheme::kPerTensor;
        g.value(id).quant.scale = 1.0f;
      }
      g.value(x).quant.zero_point = zp;
      g.value(x).quant.scale = scale;
      g.node(T::kAbs, {x}, {y});
      CHECK(read_error(g.payload()) == message);
    }
    // The edges of the ranges are accepted.
    XnnGraphBuilder g;
    const uint32_t x = g.input({2}, xnn::Datatype::kQuint8);
    const uint32_t y = g.output({2}, xnn::Datatype::kQuint8);
    for (uint32_t id : {x, y}) {
      g.value(id).quantized = true;
      g.value(id).quant.scheme = xnn::QuantScheme::kPerTensor;
      g.value(id).quant.scale = 1.0f;
    }
    g.value(x).quant.zero_point = 255;
    g.node(T::kAbs, {x}, {y});
    CHECK(xnn::read_xnn_payload(g.payload()).ok());
  }
  SECTION("a transpose whose perm is not a permutation") {
    XnnGraphBuilder g;
    const uint32_t x = g.input({2, 2});
    const uint32_t y = g.output({2, 2});
    g.node(T::kStaticTranspose, {x}, {y}).perm = {0, 0};
    CHECK(read_error(g.payload()) == "xnodes[0].perm: perm is not a permutation");
  }
}

TEST_CASE("xnn runtime: shape mismatches at run time name the node", "[xnnpack]") {
  XnnGraphBuilder g;
  const uint32_t x = g.input({1, 3});
  const uint32_t w = g.constant<float>({2, 4}, std::vector<float>(8, 1.0f));
  const uint32_t y = g.output({1, 2});
  g.node(T::kFullyConnected, {x, w, xnn::kInvalidId}, {y});
  const auto payload = g.payload();
  std::vector<XnnArg> args = {xnn_arg<float>({1, 3}, {1, 2, 3}), xnn_out({1, 2})};
  auto s = run_xnn(payload, args);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().field == "xnodes[0] (FullyConnected)");
  CHECK(s.error().kind == ErrorKind::kBadInput);  // exit 2: the payload's shapes are wrong
  CHECK(s.error().message == "input's last dimension 3 does not match the filter's 4 input channels");
  // A wrong dtype for an external value names the argument.
  std::vector<XnnArg> ints = {xnn_arg<int32_t>({1, 3}, {1, 2, 3}, ScalarType::kInt), xnn_out({1, 2})};
  auto d = run_xnn(payload, ints);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message == "delegate argument 0 is INT, the graph expects fp32");
}

TEST_CASE("xnn runtime: hostile sizes are bounded: internal memory limit and huge pooling windows", "[xnnpack]") {
  {
    XnnGraphBuilder g;
    const uint32_t x = g.input({1, 4});
    const uint32_t padded = g.internal({1, 4});
    const uint32_t y = g.output({1, 4});
    auto& pad = g.node(T::kStaticConstantPad, {x}, {padded});
    pad.pre_paddings = {0, 0};
    pad.post_paddings = {0, 1000000};
    g.node(T::kAbs, {padded}, {y});
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({1, 4}, {1, 2, 3, 4}), xnn_out({1, 4})};
    rt::xnnpack::Options options;
    options.memory_limit = 1 << 20;
    auto s = run_xnn(payload, args, nullptr, options);
    REQUIRE_FALSE(s.ok());
    // (4 + 1000000) floats of 4 bytes.
    CHECK(s.error().message == "internal values would take 4000016 bytes, above the delegate's memory limit of 1048576");
  }
  for (auto type : {T::kMaxPooling2d, T::kAvgPooling2d}) {
    XnnGraphBuilder g;
    const uint32_t x = g.input({1, 2, 2, 1});
    const uint32_t y = g.output({1, 1, 1, 1});
    auto& n = g.node(type, {x}, {y});
    // A window of 2e9 + 2 rows over 1e9 padding each side: one output, and the loops only visit the 4 pixels.
    n.window = xnn::Window{1000000000, 0, 1000000000, 0, 2000000002, 2, 1, 1, 1, 1};
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({1, 2, 2, 1}, {1, 2, 3, 4}), xnn_out({1, 1, 1, 1})};
    REQUIRE(run_xnn(payload, args).ok());
    CHECK(values_of(args[1]) == std::vector<float>{type == T::kMaxPooling2d ? 4.0f : 2.5f});
  }
}

TEST_CASE("xnn payload: a FlatBuffer at a misaligned offset is refused, not read in place", "[xnnpack]") {
  auto good = add_graph().payload();
  // Move the FlatBuffer one byte later (offset 33) and say so in the header.
  std::vector<uint8_t> shifted(good.size() + 1, 0);
  std::memcpy(shifted.data(), good.data(), 32);
  std::memcpy(shifted.data() + 33, good.data() + 32, good.size() - 32);
  store_u32_le(shifted.data() + 10, 33);
  store_u32_le(shifted.data() + 18, load_u32_le(good.data() + 18) + 1);
  CHECK(read_error(shifted) == "header: the FlatBuffer does not start on an 8-byte boundary");
}

TEST_CASE("xnn runtime: a constant by key must be in the program's named data", "[xnnpack]") {
  auto g = add_graph();
  g.graph().constants[1].named_key = "weights";  // the payload now names it instead of holding it
  const auto payload = g.payload();
  auto graph = xnn::read_xnn_payload(ByteSpan(payload));
  REQUIRE(graph.ok());
  CHECK(graph->constants[1].named_key == "weights");
  auto runtime = rt::xnnpack::Runtime::compile(std::move(graph).value(), nullptr, {});
  REQUIRE_FALSE(runtime.ok());
  CHECK(runtime.error().field == "xvalues[1]");
  CHECK(runtime.error().message == "constant 'weights' is not in the program's named data");
}
