#include "libcore/inspect/debug_values.h"

#include <cmath>
#include <cstdio>

#include "libcore/formats/etdump/debug_buffer.h"
#include "libcore/formats/etdump/etdump_flatbuffer.h"
#include "libcore/formats/flatbuffer_verify.h"
#include "libcore/formats/scalar_type.h"

namespace etkit::inspect {

namespace fb = ::etdump;

namespace {

// torch's dtype names for the dtypes the Inspector inflates.
std::string_view torch_dtype_name(int scalar_type) {
  switch (ScalarType(scalar_type)) {
    case ScalarType::kByte: return "uint8";
    case ScalarType::kChar: return "int8";
    case ScalarType::kShort: return "int16";
    case ScalarType::kInt: return "int32";
    case ScalarType::kLong: return "int64";
    case ScalarType::kHalf: return "float16";
    case ScalarType::kFloat: return "float32";
    case ScalarType::kDouble: return "float64";
    case ScalarType::kBool: return "bool";
    case ScalarType::kBits16:
    case ScalarType::kUInt16: return "uint16";
    default: return "";
  }
}

bool is_floating(int scalar_type) {
  const auto t = ScalarType(scalar_type);
  return t == ScalarType::kHalf || t == ScalarType::kFloat || t == ScalarType::kDouble;
}

// Element `i` of little-endian tensor bytes of a dtype the Inspector supports.
double element(int scalar_type, const uint8_t* data, size_t i) {
  const auto type = ScalarType(scalar_type);
  return element_as_double(type, data + i * element_size(scalar_type).value_or(1)).value_or(0.0);
}

Result<etdump::Tensor> inflate_tensor(const fb::Tensor* t, std::optional<ByteSpan> buffer) {
  if (t == nullptr) return bad_input("tensor value without its tensor table");
  if (!t->sizes() || !t->strides()) return bad_input("tensor without sizes or strides");
  etdump::Tensor tensor{static_cast<int8_t>(t->scalar_type()), copy_vector(t->sizes()), copy_vector(t->strides()),
                        t->offset()};
  if (!inspector_supports_dtype(tensor.scalar_type)) {
    const std::string_view name = scalar_type_name(tensor.scalar_type);
    return unsupported("tensor dtype " + (name.empty() ? std::to_string(tensor.scalar_type) : std::string(name)) +
                       " is not supported by the Inspector");
  }
  if (!etdump::tensor_nbytes(tensor)) return bad_input("tensor has invalid sizes");
  if (buffer) {
    auto bytes = etdump::tensor_bytes(*buffer, tensor);
    if (!bytes) {
      Error error = std::move(bytes).error();
      // Callers attribute errors starting with "debug buffer" to that file.
      if (error.message.rfind("debug buffer", 0) != 0) error.message = "debug buffer: " + error.message;
      return error;
    }
  }
  return tensor;
}

size_t numel(const etdump::Tensor& t) {
  size_t n = 1;
  for (int64_t s : t.sizes) n *= size_t(s);
  return n;
}

bool tensors_equal(const etdump::Tensor& a, const etdump::Tensor& b, std::optional<ByteSpan> buffer) {
  if (a.scalar_type != b.scalar_type || a.sizes != b.sizes) return false;
  if (!buffer) return true;  // both inflate to zeros
  auto bytes_a = etdump::tensor_bytes(*buffer, a);
  auto bytes_b = etdump::tensor_bytes(*buffer, b);
  if (!bytes_a || !bytes_b) return false;
  if (!is_floating(a.scalar_type)) return std::memcmp(bytes_a->data(), bytes_b->data(), bytes_a->size()) == 0;
  const size_t n = numel(a);
  for (size_t i = 0; i < n; ++i) {
    if (element(a.scalar_type, bytes_a->data(), i) != element(b.scalar_type, bytes_b->data(), i)) return false;
  }
  return true;
}

std::string format_number(double v, bool integral) {
  char tmp[64];
  if (integral) {
    std::snprintf(tmp, sizeof tmp, "%.0f", v);
  } else if (std::isnan(v)) {
    return "nan";
  } else {
    std::snprintf(tmp, sizeof tmp, "%g", v);
  }
  return tmp;
}

std::string summarize_tensor(const etdump::Tensor& t, ByteSpan buffer, size_t max_values) {
  std::string out(torch_dtype_name(t.scalar_type));
  out += '[';
  for (size_t i = 0; i < t.sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(t.sizes[i]);
  out += ']';
  const size_t n = numel(t);
  auto bytes = etdump::tensor_bytes(buffer, t);
  if (!bytes) return out + " (not in the debug buffer)";
  if (n == 0) return out + " (empty)";
  const bool integral = !is_floating(t.scalar_type);
  double lo = element(t.scalar_type, bytes->data(), 0), hi = lo, sum = 0;
  for (size_t i = 0; i < n; ++i) {
    const double v = element(t.scalar_type, bytes->data(), i);
    lo = std::fmin(lo, v);
    hi = std::fmax(hi, v);
    sum += v;
  }
  out += " min=" + format_number(lo, integral) + " max=" + format_number(hi, integral) +
         " mean=" + format_number(sum / double(n), false) + " [";
  for (size_t i = 0; i < std::min(n, max_values); ++i) {
    out += (i ? ", " : "") + format_number(element(t.scalar_type, bytes->data(), i), integral);
  }
  out += n > max_values ? ", ...]" : "]";
  return out;
}

}  // namespace

bool inspector_supports_dtype(int scalar_type) { return !torch_dtype_name(scalar_type).empty(); }

Status check_required_fields(const fb::Value& value) {
  auto check_tensor = [](const fb::Tensor& t) { return t.sizes() != nullptr && t.strides() != nullptr; };
  if (value.tensor() && !check_tensor(*value.tensor())) return bad_input("tensor without sizes or strides", "tensor");
  if (const fb::TensorList* list = value.tensor_list()) {
    if (!list->tensors()) return bad_input("tensor list without tensors", "tensor_list");
    for (flatbuffers::uoffset_t i = 0; i < list->tensors()->size(); ++i) {
      if (!check_tensor(*list->tensors()->Get(i))) {
        return bad_input("tensor without sizes or strides", "tensor_list.tensors[" + std::to_string(i) + "]");
      }
    }
  }
  return {};
}

Result<DebugValue> inflate_value(const fb::Value& value, std::optional<ByteSpan> debug_buffer) {
  DebugValue out;
  switch (value.val()) {
    case fb::ValueType::Null:
    case fb::ValueType::String:
      return out;
    case fb::ValueType::Int:
      if (!value.int_value()) return bad_input("Int value without int_value");
      out.kind = DebugValue::Kind::kInt;
      out.int_value = value.int_value()->int_val();
      return out;
    case fb::ValueType::Bool:
      if (!value.bool_value()) return bad_input("Bool value without bool_value");
      out.kind = DebugValue::Kind::kBool;
      out.bool_value = value.bool_value()->bool_val();
      return out;
    case fb::ValueType::Float:
      if (!value.float_value()) return bad_input("Float value without float_value");
      out.kind = DebugValue::Kind::kFloat;
      out.float_value = double(value.float_value()->float_val());
      return out;
    case fb::ValueType::Double:
      if (!value.double_value()) return bad_input("Double value without double_value");
      out.kind = DebugValue::Kind::kFloat;
      out.float_value = value.double_value()->double_val();
      return out;
    case fb::ValueType::Tensor: {
      out.kind = DebugValue::Kind::kTensor;
      auto tensor = inflate_tensor(value.tensor(), debug_buffer);
      if (!tensor) return std::move(tensor).error().in("tensor");
      out.tensors.push_back(std::move(tensor).value());
      return out;
    }
    case fb::ValueType::TensorList: {
      if (!value.tensor_list() || !value.tensor_list()->tensors()) {
        return bad_input("TensorList value without its tensors");
      }
      out.kind = DebugValue::Kind::kTensorList;
      const auto* tensors = value.tensor_list()->tensors();
      for (flatbuffers::uoffset_t i = 0; i < tensors->size(); ++i) {
        auto tensor = inflate_tensor(tensors->Get(i), debug_buffer);
        if (!tensor) return std::move(tensor).error().in("tensor_list.tensors[" + std::to_string(i) + "]");
        out.tensors.push_back(std::move(tensor).value());
      }
      return out;
    }
  }
  return bad_input("unknown value type " + std::to_string(int(value.val())));
}

bool debug_values_equal(const DebugValue& a, const DebugValue& b, std::optional<ByteSpan> debug_buffer) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case DebugValue::Kind::kNone: return true;
    case DebugValue::Kind::kInt: return a.int_value == b.int_value;
    case DebugValue::Kind::kBool: return a.bool_value == b.bool_value;
    case DebugValue::Kind::kFloat: return a.float_value == b.float_value;
    case DebugValue::Kind::kTensor:
    case DebugValue::Kind::kTensorList:
      if (a.tensors.size() != b.tensors.size()) return false;
      for (size_t i = 0; i < a.tensors.size(); ++i) {
        if (!tensors_equal(a.tensors[i], b.tensors[i], debug_buffer)) return false;
      }
      return true;
  }
  return false;
}

std::string summarize_debug_value(const DebugValue& value, ByteSpan debug_buffer, size_t max_values) {
  switch (value.kind) {
    case DebugValue::Kind::kNone: return "None";
    case DebugValue::Kind::kInt: return std::to_string(value.int_value);
    case DebugValue::Kind::kBool: return value.bool_value ? "True" : "False";
    case DebugValue::Kind::kFloat: return format_number(value.float_value, false);
    case DebugValue::Kind::kTensor: return summarize_tensor(value.tensors[0], debug_buffer, max_values);
    case DebugValue::Kind::kTensorList: {
      std::string out = "[";
      for (size_t i = 0; i < value.tensors.size(); ++i) {
        out += (i ? "; " : "") + summarize_tensor(value.tensors[i], debug_buffer, max_values);
      }
      return out + "]";
    }
  }
  return {};
}

}  // namespace etkit::inspect
