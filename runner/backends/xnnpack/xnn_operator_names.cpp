// The names XNNPACK's profiler gives its operators (xnn_operator_type and
// the microkernel kind), which the official ExecuTorch XNNPACK profiler
// writes as delegate_debug_id_str ("Convolution (NHWC, F32) IGEMM #1").
// Matched against the names seen in real ETDumps; XNNPACK versions differ
// in details (docs/xnnpack.md).
#include "runner/backends/xnnpack/xnn_runtime.h"

namespace etkit::rt::xnnpack {
namespace {

std::string type_tag(xnn::Datatype d) {
  switch (d) {
    case xnn::Datatype::kFp16: return "F16";
    case xnn::Datatype::kBf16: return "BF16";
    case xnn::Datatype::kQint8: return "QS8";
    case xnn::Datatype::kQuint8: return "QU8";
    default: return "F32";
  }
}

xnn::Datatype datatype_of(const xnn::Graph& g, uint32_t id) {
  const xnn::Value* v = g.find(id);
  return v ? v->datatype : xnn::Datatype::kFp32;
}

}  // namespace

std::string xnnpack_operator_name(const xnn::Graph& g, const xnn::Node& n) {
  using T = xnn::NodeType;
  const xnn::Datatype in = n.inputs.empty() ? xnn::Datatype::kFp32 : datatype_of(g, n.inputs[0]);
  const xnn::Datatype filter = n.inputs.size() > 1 ? datatype_of(g, n.inputs[1]) : xnn::Datatype::kFp32;
  const std::string t = type_tag(in);
  // Quantized GEMMs name activation, output and weight types.
  auto gemm_types = [&]() -> std::string {
    if (in == xnn::Datatype::kQdint8) {
      const std::string w = filter == xnn::Datatype::kQcint4 ? "QC4W" : filter == xnn::Datatype::kQbint4 ? "QB4W" : "QC8W";
      return "QD8, F32, " + w;
    }
    if (filter == xnn::Datatype::kQcint8) return "QC8";
    return t;
  };
  const xnn::Window& w = n.window;
  switch (n.type) {
    case T::kAdd: return "Add (ND)";
    case T::kSubtract: return "Subtract (ND)";
    case T::kMultiply: return "Multiply (ND)";
    case T::kDiv: return "Divide (ND)";
    case T::kMinimum: return "Minimum (ND)";
    case T::kMaximum: return "Maximum (ND)";
    case T::kPReLU: return "PReLU (ND)";
    case T::kFullyConnected: return "Fully Connected (NC, " + gemm_types() + ") GEMM";
    case T::kConv2d:
      // XNNPACK runs a 1x1, stride-1, unpadded convolution as a GEMM.
      if (w.kernel_h == 1 && w.kernel_w == 1 && w.stride_h == 1 && w.stride_w == 1 && n.groups == 1 &&
          w.pad_top + w.pad_bottom + w.pad_left + w.pad_right == 0) {
        return "Fully Connected (NC, " + gemm_types() + ") GEMM";
      }
      return "Convolution (NHWC, " + gemm_types() + ") IGEMM";
    case T::kDepthwiseConv2d: return "Convolution (NHWC, " + gemm_types() + ") DWConv";
    case T::kConvTranspose2d: return "Deconvolution (NHWC, " + gemm_types() + ")";
    case T::kBatchMatrixMultiply: return "Batch Matrix Multiply (NC, " + t + ") GEMM";
    case T::kSoftmax: return "Softmax (NC, " + t + ")";
    case T::kMaxPooling2d: return "Max Pooling (NHWC, " + t + ")";
    case T::kAvgPooling2d: return "Average Pooling (NHWC, " + t + ")";
    case T::kArgMaxPooling2d: return "ArgMax Pooling (NHWC, " + t + ")";
    case T::kGlobalAvgPooling2d: return "Mean (ND) Reduce2";
    case T::kStaticTranspose: return "Transpose (ND, X32)";
    case T::kStaticReshape: case T::kCopy: return "Copy (NC, X32)";
    case T::kStaticSlice: return "Slice (ND, X32)";
    case T::kStaticConstantPad: return "Constant Pad (ND, X32)";
    case T::kConcatenate2: case T::kConcatenate3: case T::kConcatenate4: case T::kConcatenate5:
      return "Concatenate (ND, X32)";
    case T::kStaticResizeBilinear2D: return "Resize Bilinear (NHWC, " + t + ")";
    case T::kScaledDotProductAttention: return "Scaled Dot Product Attention (NHTC, " + t + ")";
    case T::kConvert: {
      const xnn::Datatype to = n.outputs.empty() ? xnn::Datatype::kFp32 : datatype_of(g, n.outputs[0]);
      return "Convert (NC, " + t + ", " + (to == xnn::Datatype::kQdint8 ? std::string("QD8") : type_tag(to)) + ")";
    }
    case T::kClamp: return "Clamp (NC)";
    case T::kSigmoid: return "Sigmoid (NC)";
    case T::kTanh: return "Tanh (NC)";
    case T::kHardswish: return "HardSwish (NC)";
    case T::kLeakyReLU: return "Leaky ReLU (NC)";
    case T::kELU: return "ELU (NC)";
    case T::kGelu: return "GELU (NC)";
    case T::kAbs: return "Abs (NC)";
    case T::kNegate: return "Negate (NC)";
    case T::kSquare: return "Square (NC)";
    case T::kSquareRoot: return "Square Root (NC)";
    case T::kReciprocalSquareRoot: return "Reciprocal Square Root (NC)";
    case T::kFloor: return "Floor (NC)";
    case T::kCeiling: return "Ceiling (NC)";
    case T::kLog: return "Log (NC)";
    case T::kExp: return "Exp (NC)";
    case T::kSin: return "Sine (NC)";
    case T::kCos: return "Cosine (NC)";
    default: return std::string(xnn::node_type_name(n.type));
  }
}

}  // namespace etkit::rt::xnnpack
