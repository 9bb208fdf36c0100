// Shared pieces of the portable kernels: argument access with messages that
// name the operator and argument, dtype dispatch, type promotion and
// broadcasting over any dim order. Kernels follow ExecuTorch's out-variant
// shape: validate arguments, resize `out`, one dtype switch, then the loop.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>

#include "libcore/support/float16.h"
#include "runner/kernel_registry.h"

namespace etkit::rt::kernels {

// ---- Argument access -------------------------------------------------------

inline Status check_num_args(KernelContext& ctx, std::span<EValue* const> args, size_t expected) {
  if (args.size() != expected) {
    return ctx.fail("expected " + std::to_string(expected) + " arguments, got " + std::to_string(args.size()));
  }
  return {};
}

// The messages of the argument helpers below, built out of line so that
// the helpers' success paths stay small enough to inline into every kernel
// (a call per argument was most of a small operator's cost, issue #15).
[[gnu::cold]] Error arg_type_error(KernelContext& ctx, std::string_view what, std::string_view expected, Tag tag);
[[gnu::cold]] Error dim_range_error(KernelContext& ctx, std::string_view what, int64_t dim, size_t rank);

inline Result<Tensor*> tensor_arg(KernelContext& ctx, const EValue& v, std::string_view what) {
  if (v.tag != Tag::kTensor || v.tensor == nullptr) [[unlikely]] {
    return arg_type_error(ctx, what, "a tensor", v.tag);
  }
  return v.tensor;
}

// A Tensor? argument: nullptr for None.
inline Result<Tensor*> optional_tensor_arg(KernelContext& ctx, const EValue& v, std::string_view what) {
  if (v.tag == Tag::kNone) return static_cast<Tensor*>(nullptr);
  return tensor_arg(ctx, v, what);
}

inline Result<int64_t> int_arg(KernelContext& ctx, const EValue& v, std::string_view what) {
  if (v.tag == Tag::kInt) return v.i;
  if (v.tag == Tag::kBool) return int64_t(v.b);
  return arg_type_error(ctx, what, "an int", v.tag);
}

inline Result<bool> bool_arg(KernelContext& ctx, const EValue& v, std::string_view what) {
  if (v.tag == Tag::kBool) return v.b;
  return arg_type_error(ctx, what, "a bool", v.tag);
}

inline Result<double> double_arg(KernelContext& ctx, const EValue& v, std::string_view what) {
  if (v.tag == Tag::kDouble) return v.d;
  if (v.tag == Tag::kInt) return double(v.i);
  return arg_type_error(ctx, what, "a float", v.tag);
}

// A Scalar argument (Int, Double or Bool).
inline Result<const EValue*> scalar_arg(KernelContext& ctx, const EValue& v, std::string_view what) {
  if (!v.is_scalar()) [[unlikely]] return arg_type_error(ctx, what, "a scalar", v.tag);
  return &v;
}

// Normalises a possibly negative dimension against `rank`.
inline Result<size_t> dim_arg(KernelContext& ctx, int64_t dim, size_t rank, std::string_view what = "dim") {
  const int64_t r = rank == 0 ? 1 : int64_t(rank);
  if (dim < -r || dim >= r) [[unlikely]] return dim_range_error(ctx, what, dim, rank);
  return size_t(dim < 0 ? dim + r : dim);
}

// ---- Names for messages -----------------------------------------------------

// "Float", or "dtype 42" for a code no ScalarType names.
std::string dtype_name(ScalarType t);
// "[1, 2, 3]"
std::string list_string(std::span<const int64_t> items);

// ---- Dtypes ----------------------------------------------------------------

struct Half {  // IEEE binary16 storage
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

using etkit::bfloat16_to_float;
using etkit::float_to_bfloat16;
using etkit::float_to_half;
using etkit::half_to_float;

// ATen's integer arithmetic wraps in two's complement; C++'s signed overflow
// is undefined. So integers compute in the unsigned type of their promotion
// (unsigned int for 8- and 16-bit types: unsigned short * unsigned short
// would promote to int and overflow) and convert back (modular in C++20).
template <typename T>
using WrappingType = std::make_unsigned_t<decltype(+T())>;
template <typename T>
T wrapping_add(T a, T b) { return static_cast<T>(WrappingType<T>(a) + WrappingType<T>(b)); }
template <typename T>
T wrapping_sub(T a, T b) { return static_cast<T>(WrappingType<T>(a) - WrappingType<T>(b)); }
template <typename T>
T wrapping_mul(T a, T b) { return static_cast<T>(WrappingType<T>(a) * WrappingType<T>(b)); }

inline bool is_floating(ScalarType t) {
  return t == ScalarType::kFloat || t == ScalarType::kDouble || t == ScalarType::kHalf || t == ScalarType::kBFloat16;
}
inline bool is_integral(ScalarType t, bool include_bool) {
  switch (t) {
    case ScalarType::kByte: case ScalarType::kChar: case ScalarType::kShort: case ScalarType::kInt:
    case ScalarType::kLong: case ScalarType::kUInt16: case ScalarType::kUInt32: case ScalarType::kUInt64:
      return true;
    case ScalarType::kBool: return include_bool;
    default: return false;
  }
}

// PyTorch's promotion of two tensor dtypes (bool < integers < floats).
Result<ScalarType> promote_types(ScalarType a, ScalarType b);
// The dtype of `tensor op scalar` (a scalar of a higher category lifts an
// integer tensor to float32, a bool tensor to int64/float32).
ScalarType promote_with_scalar(ScalarType tensor, const EValue& scalar);
// Whether a value of dtype `from` may be written into `to` (no float->int,
// no non-bool->bool), as the portable kernels' canCast.
inline bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating(from) && !is_floating(to)) return false;
  return from == ScalarType::kBool || to != ScalarType::kBool;
}
// "result type X cannot be stored in out of type Y", out of line.
[[gnu::cold]] Error cannot_store_error(KernelContext& ctx, ScalarType result, ScalarType out);
// "<what> must be floating point, not X", out of line.
[[gnu::cold]] Error not_floating_error(KernelContext& ctx, std::string_view what, ScalarType t);

