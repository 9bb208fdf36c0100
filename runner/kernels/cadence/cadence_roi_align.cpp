// cadence::roi_align_box_processor.out(rois, output_size_h, output_size_w,
// sampling_ratio, aligned, out, ret), as the generic kernel
// (backends/cadence/generic/operators/op_roi_align_box_processor.cpp)
// computes it: no arithmetic on an image, but the 80-byte configuration
// record an ROI-align accelerator reads for each box.
//
// For box i (rois[i] = (batch, x1, y1, x2, y2), batch 0: one image), with
// W = output_size_w * sampling_ratio and H = output_size_h * sampling_ratio
// sample points per row and column, in float as the reference computes:
//   step_x = (x2 - x1) / W, step_y = (y2 - y1) / H   (before `aligned`)
//   aligned: x1 -= 0.5, y1 -= 0.5                    (in double, back to float)
//   S(v) = round-half-away(v * 2^16)                 (16 fractional bits)
//   a = S(step_x), b = S(step_x * W), c = S(step_y), d = S(step_y * H)
// the record holds 22 values: the anchors S(x1 + step_x / 2) and
// S(y1 + step_y / 2); the six address increments of the x walk
// (a, a(1 - W), b + a(1 - W), then a(1 - W) three times) followed by the
// last one four more times; the same for the y walk (0, c, c(1 - H),
// d + c(1 - H), then c(1 - H) twice, then four more times). Each value is a
// 29-bit two's complement field, packed least significant bit first from
// bit 0 of byte 0 (22 * 29 = 638 bits; the last two bits are zero).
//
// Where the reference asserts (batch index, 29-bit range) or its int
// conversion would be undefined (NaN, out of int range), the kernel fails
// and names the box.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "runner/kernels/cadence/cadence_util.h"

namespace etkit::rt::kernels::cadence {
namespace {

constexpr int kFieldBits = 29;
constexpr int kValues = 22;
constexpr int64_t kRecordBytes = 80;
constexpr int64_t kFieldMin = -(int64_t(1) << (kFieldBits - 1)), kFieldMax = (int64_t(1) << (kFieldBits - 1)) - 1;

// S(v) as an integer; nullopt when the reference's int conversion is undefined.
std::optional<int64_t> fixed_point(float v) {
  const float r = std::round(v * 65536.0f);
  if (!(r >= -2147483648.0f && r < 2147483648.0f)) return std::nullopt;
  return int64_t(r);
}

// Packs `values` (each in the 29-bit range) into `record`, LSB first.
void pack(const std::array<int64_t, kValues>& values, uint8_t* record) {
  std::fill(record, record + kRecordBytes, uint8_t{0});
  int64_t bit = 0;
  for (int64_t v : values) {
    const uint64_t field = uint64_t(v) & ((uint64_t(1) << kFieldBits) - 1);
    for (int b = 0; b < kFieldBits; ++b, ++bit) {
      if ((field >> b) & 1) record[bit / 8] |= uint8_t(1u << (bit % 8));
    }
  }
}

Status roi_align_box_processor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * rois, tensor_arg(ctx, *args[0], "rois"));
  ETKIT_ASSIGN_OR_RETURN(int64_t output_h, int_arg(ctx, *args[1], "output_size_h"));
  ETKIT_ASSIGN_OR_RETURN(int64_t output_w, int_arg(ctx, *args[2], "output_size_w"));
  ETKIT_ASSIGN_OR_RETURN(int64_t sampling_ratio, int_arg(ctx, *args[3], "sampling_ratio"));
  ETKIT_ASSIGN_OR_RETURN(bool aligned, bool_arg(ctx, *args[4], "aligned"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[5], "out"));
  if (rois->dtype() != ScalarType::kFloat) return ctx.fail("rois must be FLOAT, not " + dtype_name(rois->dtype()));
  if (rois->dim() != 2 || rois->size(1) != 5) {
    return ctx.fail("rois must be [K, 5] (batch index, x1, y1, x2, y2), got " + rois->shape_string());
  }
  if (out->dtype() != ScalarType::kByte) return ctx.fail("out must be BYTE, not " + dtype_name(out->dtype()));
  // The sample grid is W x H points; the reference divides by these ints.
  const auto grid = [&](int64_t size, const char* what) -> Result<int64_t> {
    if (size < 1) return ctx.fail(std::string(what) + " must be positive, got " + std::to_string(size));
    if (sampling_ratio < 1) return ctx.fail("sampling_ratio must be positive, got " + std::to_string(sampling_ratio));
    if (size > INT32_MAX / sampling_ratio) {
      return ctx.fail(std::string(what) + " * sampling_ratio (" + std::to_string(size) + " * " +
                      std::to_string(sampling_ratio) + ") does not fit in int32");
    }
    return size * sampling_ratio;
  };
  ETKIT_ASSIGN_OR_RETURN(int64_t grid_h, grid(output_h, "output_size_h"));
  ETKIT_ASSIGN_OR_RETURN(int64_t grid_w, grid(output_w, "output_size_w"));
  ETKIT_TRY(require_contiguous(ctx, *rois, "rois"));
  const int64_t boxes = rois->size(0);
  const int64_t shape[] = {boxes, kRecordBytes};
  ETKIT_TRY(resize_out(ctx, *out, shape));
  ETKIT_TRY(require_contiguous(ctx, *out, "out"));

