#include "libcore/formats/json/flatbuffer_json.h"

#include <algorithm>
#include <cstring>

namespace etkit::json {

CompiledSchema::CompiledSchema(const reflection::Schema& schema) {
  for (const auto* e : *schema.enums()) {
    CompiledEnum out;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const auto* v : *e->values()) {
      lo = std::min(lo, v->value());
      hi = std::max(hi, v->value());
    }
    if (e->values()->size() == 0) lo = hi = 0;
    out.min_value = lo;
    out.names_by_value.resize(static_cast<size_t>(hi - lo + 1));
    if (e->is_union()) out.union_table.assign(out.names_by_value.size(), -1);
    for (const auto* v : *e->values()) {
      const auto i = static_cast<size_t>(v->value() - lo);
      out.names_by_value[i] = v->name()->str();
      if (e->is_union() && v->union_type() && v->union_type()->base_type() == reflection::Obj) {
        out.union_table[i] = v->union_type()->index();
      }
    }
    enums_.push_back(std::move(out));
  }
  for (const auto* o : *schema.objects()) {
    CompiledTable table;
    table.name = o->name()->str();
    for (const auto* f : *o->fields()) {
      if (f->deprecated()) continue;
      CompiledField field;
      field.name = f->name()->str();
      field.voffset = f->offset();
      field.base = f->type()->base_type();
      field.element = f->type()->element();
      field.index = f->type()->index();
      field.default_integer = f->default_integer();
      field.default_real = f->default_real();
      table.fields.push_back(std::move(field));
    }
    // Reflection lists fields by name; JSON follows declaration (id) order,
    // and vtable offsets grow with the id.
    std::sort(table.fields.begin(), table.fields.end(),
              [](const CompiledField& a, const CompiledField& b) { return a.voffset < b.voffset; });
    tables_.push_back(std::move(table));
  }
  const std::string root_name = schema.root_table()->name()->str();
  root_ = table_index(root_name);
}

int CompiledSchema::table_index(std::string_view qualified_name) const {
  for (size_t i = 0; i < tables_.size(); ++i) {
    if (tables_[i].name == qualified_name) return static_cast<int>(i);
  }
  return -1;
}

void JsonEmitter::set_hook(int table_index, TableHook hook) {
  if (table_index < 0) return;
  if (hooks_.size() <= static_cast<size_t>(table_index)) hooks_.resize(static_cast<size_t>(table_index) + 1);
  hooks_[static_cast<size_t>(table_index)] = std::move(hook);
}

void JsonEmitter::table(const flatbuffers::Table& t, int table_index) {
  w_.begin_object();
  fields(t, table_index);
  w_.end_object();
}

void JsonEmitter::enum_or_number(int64_t value, int enum_index) {
  if (enum_index >= 0) {
    auto name = schema_.enumeration(enum_index).name_of(value);
    if (!name.empty()) {
      w_.string(name);
      return;
    }
  }
  w_.number(value);
}

void JsonEmitter::scalar(const flatbuffers::Table& t, const CompiledField& f) {
  const auto vo = f.voffset;
  const auto di = f.default_integer;
  switch (f.base) {
    case reflection::Bool: w_.boolean(t.GetField<uint8_t>(vo, static_cast<uint8_t>(di)) != 0); break;
    case reflection::Byte: enum_or_number(t.GetField<int8_t>(vo, static_cast<int8_t>(di)), f.index); break;
    case reflection::UType:
    case reflection::UByte: enum_or_number(t.GetField<uint8_t>(vo, static_cast<uint8_t>(di)), f.index); break;
    case reflection::Short: enum_or_number(t.GetField<int16_t>(vo, static_cast<int16_t>(di)), f.index); break;
    case reflection::UShort: enum_or_number(t.GetField<uint16_t>(vo, static_cast<uint16_t>(di)), f.index); break;
    case reflection::Int: enum_or_number(t.GetField<int32_t>(vo, static_cast<int32_t>(di)), f.index); break;
    case reflection::UInt: enum_or_number(t.GetField<uint32_t>(vo, static_cast<uint32_t>(di)), f.index); break;
    case reflection::Long: enum_or_number(t.GetField<int64_t>(vo, di), f.index); break;
    case reflection::ULong: {
      const uint64_t v = t.GetField<uint64_t>(vo, static_cast<uint64_t>(di));
      if (f.index >= 0 && v <= uint64_t(INT64_MAX)) {
        enum_or_number(static_cast<int64_t>(v), f.index);
      } else {
        w_.number(v);
      }
      break;
    }
    case reflection::Float: w_.number(t.GetField<float>(vo, static_cast<float>(f.default_real))); break;
    case reflection::Double: w_.number(t.GetField<double>(vo, f.default_real)); break;
    default: w_.null(); break;
  }
}

