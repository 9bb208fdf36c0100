#include "libcore/compare/tensor_values.h"

#include <algorithm>
#include <numeric>

#include "libcore/formats/etdump/debug_buffer.h"

namespace etkit::compare {
namespace {

// Sizes must be non-negative and their product small enough to index.
Result<uint64_t> checked_numel(const std::vector<int64_t>& shape) {
  uint64_t n = 1;
  for (int64_t s : shape) {
    if (s < 0) return bad_input("negative size " + std::to_string(s));
    if (s != 0 && n > (uint64_t(1) << 62) / uint64_t(s)) return bad_input("shape has too many elements");
    n *= uint64_t(s);
  }
  return n;
}

}  // namespace

Result<std::vector<double>> elements_as_double(ScalarType dtype, ByteSpan bytes) {
  const auto elem = element_size(int(dtype));
  if (!elem) return unsupported("unknown dtype " + std::to_string(int(dtype)));
  if (bytes.size() % *elem != 0) {
    return bad_input(std::to_string(bytes.size()) + " bytes is not a whole number of " +
                     std::string(scalar_type_name(int(dtype))) + " elements");
  }
  std::vector<double> out(bytes.size() / *elem);
  for (size_t i = 0; i < out.size(); ++i) {
    const auto value = element_as_double(dtype, bytes.data() + i * *elem);
    if (!value) return unsupported("cannot compare " + std::string(scalar_type_name(int(dtype))) + " tensors");
    out[i] = *value;
  }
  return out;
}

Result<std::vector<double>> to_row_major(std::vector<double> storage, const std::vector<int64_t>& shape,
                                         const std::vector<int64_t>& strides) {
  ETKIT_ASSIGN_OR_RETURN(const uint64_t numel, checked_numel(shape));
  if (storage.size() != numel) {
    return bad_input(std::to_string(storage.size()) + " elements for a shape of " + std::to_string(numel));
  }
  if (strides.empty() || numel <= 1) return storage;
  if (strides.size() != shape.size()) {
    return bad_input(std::to_string(strides.size()) + " strides for " + std::to_string(shape.size()) + " dims");
  }
  // Dense means: ordered by stride, each dim of size > 1 steps over exactly
  // the elements of the dims inside it.
  std::vector<size_t> order;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] > 1) order.push_back(d);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return strides[a] < strides[b]; });
  int64_t expected = 1;
  bool contiguous = true;
  for (size_t k = 0; k < order.size(); ++k) {
    if (strides[order[k]] != expected) {
      return bad_input("strides do not describe a dense layout (dim " + std::to_string(order[k]) + " has stride " +
                       std::to_string(strides[order[k]]) + ", expected " + std::to_string(expected) + ")");
    }
    expected *= shape[order[k]];
    // Row-major: the innermost (smallest stride) dim is the last one.
    if (k > 0 && order[k] > order[k - 1]) contiguous = false;
  }
  if (contiguous) return storage;

  std::vector<double> out(storage.size());
  std::vector<int64_t> index(shape.size(), 0);
  int64_t offset = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = storage[size_t(offset)];
    // Advance the row-major index, keeping the storage offset in step.
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) {
        offset += strides[d];
        break;
      }
      offset -= strides[d] * (shape[d] - 1);
      index[d] = 0;
    }
  }
  return out;
}

Result<TensorValues> from_npy(const npy::Array& array) {
  TensorValues out;
  out.dtype = array.dtype;
  out.shape = array.shape;
  ETKIT_ASSIGN_OR_RETURN(out.values, elements_as_double(array.dtype, array.data));
  ETKIT_ASSIGN_OR_RETURN(out.values, to_row_major(std::move(out.values), out.shape, {}));
  return out;
}

Result<TensorValues> from_etdump(const etdump::Tensor& tensor, ByteSpan debug_buffer) {
  if (!is_valid_scalar_type(tensor.scalar_type)) return unsupported("unknown dtype " + std::to_string(tensor.scalar_type));
  TensorValues out;
  out.dtype = static_cast<ScalarType>(tensor.scalar_type);
  out.shape = tensor.sizes;
  ETKIT_ASSIGN_OR_RETURN(ByteSpan bytes, etdump::tensor_bytes(debug_buffer, tensor));
  ETKIT_ASSIGN_OR_RETURN(out.values, elements_as_double(out.dtype, bytes));
  ETKIT_ASSIGN_OR_RETURN(out.values, to_row_major(std::move(out.values), out.shape, tensor.strides));
  return out;
}