// Calls fn(T{}) with T the C++ type of `type`; false if `type` is not among
// the real types (Byte, Char, Short, Int, Long, Float, Double) plus Bool
// (and Half/BFloat16 with HalfAndBF16).
template <typename F>
bool dispatch_real_and_bool(ScalarType type, F&& fn) {
  switch (type) {
    case ScalarType::kByte: fn(uint8_t{}); return true;
    case ScalarType::kChar: fn(int8_t{}); return true;
    case ScalarType::kShort: fn(int16_t{}); return true;
    case ScalarType::kInt: fn(int32_t{}); return true;
    case ScalarType::kLong: fn(int64_t{}); return true;
    case ScalarType::kFloat: fn(float{}); return true;
    case ScalarType::kDouble: fn(double{}); return true;
    case ScalarType::kBool: fn(bool{}); return true;
    default: return false;
  }
}

template <typename F>
bool dispatch_all_types(ScalarType type, F&& fn) {
  if (dispatch_real_and_bool(type, fn)) return true;
  switch (type) {
    case ScalarType::kHalf: fn(Half{}); return true;
    case ScalarType::kBFloat16: fn(BFloat16{}); return true;
    case ScalarType::kUInt16: case ScalarType::kBits16: fn(uint16_t{}); return true;
    case ScalarType::kUInt32: fn(uint32_t{}); return true;
    case ScalarType::kUInt64: fn(uint64_t{}); return true;
    case ScalarType::kQInt8: fn(int8_t{}); return true;
    case ScalarType::kQUInt8: fn(uint8_t{}); return true;
    case ScalarType::kQInt32: fn(int32_t{}); return true;
    default: return false;
  }
}

// A BOOL element read as its byte, any non-zero byte true: loading a bool
// whose byte is not 0 or 1 (memory another dtype wrote, a hostile constant)
// is undefined behaviour in C++.
inline bool load_bool(const void* data, int64_t i) { return static_cast<const uint8_t*>(data)[i] != 0; }

// Reads element `i` of a buffer of T as double / writes a double as T
// (float->integer conversion truncates, like static_cast).
template <typename T>
inline double load_as_double(const void* data, int64_t i) {
  if constexpr (std::is_same_v<T, Half>) return half_to_float(static_cast<const uint16_t*>(data)[i]);
  else if constexpr (std::is_same_v<T, BFloat16>) return bfloat16_to_float(static_cast<const uint16_t*>(data)[i]);
  else if constexpr (std::is_same_v<T, bool>) return load_bool(data, i) ? 1.0 : 0.0;
  else return double(static_cast<const T*>(data)[i]);
}
template <typename T>
inline void store_from_double(void* data, int64_t i, double v) {
  if constexpr (std::is_same_v<T, Half>) static_cast<uint16_t*>(data)[i] = float_to_half(float(v));
  else if constexpr (std::is_same_v<T, BFloat16>) static_cast<uint16_t*>(data)[i] = float_to_bfloat16(float(v));
  else if constexpr (std::is_same_v<T, bool>) static_cast<bool*>(data)[i] = v != 0;
  else static_cast<T*>(data)[i] = static_cast<T>(v);
}

