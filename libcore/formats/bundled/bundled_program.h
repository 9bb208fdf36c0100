// The BundledProgram (.bpte) as plain structs (schemas/bundled_program.fbs):
// a complete .pte plus, per method, test inputs and expected outputs.
// Tensor data and the program are spans: into the file after reading (kept
// alive by `storage`), into caller memory before writing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "libcore/support/bytes.h"

namespace etkit::bundled {

inline constexpr std::string_view kIdentifier = "BP08";
inline constexpr uint32_t kSchemaVersion = 2;  // BUNDLED_PROGRAM_SCHEMA_VERSION

struct Tensor {
  int8_t scalar_type = 0;
  std::vector<int32_t> sizes;
  ByteSpan data;  // numel * element size bytes, in dim_order layout
  std::vector<uint8_t> dim_order;
};
struct Int { int64_t value = 0; };
struct Bool { bool value = false; };
struct Double { double value = 0; };

// Alternative order matches the ValueUnion tags minus one (Tensor = 1).
using Value = std::variant<Tensor, Int, Bool, Double>;

struct TestCase {
  std::vector<Value> inputs;
  std::vector<Value> expected_outputs;
};

struct MethodTestSuite {
  std::string method_name;
  std::vector<TestCase> test_cases;
};

struct BundledProgram {
  uint32_t version = kSchemaVersion;
  std::vector<MethodTestSuite> method_test_suites;
  ByteSpan program;  // a complete .pte, usable in place (32-byte aligned in the file)
  std::shared_ptr<const void> storage;

  const MethodTestSuite* find_suite(std::string_view method_name) const;
};

}  // namespace etkit::bundled
