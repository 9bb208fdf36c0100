#include "runner/kernels/kernel_util.h"

namespace etkit::rt::kernels {

float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h >> 15) << 31;
  const uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal half: normalise into a float
      int shift = 0;
      while ((mant & 0x400) == 0) {
        mant <<= 1;
        ++shift;
      }
      bits = sign | uint32_t(127 - 15 + 1 - shift) << 23 | (mant & 0x3ff) << 13;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | mant << 13;
  } else {
    bits = sign | (exp + 127 - 15) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_half(float value) {
  uint32_t f;
  std::memcpy(&f, &value, 4);
  const uint16_t sign = uint16_t((f >> 16) & 0x8000);
  const int32_t exp = int32_t((f >> 23) & 0xff);
  uint32_t mant = f & 0x7fffff;
  if (exp == 0xff) return uint16_t(sign | 0x7c00 | (mant ? 0x200 : 0));  // inf / nan
  int32_t e = exp - 127 + 15;
  if (e >= 31) return uint16_t(sign | 0x7c00);  // overflow -> inf
  if (e <= 0) {  // subnormal or zero
    if (e < -10) return sign;
    mant |= 0x800000;
    const int shift = 14 - e;
    uint32_t half_mant = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_mant & 1))) ++half_mant;
    return uint16_t(sign | half_mant);
  }
  uint32_t half = uint32_t(e) << 10 | (mant >> 13);
  const uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;  // may carry into the exponent: correct
  return uint16_t(sign | half);
}

uint16_t float_to_bfloat16(float value) {
  uint32_t u;
  std::memcpy(&u, &value, 4);
  if ((u & 0x7fffffff) > 0x7f800000) return uint16_t((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fff + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}

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

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating(from) && !is_floating(to)) return false;
  if (from != ScalarType::kBool && to == ScalarType::kBool) return false;
  return true;
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

Status resize_out(KernelContext& ctx, Tensor& out, std::span<const int64_t> sizes) {
  auto s = out.resize(sizes);
  if (!s) return ctx.fail("out: " + s.error().message);
  return {};
}

Status resize_out(KernelContext& ctx, Tensor& out, std::span<const int32_t> sizes) {
  auto s = out.resize(sizes);
  if (!s) return ctx.fail("out: " + s.error().message);
  return {};
}

int64_t offset_of(const Tensor& t, std::span<const int64_t> index) {
  int64_t off = 0;
  for (size_t d = 0; d < index.size(); ++d) off += index[d] * t.strides()[d];
  return off;
}

}  // namespace etkit::rt::kernels