// ---- Shapes and broadcasting ----------------------------------------------

// A shape of at most kMaxRank dimensions that lives on the stack, so that
// kernels allocate nothing while executing.
class Shape {
 public:
  Shape() {}
  explicit Shape(size_t rank) : rank_(rank) { std::fill_n(dims_, rank, int64_t(0)); }
  // Only the first rank() entries are copied: views are built and copied
  // several times per call, and most tensors have 4 dims of the 16.
  Shape(const Shape& other) : rank_(other.rank_) { std::copy_n(other.dims_, other.rank_, dims_); }
  Shape& operator=(const Shape& other) {
    rank_ = other.rank_;
    std::copy_n(other.dims_, other.rank_, dims_);
    return *this;
  }
  size_t size() const { return rank_; }
  int64_t& operator[](size_t i) { return dims_[i]; }
  int64_t operator[](size_t i) const { return dims_[i]; }
  // A contiguous range: converts to std::span<const int64_t>.
  const int64_t* data() const { return dims_; }
  const int64_t* begin() const { return dims_; }
  const int64_t* end() const { return dims_ + rank_; }
  void push_back(int64_t d) { dims_[rank_++] = d; }

 private:
  int64_t dims_[kMaxRank];  // entries from rank_ on are unspecified
  size_t rank_ = 0;
};

// The broadcast shape of a and b, or an error naming both shapes.
Result<Shape> broadcast_shape(KernelContext& ctx, std::span<const int32_t> a, std::span<const int32_t> b);

// Element-wise equality of two short lists (shapes, dim orders). A loop
// rather than std::equal, which calls memcmp for lists of one type: for
// ranks up to 4 the call cost more than the comparison (issue #15).
template <typename A, typename B>
inline bool same_items(std::span<const A> a, std::span<const B> b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (int64_t(a[i]) != int64_t(b[i])) return false;
  }
  return true;
}

// Resizes `out` to `sizes`, with a message naming the operator on failure.
// Out already of that shape (nearly every call) is checked inline.
Status resize_out_slow(KernelContext& ctx, Tensor& out, std::span<const int64_t> sizes);
Status resize_out_slow(KernelContext& ctx, Tensor& out, std::span<const int32_t> sizes);
inline Status resize_out(KernelContext& ctx, Tensor& out, std::span<const int64_t> sizes) {
  if (same_items(sizes, out.sizes())) return {};
  return resize_out_slow(ctx, out, sizes);
}
inline Status resize_out(KernelContext& ctx, Tensor& out, std::span<const int32_t> sizes) {
  if (same_items(sizes, out.sizes())) return {};
  return resize_out_slow(ctx, out, sizes);
}

// Visits every element of `out` in logical row-major order and calls
// fn(out_offset, a_offset, b_offset) with element offsets into each buffer;
// a and b broadcast against out's shape (size-1 or missing dims repeat).
// Works for any dim order, since offsets come from each tensor's strides.
template <typename F>
void for_each_broadcast(const Tensor& out, const Tensor& a, const Tensor& b, F&& fn);

// Same for a single input (unary ops over any dim order).
template <typename F>
void for_each_element(const Tensor& out, const Tensor& a, F&& fn);

// A 0-dim tensor over a Scalar argument (Int as LONG, Double as DOUBLE,
// Bool as BOOL), so scalar overloads reuse the tensor loops.
struct ScalarTensor {
  double d = 0;
  int64_t i = 0;
  bool b = false;
  Tensor tensor;
  explicit ScalarTensor(const EValue& v) {
    if (v.tag == Tag::kDouble) {
      d = v.d;
      tensor = Tensor(ScalarType::kDouble, {}, {}, &d);
    } else if (v.tag == Tag::kBool) {
      b = v.b;
      tensor = Tensor(ScalarType::kBool, {}, {}, &b);
    } else {
      i = v.i;
      tensor = Tensor(ScalarType::kLong, {}, {}, &i);
    }
  }
  ScalarTensor(const ScalarTensor&) = delete;
  ScalarTensor& operator=(const ScalarTensor&) = delete;
};

// Row-major logical index -> element offset in `t` (for gathers).
int64_t offset_of(const Tensor& t, std::span<const int64_t> index);

}  // namespace etkit::rt::kernels

#include "runner/kernels/kernel_util_inl.h"
