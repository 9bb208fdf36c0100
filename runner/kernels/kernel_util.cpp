#include "runner/kernels/kernel_util.h"

namespace etkit::rt::kernels {

namespace {

int category(ScalarType t) {
  if (t == ScalarType::kBool) return 0;
  if (is_floating(t)) return 2;
  return 1;
}

bool is_unsigned(ScalarType t) {
  return t == ScalarType::kByte || t == ScalarType::kUInt16 || t == ScalarType::kUInt32 || t == ScalarType::kUInt64;
}

size_t size_of(ScalarType t) { return element_size(static_cast<int>(t)).value_or(1); }

ScalarType signed_of_size(size_t bytes) {
  switch (bytes) {
    case 1: return ScalarType::kChar;
    case 2: return ScalarType::kShort;
    case 4: return ScalarType::kInt;
    default: return ScalarType::kLong;
  }
}

}  // namespace

std::string dtype_name(ScalarType t) {
  const auto name = scalar_type_name(int(t));
  return name.empty() ? "dtype " + std::to_string(int(t)) : std::string(name);
}

std::string list_string(std::span<const int64_t> items) {
  std::string s = "[";
  for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + std::to_string(items[i]);
  return s + "]";
}

Result<ScalarType> promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  const int ca = category(a), cb = category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 2) {
    if (a == ScalarType::kDouble || b == ScalarType::kDouble) return ScalarType::kDouble;
    return ScalarType::kFloat;  // float with half/bfloat16, or half with bfloat16
  }
  // Both integral.
  if (is_unsigned(a) == is_unsigned(b)) return size_of(a) >= size_of(b) ? a : b;
  const ScalarType u = is_unsigned(a) ? a : b;
  const ScalarType s = is_unsigned(a) ? b : a;
  if (u == ScalarType::kByte) return signed_of_size(std::max<size_t>(2, size_of(s)));
  if (size_of(s) > size_of(u)) return s;
  return Error{ErrorKind::kRuntime, {}, {},
               "no promotion between " + std::string(scalar_type_name(int(a))) + " and " +
                   std::string(scalar_type_name(int(b)))};
}

ScalarType promote_with_scalar(ScalarType tensor, const EValue& scalar) {
  const int cs = scalar.tag == Tag::kDouble ? 2 : scalar.tag == Tag::kInt ? 1 : 0;
  if (cs <= category(tensor)) return tensor;
  return cs == 2 ? ScalarType::kFloat : ScalarType::kLong;
}

Error not_floating_error(KernelContext& ctx, std::string_view what, ScalarType t) {
  return ctx.fail(std::string(what) + " must be floating point, not " + dtype_name(t));
}

Error cannot_store_error(KernelContext& ctx, ScalarType result, ScalarType out) {
  return ctx.fail("result type " + dtype_name(result) + " cannot be stored in out of type " + dtype_name(out));
}

Result<Shape> broadcast_shape(KernelContext& ctx, std::span<const int32_t> a, std::span<const int32_t> b) {
  const size_t rank = std::max(a.size(), b.size());
  if (rank > kMaxRank) return ctx.fail("rank " + std::to_string(rank) + " exceeds 16");
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      auto fmt = [](std::span<const int32_t> s) {
        std::string r = "[";
        for (size_t k = 0; k < s.size(); ++k) r += (k ? ", " : "") + std::to_string(s[k]);
        return r + "]";
      };
      return ctx.fail("shapes " + fmt(a) + " and " + fmt(b) + " cannot be broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Status resize_out_slow(KernelContext& ctx, Tensor& out, std::span<const int64_t> sizes) {
  auto s = out.resize(sizes);
  if (!s) return ctx.fail("out: " + s.error().message);
  return {};
}

Status resize_out_slow(KernelContext& ctx, Tensor& out, std::span<const int32_t> sizes) {
  auto s = out.resize(sizes);
  if (!s) return ctx.fail("out: " + s.error().message);
  return {};
}

Error arg_type_error(KernelContext& ctx, std::string_view what, std::string_view expected, Tag tag) {
  return ctx.fail(std::string(what) + " must be " + std::string(expected) + ", not " + std::string(tag_name(tag)));
}

Error dim_range_error(KernelContext& ctx, std::string_view what, int64_t dim, size_t rank) {
  return ctx.fail(std::string(what) + " " + std::to_string(dim) + " out of range for rank " + std::to_string(rank));
}

int64_t offset_of(const Tensor& t, std::span<const int64_t> index) {
  int64_t off = 0;
  for (size_t d = 0; d < index.size(); ++d) off += index[d] * t.strides()[d];
  return off;
}

}  // namespace etkit::rt::kernels
