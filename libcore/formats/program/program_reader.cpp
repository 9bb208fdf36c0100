#include "libcore/formats/program/program_reader.h"

#include <string>

#include "libcore/formats/flatbuffer_verify.h"
#include "program_generated.h"

namespace etkit::pte {
namespace fb = executorch_flatbuffer;

namespace {

constexpr size_t kHeaderOffset = 8;  // eh00 follows the root offset and identifier
constexpr uint32_t kMinHeaderLength = 24;

std::string indexed(std::string_view name, size_t i) {
  return std::string(name) + "[" + std::to_string(i) + "]";
}

std::optional<std::string> opt_string(const flatbuffers::String* s) {
  if (s == nullptr) return std::nullopt;
  return s->str();
}
std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

template <typename T>
std::vector<T> vec(const flatbuffers::Vector<T>* v) {
  return copy_vector(v);
}

Result<Tensor> convert_tensor(const fb::Tensor& t) {
  Tensor out;
  out.scalar_type = static_cast<int8_t>(t.scalar_type());
  out.storage_offset = t.storage_offset();
  out.sizes = vec(t.sizes());
  out.dim_order = vec(t.dim_order());
  out.requires_grad = t.requires_grad();
  out.data_buffer_idx = t.data_buffer_idx();
  if (const auto* a = t.allocation_info()) {
    out.allocation_info = AllocationDetails{
        a->memory_id(), uint64_t(a->memory_offset_high()) << 32 | a->memory_offset_low()};
  }
  out.layout = t.layout();
  out.shape_dynamism = static_cast<ShapeDynamism>(t.shape_dynamism());
  if (const auto* e = t.extra_tensor_info()) {
    out.extra_tensor_info = ExtraTensorInfo{e->mutable_data_segments_idx(),
                                            opt_string(e->fully_qualified_name()),
                                            static_cast<TensorDataLocation>(e->location()),
                                            static_cast<int8_t>(e->device_type()),
                                            e->device_index()};
  }
  return out;
}

Result<EValue> convert_value(const fb::EValue& v) {
  switch (v.val_type()) {
    case fb::KernelTypes::Null: return EValue{Null{}};
    case fb::KernelTypes::Int:
      if (!v.val_as_Int()) return bad_input("Int value without its table");
      return EValue{Int{v.val_as_Int()->int_val()}};
    case fb::KernelTypes::Bool:
      if (!v.val_as_Bool()) return bad_input("Bool value without its table");
      return EValue{Bool{v.val_as_Bool()->bool_val()}};
    case fb::KernelTypes::Double:
      if (!v.val_as_Double()) return bad_input("Double value without its table");
      return EValue{Double{v.val_as_Double()->double_val()}};
    case fb::KernelTypes::Tensor: {
      if (!v.val_as_Tensor()) return bad_input("Tensor value without its table");
      ETKIT_ASSIGN_OR_RETURN(Tensor t, convert_tensor(*v.val_as_Tensor()));
      return EValue{std::move(t)};
    }
    case fb::KernelTypes::String:
      if (!v.val_as_String() || !v.val_as_String()->string_val()) return bad_input("String value without string_val");
      return EValue{String{v.val_as_String()->string_val()->str()}};
    case fb::KernelTypes::IntList:
      if (!v.val_as_IntList() || !v.val_as_IntList()->items()) return bad_input("IntList without items");
      return EValue{IntList{vec(v.val_as_IntList()->items())}};
    case fb::KernelTypes::DoubleList:
      if (!v.val_as_DoubleList() || !v.val_as_DoubleList()->items()) return bad_input("DoubleList without items");
      return EValue{DoubleList{vec(v.val_as_DoubleList()->items())}};
    case fb::KernelTypes::BoolList: {
      if (!v.val_as_BoolList() || !v.val_as_BoolList()->items()) return bad_input("BoolList without items");
      BoolList list;
      for (auto b : *v.val_as_BoolList()->items()) list.items.push_back(b != 0);
      return EValue{std::move(list)};
    }
    case fb::KernelTypes::TensorList:
      if (!v.val_as_TensorList() || !v.val_as_TensorList()->items()) return bad_input("TensorList without items");
      return EValue{TensorList{vec(v.val_as_TensorList()->items())}};
    case fb::KernelTypes::OptionalTensorList:
      if (!v.val_as_OptionalTensorList() || !v.val_as_OptionalTensorList()->items()) {
        return bad_input("OptionalTensorList without items");
      }
      return EValue{OptionalTensorList{vec(v.val_as_OptionalTensorList()->items())}};
    default:
      return bad_input("unknown value kind " + std::to_string(int(v.val_type())));
  }
}

Result<Instruction> convert_instruction(const fb::Instruction& i) {
  switch (i.instr_args_type()) {
    case fb::InstructionArguments::KernelCall: {
      const auto* k = i.instr_args_as_KernelCall();
      if (!k) return bad_input("KernelCall without its table");
      if (!k->args()) return bad_input("KernelCall without args");
      return Instruction{KernelCall{k->op_index(), vec(k->args())}};
    }
    case fb::InstructionArguments::DelegateCall: {
      const auto* d = i.instr_args_as_DelegateCall();
      if (!d) return bad_input("DelegateCall without its table");
      if (!d->args()) return bad_input("DelegateCall without args");
      return Instruction{DelegateCall{d->delegate_index(), vec(d->args())}};
    }
    case fb::InstructionArguments::MoveCall: {
      const auto* m = i.instr_args_as_MoveCall();
      if (!m) return bad_input("MoveCall without its table");
      return Instruction{MoveCall{m->move_from(), m->move_to()}};
    }
    case fb::InstructionArguments::JumpFalseCall: {
      const auto* j = i.instr_args_as_JumpFalseCall();
      if (!j) return bad_input("JumpFalseCall without its table");
      return Instruction{JumpFalseCall{j->cond_value_index(), j->destination_instruction()}};
    }
    case fb::InstructionArguments::FreeCall: {
      const auto* f = i.instr_args_as_FreeCall();
      if (!f) return bad_input("FreeCall without its table");
      return Instruction{FreeCall{f->value_index()}};
    }
    default:
      return bad_input("unknown instruction kind " + std::to_string(int(i.instr_args_type())));
  }
}

// Every index an instruction or list holds must name an existing value;
// consumers then index `values` without further checks.
Status check_value_index(int64_t index, size_t num_values, std::string_view what) {
  if (index < 0 || static_cast<uint64_t>(index) >= num_values) {
    return bad_input(std::string(what) + " " + std::to_string(index) + " is not a value index (" +
                     std::to_string(num_values) + " values)");
  }
  return {};
}

Status validate_plan(const ExecutionPlan& plan) {
  const size_t n = plan.values.size();
  for (size_t i = 0; i < n; ++i) {
    const EValue& v = plan.values[i];
    auto where = indexed("values", i);
    if (const auto* l = std::get_if<IntList>(&v)) {
      for (auto item : l->items) {
        auto s = check_value_index(item, n, "item");
        if (!s) return std::move(s).error().in(where);
      }
    } else if (const auto* t = std::get_if<TensorList>(&v)) {
      for (auto item : t->items) {
        auto s = check_value_index(item, n, "item");
        if (!s) return std::move(s).error().in(where);
      }
    } else if (const auto* o = std::get_if<OptionalTensorList>(&v)) {
      for (auto item : o->items) {
        if (item == -1) continue;
        auto s = check_value_index(item, n, "item");
        if (!s) return std::move(s).error().in(where);
      }
    }
  }
  for (size_t k = 0; k < plan.inputs.size(); ++k) {
    auto s = check_value_index(plan.inputs[k], n, "input");
    if (!s) return std::move(s).error().in(indexed("inputs", k));
  }
  for (size_t k = 0; k < plan.outputs.size(); ++k) {
    auto s = check_value_index(plan.outputs[k], n, "output");
    if (!s) return std::move(s).error().in(indexed("outputs", k));
  }
  for (size_t c = 0; c < plan.chains.size(); ++c) {
    const auto& chain = plan.chains[c];
    for (size_t i = 0; i < chain.instructions.size(); ++i) {
      auto where = indexed("chains", c) + "." + indexed("instructions", i);
      Status s = std::visit(
          [&](const auto& instr) -> Status {
            using T = std::decay_t<decltype(instr)>;
            if constexpr (std::is_same_v<T, KernelCall>) {
              if (instr.op_index < 0 || size_t(instr.op_index) >= plan.operators.size()) {
                return bad_input("op_index " + std::to_string(instr.op_index) + " out of range (" +
                                 std::to_string(plan.operators.size()) + " operators)");
              }
              for (auto a : instr.args) ETKIT_TRY(check_value_index(a, n, "argument"));
            } else if constexpr (std::is_same_v<T, DelegateCall>) {
              for (auto a : instr.args) ETKIT_TRY(check_value_index(a, n, "argument"));
            } else if constexpr (std::is_same_v<T, MoveCall>) {
              ETKIT_TRY(check_value_index(instr.move_from, n, "move_from"));
              ETKIT_TRY(check_value_index(instr.move_to, n, "move_to"));
            } else if constexpr (std::is_same_v<T, JumpFalseCall>) {
              ETKIT_TRY(check_value_index(instr.cond_value_index, n, "cond_value_index"));
            } else {
              ETKIT_TRY(check_value_index(instr.value_index, n, "value_index"));
            }
            return {};
          },
          chain.instructions[i]);
      if (!s) return std::move(s).error().in(where);
    }
  }
  return {};
}

Result<ExecutionPlan> convert_plan(const fb::ExecutionPlan& p) {
  ExecutionPlan plan;
  if (!p.name()) return bad_input("missing name");
  plan.name = p.name()->str();
  if (const auto* meta = p.container_meta_type()) {
    plan.encoded_inp_str = opt_string(meta->encoded_inp_str());
    plan.encoded_out_str = opt_string(meta->encoded_out_str());
  }
  if (p.values()) {
    plan.values.reserve(p.values()->size());
    for (flatbuffers::uoffset_t i = 0; i < p.values()->size(); ++i) {
      auto v = convert_value(*p.values()->Get(i));
      if (!v) return std::move(v).error().in(indexed("values", i));
      plan.values.push_back(std::move(v).value());
    }
  }
  plan.inputs = vec(p.inputs());
  plan.outputs = vec(p.outputs());
  if (p.chains()) {
    for (flatbuffers::uoffset_t c = 0; c < p.chains()->size(); ++c) {
      const auto* fc = p.chains()->Get(c);
      Chain chain;
      chain.inputs = vec(fc->inputs());
      chain.outputs = vec(fc->outputs());
      if (fc->instructions()) {
        chain.instructions.reserve(fc->instructions()->size());
        for (flatbuffers::uoffset_t i = 0; i < fc->instructions()->size(); ++i) {
          auto instr = convert_instruction(*fc->instructions()->Get(i));
          if (!instr) {
            return std::move(instr).error().in(indexed("chains", c) + "." + indexed("instructions", i));
          }
          chain.instructions.push_back(std::move(instr).value());
        }
      }
      if (fc->stacktrace()) {
        for (const auto* frames : *fc->stacktrace()) {
          std::vector<Frame> list;
          if (frames && frames->items()) {
            for (const auto* f : *frames->items()) {
              list.push_back(Frame{str(f->filename()), f->lineno(), str(f->name()), str(f->context())});
            }
          }
          chain.stacktrace.push_back(std::move(list));
        }
      }
      plan.chains.push_back(std::move(chain));
    }
  }
  if (p.operators()) {
    for (const auto* op : *p.operators()) plan.operators.push_back(Operator{str(op->name()), str(op->overload())});
  }
  if (p.delegates()) {
    for (const auto* d : *p.delegates()) {
      BackendDelegate delegate;
      delegate.id = str(d->id());
      if (const auto* ref = d->processed()) {
        delegate.location = static_cast<DataLocation>(ref->location());
        delegate.index = ref->index();
      }
      if (d->compile_specs()) {
        for (const auto* spec : *d->compile_specs()) {
          delegate.compile_specs.push_back(CompileSpec{str(spec->key()), vec(spec->value())});
        }
      }
      plan.delegates.push_back(std::move(delegate));
    }
  }
  plan.non_const_buffer_sizes = vec(p.non_const_buffer_sizes());
  if (p.non_const_buffer_device()) {
    for (const auto* d : *p.non_const_buffer_device()) {
      plan.non_const_buffer_device.push_back(
          NonConstBufferDevice{d->buffer_idx(), static_cast<int8_t>(d->device_type()), d->device_index()});
    }
  }
  ETKIT_TRY(validate_plan(plan));
  return plan;
}

Status validate_program_references(const Program& program) {
  const size_t num_segments = program.segments.size();
  if (program.constant_segment && program.constant_segment->offsets.size() > 1) {
    const auto& cs = *program.constant_segment;
    if (cs.segment_index >= num_segments) {
      return bad_input("segment_index " + std::to_string(cs.segment_index) + " out of range (" +
                       std::to_string(num_segments) + " segments)", "constant_segment");
    }
    const uint64_t size = program.segments[cs.segment_index].size;
    for (size_t k = 0; k < cs.offsets.size(); ++k) {
      if (cs.offsets[k] > size) {
        return bad_input("offset " + std::to_string(cs.offsets[k]) + " beyond the segment's " +
                         std::to_string(size) + " bytes", "constant_segment." + indexed("offsets", k));
      }
    }
  }
  for (size_t m = 0; m < program.mutable_data_segments.size(); ++m) {
    const auto& ms = program.mutable_data_segments[m];
    if (ms.offsets.size() > 1 && ms.segment_index >= num_segments) {
      return bad_input("segment_index " + std::to_string(ms.segment_index) + " out of range (" +
                       std::to_string(num_segments) + " segments)", indexed("mutable_data_segments", m));
    }
  }
  for (size_t k = 0; k < program.named_data.size(); ++k) {
    if (program.named_data[k].segment_index >= num_segments) {
      return bad_input("segment_index " + std::to_string(program.named_data[k].segment_index) +
                       " out of range (" + std::to_string(num_segments) + " segments)", indexed("named_data", k));
    }
  }
  for (size_t p = 0; p < program.execution_plan.size(); ++p) {
    const auto& plan = program.execution_plan[p];
    for (size_t d = 0; d < plan.delegates.size(); ++d) {
      const auto& delegate = plan.delegates[d];
      const size_t limit = delegate.location == DataLocation::kInline ? program.backend_delegate_data.size()
                                                                       : num_segments;
      if (delegate.location != DataLocation::kInline && delegate.location != DataLocation::kSegment) {
        return bad_input("unknown data location " + std::to_string(int(delegate.location)),
                         indexed("execution_plan", p) + "." + indexed("delegates", d) + ".processed");
      }
      if (delegate.index >= limit) {
        return bad_input(std::string(delegate.location == DataLocation::kInline ? "inline" : "segment") +
                             " index " + std::to_string(delegate.index) + " out of range (" +
                             std::to_string(limit) + " entries)",
                         indexed("execution_plan", p) + "." + indexed("delegates", d) + ".processed");
      }
    }
  }
  return {};
}

}  // namespace

Result<std::optional<ExtendedHeader>> read_extended_header(ByteSpan file) {
  if (!in_bounds(kHeaderOffset, 8, file.size()) ||
      std::string_view(reinterpret_cast<const char*>(file.data() + kHeaderOffset), 4) != "eh00") {
    return std::optional<ExtendedHeader>();
  }
  ExtendedHeader h;
  h.length = load_u32_le(file.data() + kHeaderOffset + 4);
  if (h.length < kMinHeaderLength) {
    return bad_input("length " + std::to_string(h.length) + " is below the minimum of 24", "extended_header");
  }
  const uint64_t needed = h.length >= 32 ? 32 : 24;
  if (!in_bounds(kHeaderOffset, needed, file.size())) {
    return bad_input("file ends inside the extended header", "extended_header");
  }
  h.program_size = load_u64_le(file.data() + kHeaderOffset + 8);
  h.segment_base_offset = load_u64_le(file.data() + kHeaderOffset + 16);
  if (h.length >= 32) h.segment_data_size = load_u64_le(file.data() + kHeaderOffset + 24);
  if (h.program_size > file.size()) {
    return bad_input("program_size " + std::to_string(h.program_size) + " exceeds the file size " +
                     std::to_string(file.size()), "extended_header");
  }
  if (!in_bounds(h.segment_base_offset, h.segment_data_size, file.size())) {
    return bad_input("segments end at " + std::to_string(h.segment_base_offset + h.segment_data_size) +
                     " beyond the file size " + std::to_string(file.size()), "extended_header");
  }
  return std::optional<ExtendedHeader>(h);
}

Result<Program> read_program(ByteSpan file, std::shared_ptr<const void> keepalive) {
  if (file.size() < 8) return bad_input("too short for a program (" + std::to_string(file.size()) + " bytes)");
  const std::string id = identifier_at(file, 4);
  if (id != kProgramIdentifier) {
    if (id.rfind("ET", 0) == 0) {
      return unsupported("program identifier '" + id + "' is not supported (supported: ET12)");
    }
    return bad_input("not an ExecuTorch program (identifier '" + id + "', expected 'ET12')");
  }
  ETKIT_ASSIGN_OR_RETURN(auto header, read_extended_header(file));
  const ByteSpan region = header ? file.first(header->program_size) : file;
  ETKIT_TRY(verify_flatbuffer(region, "program", [](flatbuffers::Verifier& v) {
    return v.VerifyBuffer<fb::Program>(kProgramIdentifier.data());
  }));
  const fb::Program* root = fb::GetProgram(region.data());

  Program program;
  program.version = root->version();
  program.extended_header = header;
  program.storage = std::move(keepalive);
  if (root->execution_plan()) {
    for (flatbuffers::uoffset_t p = 0; p < root->execution_plan()->size(); ++p) {
      auto plan = convert_plan(*root->execution_plan()->Get(p));
      if (!plan) return std::move(plan).error().in(indexed("execution_plan", p));
      program.execution_plan.push_back(std::move(plan).value());
    }
  }
  if (root->constant_buffer()) {
    for (const auto* b : *root->constant_buffer()) {
      program.constant_buffer.push_back(b->storage() ? ByteSpan(b->storage()->data(), b->storage()->size()) : ByteSpan());
    }
  }
  if (root->backend_delegate_data()) {
    for (const auto* d : *root->backend_delegate_data()) {
      program.backend_delegate_data.push_back(d->data() ? ByteSpan(d->data()->data(), d->data()->size()) : ByteSpan());
    }
  }
  if (root->segments()) {
    for (flatbuffers::uoffset_t s = 0; s < root->segments()->size(); ++s) {
      const auto* seg = root->segments()->Get(s);
      program.segments.push_back(DataSegment{seg->offset(), seg->size()});
      ByteSpan data;
      if (header && header->segment_base_offset != 0) {
        const uint64_t base = header->segment_base_offset;
        if (seg->offset() > file.size() || !in_bounds(base + seg->offset(), seg->size(), file.size()) ||
            base > file.size()) {
          return bad_input("segment [" + std::to_string(seg->offset()) + ", +" + std::to_string(seg->size()) +
                           ") at base " + std::to_string(base) + " lies beyond the file size " +
                           std::to_string(file.size()), indexed("segments", s));
        }
        data = file.subspan(base + seg->offset(), seg->size());
      } else if (seg->size() != 0) {
        // Data can only be located through the extended header.
        data = ByteSpan();
      }
      program.segment_data.push_back(data);
    }
  }
  auto convert_subsegment = [](const fb::SubsegmentOffsets& s) {
    return SubsegmentOffsets{s.segment_index(), vec(s.offsets())};
  };
  if (root->constant_segment()) program.constant_segment = convert_subsegment(*root->constant_segment());
  if (root->mutable_data_segments()) {
    for (const auto* s : *root->mutable_data_segments()) program.mutable_data_segments.push_back(convert_subsegment(*s));
  }
  if (root->named_data()) {
    for (const auto* nd : *root->named_data()) program.named_data.push_back(NamedData{str(nd->key()), nd->segment_index()});
  }
  ETKIT_TRY(validate_program_references(program));
  return program;
}

Result<Program> read_program(std::shared_ptr<const InputFile> file) {
  ByteSpan bytes = file->bytes();
  auto program = read_program(bytes, file);
  if (!program) return std::move(program).error().at_file(file->path());
  return program;
}

const ExecutionPlan* Program::find_method(std::string_view name) const {
  for (const auto& plan : execution_plan) {
    if (plan.name == name) return &plan;
  }
  return nullptr;
}

}  // namespace etkit::pte
