#include "libcore/formats/xnnpack/xnn_graph.h"

#include <array>

namespace etkit::xnn {

std::string_view datatype_name(Datatype d) {
  static constexpr std::array<std::string_view, 15> kNames = {
      "invalid", "fp32", "fp16", "qint8", "quint8", "qint32", "qcint8", "qcint32",
      "qcint4",  "qdint8", "qbint4", "qpint8", "int32", "pfp32", "bf16"};
  const auto i = static_cast<size_t>(d);
  return i < kNames.size() ? kNames[i] : "unknown";
}

bool is_valid_datatype(int value) { return value >= 0 && value <= static_cast<int>(Datatype::kBf16); }

uint64_t datatype_bytes(Datatype d, uint64_t numel) {
  switch (d) {
    case Datatype::kQcint4: case Datatype::kQbint4: return (numel + 1) / 2;
    case Datatype::kFp16: case Datatype::kBf16: return numel * 2;
    case Datatype::kQint8: case Datatype::kQuint8: case Datatype::kQcint8: case Datatype::kQdint8:
    case Datatype::kQpint8: return numel;
    default: return numel * 4;
  }
}

std::string_view node_type_name(NodeType t) {
  static constexpr std::array<std::string_view, size_t(NodeType::kLast) + 1> kNames = {
      "NONE", "Add", "FullyConnected", "Softmax", "Sigmoid", "StaticTranspose", "Clamp", "Conv2d", "Div",
      "StaticResizeBilinear2D", "StaticConstantPad", "AvgPooling2d", "Minimum", "DepthwiseConv2d", "MaxPooling2d",
      "Multiply", "Subtract", "Floor", "Convert", "GlobalAvgPooling2d", "StaticReshape", "ArgMaxPooling2d",
      "SquareRoot", "Ceiling", "Hardswish", "LeakyReLU", "Maximum", "Negate", "Square", "ELU", "Abs", "PReLU",
      "Concatenate2", "Concatenate3", "Concatenate4", "StaticSlice", "ScaledDotProductAttention",
      "BatchMatrixMultiply", "Concatenate5", "ConvTranspose2d", "ReciprocalSquareRoot", "Log", "Gelu", "Tanh",
      "Exp", "Sin", "Copy", "Cos"};
  const auto i = static_cast<size_t>(t);
  return i < kNames.size() ? kNames[i] : "unknown";
}

const Value* Graph::find(uint32_t id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &values[it->second];
}

void Graph::index_values() {
  by_id_.clear();
  for (size_t i = 0; i < values.size(); ++i) by_id_.emplace(values[i].id, i);
}

}  // namespace etkit::xnn