  const float* roi = rois->data_as<float>();
  uint8_t* records = out->data_as<uint8_t>();
  const float fw = float(grid_w), fh = float(grid_h);
  for (int64_t i = 0; i < boxes; ++i) {
    const float* r = roi + i * 5;
    const std::string box = "rois[" + std::to_string(i) + "]";
    // static_cast<int>(batch) == 0 in the reference: truncation toward zero.
    if (!(r[0] > -1.0f && r[0] < 1.0f)) return ctx.fail(box + ": batch index " + std::to_string(r[0]) + " must be 0 (one image)");
    float x1 = r[1], y1 = r[2];
    const float step_x = (r[3] - x1) / fw, step_y = (r[4] - y1) / fh;
    if (aligned) {
      x1 = float(double(x1) - 0.5);
      y1 = float(double(y1) - 0.5);
    }
    const std::pair<const char*, float> inputs[] = {{"x anchor", x1 + step_x / 2.0f},
                                                    {"y anchor", y1 + step_y / 2.0f},
                                                    {"x step", step_x},
                                                    {"x row step", step_x * fw},
                                                    {"y step", step_y},
                                                    {"y column step", step_y * fh}};
    std::array<int64_t, 6> s{};
    for (size_t k = 0; k < 6; ++k) {
      const auto v = fixed_point(inputs[k].second);
      if (!v) {
        return ctx.fail(box + ": " + inputs[k].first + " " + std::to_string(inputs[k].second) +
                        " is out of int range in 16.16 fixed point");
      }
      s[k] = *v;
    }
    const int64_t a = s[2], b = s[3], c = s[4], d = s[5];
    const int64_t x_back = a * (1 - grid_w), y_back = c * (1 - grid_h);  // each |factor| < 2^32
    const std::array<int64_t, 6> x_walk{a, x_back, b + x_back, x_back, x_back, x_back};
    const std::array<int64_t, 6> y_walk{0, c, y_back, d + y_back, y_back, y_back};
    std::array<int64_t, kValues> values{};
    values[0] = s[0];
    values[1] = s[1];
    for (size_t k = 0; k < 10; ++k) {
      values[2 + k] = x_walk[std::min<size_t>(k, 5)];
      values[12 + k] = y_walk[std::min<size_t>(k, 5)];
    }
    for (size_t k = 0; k < values.size(); ++k) {
      if (values[k] < kFieldMin || values[k] > kFieldMax) {
        const std::string field = k < 2 ? (k == 0 ? "x anchor" : "y anchor")
                                  : (k < 12 ? "x increment " + std::to_string(k - 2) : "y increment " + std::to_string(k - 12));
        return ctx.fail(box + ": " + field + " " + std::to_string(values[k]) + " does not fit in 29 signed bits");
      }
    }
    pack(values, records + i * kRecordBytes);
  }
  return {};
}

}  // namespace

std::vector<KernelInfo> roi_align_kernels() {
  return {{"cadence::roi_align_box_processor.out", roi_align_box_processor_out, 7, {5}}};
}

}  // namespace etkit::rt::kernels::cadence
