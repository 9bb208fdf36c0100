#include "runner/inputs.h"

#include <cmath>
#include <cstring>
#include <random>

#include "libcore/formats/npy/npy.h"
#include "libcore/support/file.h"
#include "runner/kernels/elementwise.h"

namespace etkit::rt {
namespace {

std::string input_name(size_t index) { return "input " + std::to_string(index); }

// "[1,3,32,32]", as NumPy users write shapes in messages.
std::string compact_shape(std::span<const int32_t> sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(sizes[i]);
  }
  return s + "]";
}

Result<EValue> parse_literal(const EValue& traced, const std::string& text, size_t index) {
  EValue v;
  v.tag = traced.tag;
  try {
    size_t used = 0;
    if (traced.tag == Tag::kInt) {
      v.i = std::stoll(text, &used);
    } else if (traced.tag == Tag::kDouble) {
      v.d = std::stod(text, &used);
    } else if (traced.tag == Tag::kBool) {
      if (text == "true" || text == "1" || text == "True") v.b = true;
      else if (text == "false" || text == "0" || text == "False") v.b = false;
      else return bad_input("'" + text + "' is not a bool", input_name(index));
      used = text.size();
    }
    if (used != text.size()) throw std::invalid_argument(text);
  } catch (const std::exception&) {
    return bad_input("'" + text + "' is not a valid " + std::string(tag_name(traced.tag)) + " literal", input_name(index));
  }
  return v;
}

InputData tensor_like(const Tensor& t) {
  InputData in;
  in.dtype = t.dtype();
  in.sizes.assign(t.sizes().begin(), t.sizes().end());
  in.bytes.assign(t.nbytes(), 0);
  return in;
}

}  // namespace

Result<InputData> input_from_spec(const LoadedMethod& method, size_t index, const std::string& spec) {
  const EValue& v = method.input(index);
  if (v.tag == Tag::kInt || v.tag == Tag::kDouble || v.tag == Tag::kBool) {
    InputData in;
    in.is_tensor = false;
    ETKIT_ASSIGN_OR_RETURN(in.scalar, parse_literal(v, spec, index));
    return in;
  }
  if (v.tag != Tag::kTensor) {
    return unsupported("is " + std::string(tag_name(v.tag)) + "; only tensors and Int/Double/Bool can be given",
                       input_name(index));
  }
  ETKIT_ASSIGN_OR_RETURN(auto file, InputFile::open(spec));
  InputData in;
  const Tensor& t = *v.tensor;
  if (spec.size() >= 4 && spec.compare(spec.size() - 4, 4, ".npy") == 0) {
    auto array = npy::read_npy(file->bytes());
    if (!array) return std::move(array).error().at_file(spec);
    in.dtype = array->dtype;
    for (int64_t d : array->shape) {
      if (d > INT32_MAX) return bad_input("dimension too large").at_file(spec);
      in.sizes.push_back(int32_t(d));
    }
    in.bytes.assign(array->data.begin(), array->data.end());
    // A 0-dim tensor may be given as a 1-element array (and vice versa).
    if (in.sizes.size() != t.dim() && size_t(t.numel()) == in.bytes.size() / t.element_size()) {
      in.sizes.assign(t.sizes().begin(), t.sizes().end());
    }
    // Checked here, where the file is known: the method names only its input.
    if (in.dtype != t.dtype()) {
      return bad_input("holds " + std::string(scalar_type_name(int(in.dtype))) + "; " + input_name(index) +
                       " expects " + std::string(scalar_type_name(int(t.dtype()))))
          .at_file(spec);
    }
    if (auto fits = t.check_resize(in.sizes); !fits) {
      const std::string expected = compact_shape(t.sizes());
      std::string message = "shape " + compact_shape(in.sizes) + " given, " + expected + " expected for " +
                            input_name(index);
      if (t.dynamism() != pte::ShapeDynamism::kStatic) message += " (dynamic: " + fits.error().message + ")";
      return bad_input(message).at_file(spec);
    }
  } else {
    in = tensor_like(t);
    if (file->bytes().size() != t.nbytes()) {
      return bad_input("holds " + std::to_string(file->bytes().size()) + " bytes; " + input_name(index) + " (" +
                       std::string(scalar_type_name(int(t.dtype()))) + t.shape_string() + ") needs " +
                       std::to_string(t.nbytes())).at_file(spec);
    }
    in.bytes.assign(file->bytes().begin(), file->bytes().end());
  }
  return in;
}

InputData input_ones(const LoadedMethod& method, size_t index) {
  const EValue& v = method.input(index);
  if (v.tag != Tag::kTensor) {
    InputData in;
    in.is_tensor = false;
    in.scalar = v;
    return in;
  }
  InputData in = tensor_like(*v.tensor);
  const int64_t n = v.tensor->numel();
  for (int64_t i = 0; i < n; ++i) kernels::store_as<double>(in.dtype, in.bytes.data(), i, 1.0);
  return in;
}

