// The demo LeNet lowered to XNNPACK, as ExecuTorch's partitioner lowers a
// whole CNN: one delegate call whose XNNGraph holds the network in NHWC
// (layout transposes at both ends, relus fused into the output clamps of
// the convolutions and linears), with the same weights as demo::lenet(), so
// lenet_reference() gives its expected outputs. Each node carries the debug
// handle of the edge node it came from, taken from the portable program's
// ETRecord, which is what links its events to lenet.py.
#include "examples/demo_xnnpack.h"

#include <cmath>

#include "examples/demo_etrecord.h"
#include "examples/demo_models.h"
#include "libcore/formats/etrecord/etrecord_writer.h"
#include "libcore/formats/etrecord/torch_save.h"
#include "libcore/formats/program/program_builder.h"
#include "libcore/formats/program/program_writer.h"
#include "libcore/formats/xnnpack/xnn_builder.h"

namespace etkit::demo {
namespace {

using xnn::NodeType;

// The portable program's instructions of each layer (demo::lenet()).
constexpr int kConv1 = 0, kPool1 = 2, kConv2 = 3, kPool2 = 5, kFc1 = 7, kFc2 = 10, kFc3 = 13;
constexpr uint32_t kNoSource = 65535;  // what XNNPACK gives nodes it inserts

void fuse_relu(xnn::Node& n) {
  n.has_output_min_max = true;
  n.output_min = 0;
}

// demo::lenet()'s OIHW convolution weights as XNNPACK's OHWI.
std::vector<float> ohwi(const std::vector<float>& oihw, int cout, int cin, int k) {
  std::vector<float> out(oihw.size());
  for (int o = 0; o < cout; ++o) {
    for (int i = 0; i < cin; ++i) {
      for (int y = 0; y < k; ++y) {
        for (int x = 0; x < k; ++x) out[size_t(((o * k + y) * k + x) * cin + i)] = oihw[size_t(((o * cin + i) * k + y) * k + x)];
      }
    }
  }
  return out;
}

uint32_t conv_relu(xnn::GraphBuilder& g, uint32_t x, int cin, int cout, int out_hw, uint32_t seed, uint32_t handle) {
  const int k = 5;
  const auto w = weights(size_t(cout * cin * k * k), seed, 1.0f / std::sqrt(float(cin * k * k)));
  const uint32_t wid = g.constant({uint32_t(cout), 5, 5, uint32_t(cin)}, ohwi(w, cout, cin, k));
  const uint32_t bid = g.constant({uint32_t(cout)}, weights(size_t(cout), seed + 100, 0.1f));
  const uint32_t y = g.internal({1, uint32_t(out_hw), uint32_t(out_hw), uint32_t(cout)});
  auto& n = g.node(NodeType::kConv2d, {x, wid, bid}, {y});
  n.debug_handle = handle;
  n.window.kernel_h = n.window.kernel_w = k;
  n.group_input_channels = uint32_t(cin);
  n.group_output_channels = uint32_t(cout);
  fuse_relu(n);
  return y;
}

uint32_t maxpool(xnn::GraphBuilder& g, uint32_t x, int c, int out_hw, uint32_t handle) {
  const uint32_t y = g.internal({1, uint32_t(out_hw), uint32_t(out_hw), uint32_t(c)});
  auto& n = g.node(NodeType::kMaxPooling2d, {x}, {y});
  n.debug_handle = handle;
  n.window = xnn::Window{0, 0, 0, 0, 2, 2, 2, 2, 1, 1};
  return y;
}

uint32_t linear(xnn::GraphBuilder& g, uint32_t x, int in, int out, uint32_t seed, uint32_t handle, bool relu,
                uint32_t y = xnn::kInvalidId) {
  const uint32_t wid = g.constant({uint32_t(out), uint32_t(in)},
                                  weights(size_t(in) * size_t(out), seed, 1.0f / std::sqrt(float(in))));
  const uint32_t bid = g.constant({uint32_t(out)}, weights(size_t(out), seed + 100, 0.1f));
  if (y == xnn::kInvalidId) y = g.internal({1, uint32_t(out)});
  auto& n = g.node(NodeType::kFullyConnected, {x, wid, bid}, {y});
  n.debug_handle = handle;
  if (relu) fuse_relu(n);
  return y;
}

}  // namespace

Result<XnnpackLenet> lenet_xnnpack() {
  const pte::Program portable = lenet();  // the record's parameters point into it
  ETKIT_ASSIGN_OR_RETURN(LenetRecord record, lenet_record(portable));
  const auto& handles = record.debug_handles["forward"];
  auto handle = [&](int instruction) { return uint32_t(handles.at(std::to_string(instruction)).values.at(0)); };

  xnn::GraphBuilder g;
  const uint32_t x = g.input({1, 1, 32, 32});    // argument 0
  const uint32_t out = g.output({1, 10});        // argument 1
  const uint32_t nhwc = g.internal({1, 32, 32, 1});
  auto inserted = [&](NodeType type, uint32_t in, uint32_t result) -> xnn::Node& {
    auto& n = g.node(type, {in}, {result});
    n.debug_handle = kNoSource;
    return n;
  };
  inserted(NodeType::kStaticTranspose, x, nhwc).perm = {0, 2, 3, 1};
  uint32_t h = conv_relu(g, nhwc, 1, 6, 28, 1, handle(kConv1));
  h = maxpool(g, h, 6, 14, handle(kPool1));
  h = conv_relu(g, h, 6, 16, 10, 2, handle(kConv2));
  h = maxpool(g, h, 16, 5, handle(kPool2));
  // Back to NCHW before flattening, so the linear sees torch's element order.
  const uint32_t nchw = g.internal({1, 16, 5, 5});
  inserted(NodeType::kStaticTranspose, h, nchw).perm = {0, 3, 1, 2};
  const uint32_t flat = g.internal({1, 400});
  inserted(NodeType::kStaticReshape, nchw, flat).shape = {1, 400};
  h = linear(g, flat, 400, 120, 3, handle(kFc1), true);
  h = linear(g, h, 120, 84, 4, handle(kFc2), true);
  linear(g, h, 84, 10, 5, handle(kFc3), false, out);

  XnnpackLenet result;
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t in_value = m.add_planned_tensor(ScalarType::kFloat, {1, 1, 32, 32});
  const int32_t out_value = m.add_planned_tensor(ScalarType::kFloat, {1, 10});
  m.delegate_call(m.add_delegate("XnnpackBackend", g.payload()), {in_value, out_value});
  m.set_inputs({in_value});
  m.set_outputs({out_value});
  ETKIT_ASSIGN_OR_RETURN(result.program, pte::write_program(b.build()));  // while b owns the payload

  // The ETRecord: the same edge program; instruction 0 is the delegate call
  // that covers every handle, and XNNPACK's own delegate map is empty.
  etrecord::Handles all{true, {}};
  for (const auto& [instruction, h_list] : handles) {
    for (int64_t v : h_list.values) {
      if (std::find(all.values.begin(), all.values.end(), v) == all.values.end()) all.values.push_back(v);
    }
  }
  std::sort(all.values.begin(), all.values.end());
  ETKIT_ASSIGN_OR_RETURN(auto state_dict, etrecord::write_torch_save_dict(record.parameters));
  ETKIT_ASSIGN_OR_RETURN(auto constants, etrecord::write_torch_save_dict({}));
  etrecord::EtRecordWriter w(etrecord::JsonStyle::kNarrow);
  const std::string entry = "edge_dialect_exported_program/forward";
  w.add_program(entry, record.edge);
  w.add_entry(entry + "_state_dict", std::move(state_dict));
  w.add_entry(entry + "_constants", std::move(constants));
  w.add_entry(entry + "_example_inputs", {});
  w.add_debug_handle_map(etrecord::DebugHandleMap{{"forward", {{"0", all}}}});
  w.add_delegate_map(etrecord::DelegateMap{{"forward", {{"0", etrecord::DelegateInfo{"XnnpackBackend", {}}}}}});
  w.add_num_outs_map(etrecord::NumOutsMap{{"forward", {{"0", 1}}}});
  ETKIT_ASSIGN_OR_RETURN(result.etrecord, w.finish());
  return result;
}

}  // namespace etkit::demo
