// Generic FlatBuffer -> JSON emission driven by a binary schema (.bfbs).
// The schema is compiled once into flat tables (field lists in id order,
// enum name lookups), so emission is a tight walk over vtables.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <flatbuffers/flatbuffers.h>
#include <flatbuffers/reflection.h>

#include "libcore/support/json_writer.h"

namespace etkit::json {

struct CompiledEnum {
  int64_t min_value = 0;
  std::vector<std::string> names_by_value;  // index value - min_value; empty = unnamed
  std::vector<int> union_table;            // unions: table index per value, -1 for NONE

  std::string_view name_of(int64_t value) const {
    const int64_t i = value - min_value;
    if (i < 0 || i >= static_cast<int64_t>(names_by_value.size())) return {};
    return names_by_value[static_cast<size_t>(i)];
  }
};

struct CompiledField {
  std::string name;
  flatbuffers::voffset_t voffset = 0;
  reflection::BaseType base = reflection::None;
  reflection::BaseType element = reflection::None;
  int index = -1;  // table index (Obj), enum index (scalar/UType/Union)
  int64_t default_integer = 0;
  double default_real = 0;
};

struct CompiledTable {
  std::string name;  // fully qualified, e.g. "etdump.Tensor"
  std::vector<CompiledField> fields;
};

class CompiledSchema {
 public:
  // `bfbs` must be a verified binary schema without structs.
  explicit CompiledSchema(const reflection::Schema& schema);

  int root_table() const { return root_; }
  int table_index(std::string_view qualified_name) const;
  const CompiledTable& table(int index) const { return tables_[static_cast<size_t>(index)]; }
  const CompiledEnum& enumeration(int index) const { return enums_[static_cast<size_t>(index)]; }

 private:
  std::vector<CompiledTable> tables_;
  std::vector<CompiledEnum> enums_;
  int root_ = -1;
};

// Called inside a table's JSON object after its schema fields, to append
// extension keys (e.g. tensor values).
using TableHook = std::function<void(const flatbuffers::Table&, JsonWriter&)>;

class JsonEmitter {
 public:
  JsonEmitter(const CompiledSchema& schema, JsonWriter& writer) : schema_(schema), w_(writer) {}

  void set_hook(int table_index, TableHook hook);

  // `{ fields... }` of a table of the given index.
  void table(const flatbuffers::Table& t, int table_index);
  // Only the `"key": value` pairs, for callers that add keys around them.
  void fields(const flatbuffers::Table& t, int table_index);

 private:
  void scalar(const flatbuffers::Table& t, const CompiledField& f);
  void vector(const flatbuffers::Table& t, const CompiledField& f);
  template <typename T>
  void scalar_elements(const uint8_t* data, uint32_t n, int enum_index);
  void enum_or_number(int64_t value, int enum_index);

  const CompiledSchema& schema_;
  JsonWriter& w_;
  std::vector<TableHook> hooks_;
};

}  // namespace etkit::json