InputData input_random(const LoadedMethod& method, size_t index, uint64_t seed) {
  const EValue& v = method.input(index);
  if (v.tag != Tag::kTensor) return input_ones(method, index);
  InputData in = tensor_like(*v.tensor);
  std::mt19937_64 rng(seed * 1000003u + index);
  std::uniform_real_distribution<double> real(0.0, 1.0);
  std::uniform_int_distribution<int> integer(0, 9);
  const bool floating = kernels::is_floating(in.dtype);
  for (int64_t i = 0; i < v.tensor->numel(); ++i) {
    const double x = in.dtype == ScalarType::kBool ? double(integer(rng) % 2) : floating ? real(rng) : double(integer(rng));
    kernels::store_as<double>(in.dtype, in.bytes.data(), i, x);
  }
  return in;
}

Result<std::vector<InputData>> inputs_from_bundle(const LoadedMethod& method, const bundled::TestCase& test_case) {
  if (test_case.inputs.size() < method.num_inputs()) {
    return bad_input("the test case has " + std::to_string(test_case.inputs.size()) + " inputs, the method needs " +
                     std::to_string(method.num_inputs()));
  }
  std::vector<InputData> out;
  for (size_t i = 0; i < method.num_inputs(); ++i) {
    InputData in;
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, bundled::Tensor>) {
            in.dtype = static_cast<ScalarType>(v.scalar_type);
            in.sizes = v.sizes;
            in.bytes.assign(v.data.begin(), v.data.end());
          } else {
            in.is_tensor = false;
            if constexpr (std::is_same_v<T, bundled::Int>) {
              in.scalar.tag = Tag::kInt;
              in.scalar.i = v.value;
            } else if constexpr (std::is_same_v<T, bundled::Bool>) {
              in.scalar.tag = Tag::kBool;
              in.scalar.b = v.value;
            } else {
              in.scalar.tag = Tag::kDouble;
              in.scalar.d = v.value;
            }
          }
        },
        test_case.inputs[i]);
    out.push_back(std::move(in));
  }
  return out;
}

Status set_input(LoadedMethod& method, size_t index, const InputData& input) {
  if (!input.is_tensor) return method.set_input_scalar(index, input.scalar);
  return method.set_input_tensor(index, input.dtype, input.sizes, ByteSpan(input.bytes));
}

Result<std::vector<OutputCheck>> verify_outputs(const LoadedMethod& method, const bundled::TestCase& test_case,
                                                double rtol, double atol) {
  if (test_case.expected_outputs.empty()) return unsupported("the test case has no expected outputs to verify against");
  if (test_case.expected_outputs.size() != method.num_outputs()) {
    return bad_input("the test case expects " + std::to_string(test_case.expected_outputs.size()) +
                     " outputs, the method has " + std::to_string(method.num_outputs()));
  }
  std::vector<OutputCheck> checks;
  for (size_t i = 0; i < method.num_outputs(); ++i) {
    OutputCheck check;
    check.index = i;
    const auto* expected = std::get_if<bundled::Tensor>(&test_case.expected_outputs[i]);
    const EValue& actual = method.output(i);
    if (!expected) return unsupported("expected output " + std::to_string(i) + " is not a tensor");
    if (actual.tag != Tag::kTensor) {
      check.detail = "the output is " + std::string(tag_name(actual.tag)) + ", a tensor was expected";
      checks.push_back(check);
      continue;
    }
    const Tensor& t = *actual.tensor;
    const bool same_shape = std::equal(t.sizes().begin(), t.sizes().end(), expected->sizes.begin(), expected->sizes.end());
    if (int(t.dtype()) != expected->scalar_type || !same_shape) {
      check.detail = "got " + std::string(scalar_type_name(int(t.dtype()))) + t.shape_string() + ", expected " +
                     std::string(scalar_type_name(expected->scalar_type)) +
                     Tensor(static_cast<ScalarType>(expected->scalar_type), expected->sizes, {}, nullptr).shape_string();
      checks.push_back(check);
      continue;
    }
    const ScalarType dt = t.dtype();
    check.matched = true;
    if (dt == ScalarType::kFloat || dt == ScalarType::kDouble || dt == ScalarType::kHalf) {
      for (int64_t k = 0; k < t.numel(); ++k) {
        const double a = kernels::load_as<double>(dt, expected->data.data(), k);
        const double b = kernels::load_as<double>(dt, t.data(), k);
        bool ok;
        if (std::isnan(a) && std::isnan(b)) {
          ok = true;
        } else if (!std::isfinite(a) && !std::isfinite(b) && ((a > 0) == (b > 0))) {
          ok = true;  // the runtime's rule; note it also equates NaN with -Inf
        } else if (rtol == 0 && atol == 0) {
          ok = a == b;
        } else {
          const double diff = std::fabs(a - b);
          ok = std::isfinite(diff) && diff <= atol + std::fabs(rtol * b);
          if (std::isfinite(diff)) check.max_abs_error = std::max(check.max_abs_error, diff);
        }
        if (!ok && check.matched) {
          check.matched = false;
          check.detail = "element " + std::to_string(k) + ": got " + std::to_string(b) + ", expected " + std::to_string(a);
        }
      }
    } else if (t.nbytes() != expected->data.size() ||
               (t.nbytes() > 0 && std::memcmp(t.data(), expected->data.data(), t.nbytes()) != 0)) {
      check.matched = false;
      check.detail = "bytes differ";
    }
    checks.push_back(check);
  }
  return checks;
}

}  // namespace etkit::rt