template <typename T>
void JsonEmitter::scalar_elements(const uint8_t* data, uint32_t n, int enum_index) {
  for (uint32_t i = 0; i < n; ++i) {
    T v;  // memcpy: elements of a corrupted file may be misaligned
    std::memcpy(&v, data + i * sizeof(T), sizeof(T));
    if constexpr (std::is_same_v<T, bool>) {
      w_.boolean(v);
    } else if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, uint64_t>) {
      w_.number(v);
    } else {
      if (enum_index >= 0) {
        enum_or_number(static_cast<int64_t>(v), enum_index);
      } else {
        w_.number(v);
      }
    }
  }
}

void JsonEmitter::vector(const flatbuffers::Table& t, const CompiledField& f) {
  const auto* vec = t.GetPointer<const flatbuffers::Vector<uint8_t>*>(f.voffset);
  const uint8_t* data = vec->Data();
  const uint32_t n = vec->size();
  w_.begin_array();
  switch (f.element) {
    case reflection::Bool: scalar_elements<bool>(data, n, -1); break;
    case reflection::Byte: scalar_elements<int8_t>(data, n, f.index); break;
    case reflection::UType:
    case reflection::UByte: scalar_elements<uint8_t>(data, n, f.index); break;
    case reflection::Short: scalar_elements<int16_t>(data, n, f.index); break;
    case reflection::UShort: scalar_elements<uint16_t>(data, n, f.index); break;
    case reflection::Int: scalar_elements<int32_t>(data, n, f.index); break;
    case reflection::UInt: scalar_elements<uint32_t>(data, n, f.index); break;
    case reflection::Long: scalar_elements<int64_t>(data, n, f.index); break;
    case reflection::ULong: scalar_elements<uint64_t>(data, n, f.index); break;
    case reflection::Float: scalar_elements<float>(data, n, -1); break;
    case reflection::Double: scalar_elements<double>(data, n, -1); break;
    case reflection::String: {
      const auto* strings = reinterpret_cast<const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>*>(vec);
      for (uint32_t i = 0; i < n; ++i) w_.string(strings->Get(i)->string_view());
      break;
    }
    case reflection::Obj: {
      const auto* tables = reinterpret_cast<const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::Table>>*>(vec);
      for (uint32_t i = 0; i < n; ++i) table(*tables->Get(i), f.index);
      break;
    }
    default: break;
  }
  w_.end_array();
}

void JsonEmitter::fields(const flatbuffers::Table& t, int table_index) {
  const CompiledTable& ct = schema_.table(table_index);
  for (const CompiledField& f : ct.fields) {
    switch (f.base) {
      case reflection::String: {
        const auto* s = t.GetPointer<const flatbuffers::String*>(f.voffset);
        if (s == nullptr) break;
        w_.key(f.name);
        w_.string(s->string_view());
        break;
      }
      case reflection::Vector:
        if (t.GetPointer<const uint8_t*>(f.voffset) == nullptr) break;
        w_.key(f.name);
        vector(t, f);
        break;
      case reflection::Obj: {
        const auto* sub = t.GetPointer<const flatbuffers::Table*>(f.voffset);
        if (sub == nullptr) break;
        w_.key(f.name);
        table(*sub, f.index);
        break;
      }
      case reflection::Union: {
        const auto* sub = t.GetPointer<const flatbuffers::Table*>(f.voffset);
        // The `<name>_type` field sits in the slot just before the value.
        const auto type = t.GetField<uint8_t>(static_cast<flatbuffers::voffset_t>(f.voffset - 2), 0);
        const auto& e = schema_.enumeration(f.index);
        const int64_t i = int64_t(type) - e.min_value;
        const int sub_index = (i >= 0 && i < int64_t(e.union_table.size())) ? e.union_table[size_t(i)] : -1;
        if (sub == nullptr || sub_index < 0) break;
        w_.key(f.name);
        table(*sub, sub_index);
        break;
      }
      default:
        w_.key(f.name);
        scalar(t, f);
        break;
    }
  }
  if (static_cast<size_t>(table_index) < hooks_.size() && hooks_[static_cast<size_t>(table_index)]) {
    hooks_[static_cast<size_t>(table_index)](t, w_);
  }
}

}  // namespace etkit::json
