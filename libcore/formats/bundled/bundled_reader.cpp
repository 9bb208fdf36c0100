#include "libcore/formats/bundled/bundled_reader.h"

#include "bundled_program_generated.h"
#include "libcore/formats/flatbuffer_verify.h"
#include "libcore/formats/scalar_type.h"

namespace etkit::bundled {
namespace fb = bundled_program_flatbuffer;

namespace {

std::string indexed(std::string_view name, size_t i) {
  return std::string(name) + "[" + std::to_string(i) + "]";
}

Result<Tensor> convert_tensor(const fb::Tensor& t) {
  Tensor out;
  out.scalar_type = static_cast<int8_t>(t.scalar_type());
  auto elem = element_size(out.scalar_type);
  if (!elem) return bad_input("unknown scalar_type " + std::to_string(out.scalar_type));
  if (!t.sizes()) return bad_input("tensor without sizes");
  out.sizes = copy_vector(t.sizes());
  out.dim_order = copy_vector(t.dim_order());
  if (out.dim_order.size() != out.sizes.size()) {
    return bad_input("dim_order has " + std::to_string(out.dim_order.size()) + " entries for " +
                     std::to_string(out.sizes.size()) + " dimensions");
  }
  std::vector<bool> seen(out.sizes.size(), false);
  for (uint8_t d : out.dim_order) {
    if (d >= seen.size() || seen[d]) return bad_input("dim_order is not a permutation of 0.." + std::to_string(out.sizes.size() - 1));
    seen[d] = true;
  }
  uint64_t nbytes = *elem;
  constexpr uint64_t kMaxBytes = uint64_t(1) << 40;
  for (int32_t s : out.sizes) {
    if (s < 0) return bad_input("negative size " + std::to_string(s));
    // Checked before multiplying, so the product can never wrap.
    if (s != 0 && nbytes > kMaxBytes / uint64_t(s)) return bad_input("tensor sizes describe more than 2^40 bytes");
    nbytes *= uint64_t(s);
  }
  const size_t have = t.data() ? t.data()->size() : 0;
  if (have != nbytes) {
    return bad_input("data has " + std::to_string(have) + " bytes but the sizes need " + std::to_string(nbytes));
  }
  if (t.data()) out.data = ByteSpan(t.data()->data(), t.data()->size());
  return out;
}

Result<Value> convert_value(const fb::Value& v) {
  switch (v.val_type()) {
    case fb::ValueUnion::Tensor: {
      if (!v.val_as_Tensor()) return bad_input("Tensor value without its table");
      ETKIT_ASSIGN_OR_RETURN(Tensor t, convert_tensor(*v.val_as_Tensor()));
      return Value{std::move(t)};
    }
    case fb::ValueUnion::Int:
      if (!v.val_as_Int()) return bad_input("Int value without its table");
      return Value{Int{v.val_as_Int()->int_val()}};
    case fb::ValueUnion::Bool:
      if (!v.val_as_Bool()) return bad_input("Bool value without its table");
      return Value{Bool{v.val_as_Bool()->bool_val()}};
    case fb::ValueUnion::Double:
      if (!v.val_as_Double()) return bad_input("Double value without its table");
      return Value{Double{v.val_as_Double()->double_val()}};
    default:
      return bad_input("unknown value kind " + std::to_string(int(v.val_type())));
  }
}

Result<std::vector<Value>> convert_values(const flatbuffers::Vector<flatbuffers::Offset<fb::Value>>* values,
                                          std::string_view name) {
  std::vector<Value> out;
  if (!values) return out;
  for (flatbuffers::uoffset_t i = 0; i < values->size(); ++i) {
    auto v = convert_value(*values->Get(i));
    if (!v) return std::move(v).error().in(indexed(name, i));
    out.push_back(std::move(v).value());
  }
  return out;
}

}  // namespace

Result<BundledProgram> read_bundled_program(ByteSpan file, std::shared_ptr<const void> keepalive) {
  if (file.size() < 8) return bad_input("too short for a bundled program (" + std::to_string(file.size()) + " bytes)");
  const std::string id = identifier_at(file, 4);
  if (id != kIdentifier) {
    if (id.rfind("BP", 0) == 0) return unsupported("bundled program identifier '" + id + "' is not supported (supported: BP08)");
    return bad_input("not a bundled program (identifier '" + id + "', expected 'BP08')");
  }
  ETKIT_TRY(verify_flatbuffer(file, "bundled program", [](flatbuffers::Verifier& v) {
    return v.VerifyBuffer<fb::BundledProgram>(kIdentifier.data());
  }));
  const auto* root = fb::GetBundledProgram(file.data());
  BundledProgram out;
  out.version = root->version();
  out.storage = std::move(keepalive);
  if (!root->program()) return bad_input("missing the embedded program", "program");
  out.program = ByteSpan(root->program()->data(), root->program()->size());
  if (root->method_test_suites()) {
    for (flatbuffers::uoffset_t s = 0; s < root->method_test_suites()->size(); ++s) {
      const auto* suite = root->method_test_suites()->Get(s);
      const auto where = indexed("method_test_suites", s);
      MethodTestSuite ms;
      if (!suite->method_name()) return bad_input("missing method_name", where);
      ms.method_name = suite->method_name()->str();
      if (suite->test_cases()) {
        for (flatbuffers::uoffset_t c = 0; c < suite->test_cases()->size(); ++c) {
          const auto* tc = suite->test_cases()->Get(c);
          const auto case_where = where + "." + indexed("test_cases", c);
          auto inputs = convert_values(tc->inputs(), "inputs");
          if (!inputs) return std::move(inputs).error().in(case_where);
          auto expected = convert_values(tc->expected_outputs(), "expected_outputs");
          if (!expected) return std::move(expected).error().in(case_where);
          ms.test_cases.push_back(TestCase{std::move(inputs).value(), std::move(expected).value()});
        }
      }
      out.method_test_suites.push_back(std::move(ms));
    }
  }
  return out;
}

Result<BundledProgram> read_bundled_program(std::shared_ptr<const InputFile> file) {
  ByteSpan bytes = file->bytes();
  auto bundle = read_bundled_program(bytes, file);
  if (!bundle) return std::move(bundle).error().at_file(file->path());
  return bundle;
}

const MethodTestSuite* BundledProgram::find_suite(std::string_view method_name) const {
  for (const auto& s : method_test_suites) {
    if (s.method_name == method_name) return &s;
  }
  return nullptr;
}

}  // namespace etkit::bundled