Result<TensorValues> from_bundled(const bundled::Tensor& tensor) {
  if (!is_valid_scalar_type(tensor.scalar_type)) return unsupported("unknown dtype " + std::to_string(tensor.scalar_type));
  TensorValues out;
  out.dtype = static_cast<ScalarType>(tensor.scalar_type);
  out.shape.assign(tensor.sizes.begin(), tensor.sizes.end());
  // dim_order lists dims outermost first; the innermost has stride 1.
  std::vector<int64_t> strides;
  if (tensor.dim_order.size() == out.shape.size()) {
    strides.assign(out.shape.size(), 0);
    int64_t step = 1;
    for (size_t k = tensor.dim_order.size(); k-- > 0;) {
      const size_t d = tensor.dim_order[k];
      if (d >= out.shape.size()) return bad_input("dim_order entry " + std::to_string(d) + " out of range");
      strides[d] = step;
      step *= std::max<int64_t>(out.shape[d], 1);
    }
  } else if (!tensor.dim_order.empty()) {
    return bad_input(std::to_string(tensor.dim_order.size()) + " dim_order entries for " +
                     std::to_string(out.shape.size()) + " dims");
  }
  ETKIT_ASSIGN_OR_RETURN(out.values, elements_as_double(out.dtype, tensor.data));
  ETKIT_ASSIGN_OR_RETURN(out.values, to_row_major(std::move(out.values), out.shape, strides));
  return out;
}

Result<std::vector<TensorValues>> from_etdump_value(const etdump::Value& value, ByteSpan debug_buffer) {
  auto scalar = [](ScalarType dtype, double v) { return std::vector<TensorValues>{TensorValues{dtype, {}, {v}}}; };
  switch (value.val) {
    case etdump::ValueType::kTensor: {
      if (!value.tensor) return bad_input("tensor value without a tensor");
      ETKIT_ASSIGN_OR_RETURN(auto t, from_etdump(*value.tensor, debug_buffer));
      return std::vector<TensorValues>{std::move(t)};
    }
    case etdump::ValueType::kTensorList: {
      if (!value.tensor_list) return bad_input("tensor list value without a tensor list");
      std::vector<TensorValues> out;
      for (size_t i = 0; i < value.tensor_list->size(); ++i) {
        auto t = from_etdump((*value.tensor_list)[i], debug_buffer);
        if (!t) return std::move(t).error().in("tensor_list[" + std::to_string(i) + "]");
        out.push_back(std::move(t).value());
      }
      return out;
    }
    case etdump::ValueType::kInt:
      if (!value.int_value) return bad_input("int value without int_value");
      return scalar(ScalarType::kLong, double(*value.int_value));
    case etdump::ValueType::kBool:
      if (!value.bool_value) return bad_input("bool value without bool_value");
      return scalar(ScalarType::kBool, *value.bool_value ? 1.0 : 0.0);
    case etdump::ValueType::kFloat:
      if (!value.float_value) return bad_input("float value without float_value");
      return scalar(ScalarType::kFloat, double(*value.float_value));
    case etdump::ValueType::kDouble:
      if (!value.double_value) return bad_input("double value without double_value");
      return scalar(ScalarType::kDouble, *value.double_value);
    default:
      return unsupported("cannot compare a value of type " + std::to_string(int(value.val)));
  }
}

Result<TensorValues> from_bundled_value(const bundled::Value& value) {
  if (const auto* t = std::get_if<bundled::Tensor>(&value)) return from_bundled(*t);
  if (const auto* i = std::get_if<bundled::Int>(&value)) return TensorValues{ScalarType::kLong, {}, {double(i->value)}};
  if (const auto* b = std::get_if<bundled::Bool>(&value)) return TensorValues{ScalarType::kBool, {}, {b->value ? 1.0 : 0.0}};
  return TensorValues{ScalarType::kDouble, {}, {std::get<bundled::Double>(value).value}};
}

std::string describe(const TensorValues& tensor) {
  std::string out(scalar_type_name(int(tensor.dtype)));
  out += '[';
  for (size_t i = 0; i < tensor.shape.size(); ++i) out += (i ? ", " : "") + std::to_string(tensor.shape[i]);
  return out + ']';
}

}  // namespace etkit::compare
