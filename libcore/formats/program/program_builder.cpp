#include "libcore/formats/program/program_builder.h"

#include <cstring>
#include <numeric>

namespace etkit::pte {
namespace {
constexpr uint64_t kTensorAlignment = 16;  // exir/tensor.py ALIGNMENT
}

MethodBuilder::MethodBuilder(ProgramBuilder& owner, std::string name) : owner_(owner) {
  plan_.name = std::move(name);
  plan_.chains.emplace_back();
  plan_.non_const_buffer_sizes = {0, 0};
}

int32_t MethodBuilder::push(EValue v) {
  plan_.values.push_back(std::move(v));
  return static_cast<int32_t>(plan_.values.size() - 1);
}

int32_t MethodBuilder::add_null() { return push(Null{}); }
int32_t MethodBuilder::add_int(int64_t v) { return push(Int{v}); }
int32_t MethodBuilder::add_double(double v) { return push(Double{v}); }
int32_t MethodBuilder::add_bool(bool v) { return push(Bool{v}); }
int32_t MethodBuilder::add_string(std::string v) { return push(String{std::move(v)}); }
int32_t MethodBuilder::add_double_list(std::vector<double> values) { return push(DoubleList{std::move(values)}); }
int32_t MethodBuilder::add_bool_list(std::vector<bool> values) { return push(BoolList{std::move(values)}); }
int32_t MethodBuilder::add_tensor_list(std::vector<int32_t> items) { return push(TensorList{std::move(items)}); }
int32_t MethodBuilder::add_optional_tensor_list(std::vector<int32_t> items) {
  return push(OptionalTensorList{std::move(items)});
}

int32_t MethodBuilder::add_int_list(const std::vector<int64_t>& values) {
  IntList list;
  for (int64_t v : values) list.items.push_back(add_int(v));
  return push(std::move(list));
}

Tensor MethodBuilder::make_tensor(ScalarType type, std::vector<int32_t> sizes, std::vector<uint8_t> dim_order) const {
  Tensor t;
  t.scalar_type = static_cast<int8_t>(type);
  if (dim_order.empty()) {
    dim_order.resize(sizes.size());
    std::iota(dim_order.begin(), dim_order.end(), uint8_t{0});
  }
  t.sizes = std::move(sizes);
  t.dim_order = std::move(dim_order);
  return t;
}

static uint64_t nbytes_of(ScalarType type, const std::vector<int32_t>& sizes) {
  uint64_t n = element_size(static_cast<int>(type)).value_or(1);
  for (int32_t s : sizes) n *= static_cast<uint64_t>(s);
  return n;
}

int32_t MethodBuilder::add_constant_tensor(ScalarType type, std::vector<int32_t> sizes, ByteSpan data) {
  Tensor t = make_tensor(type, std::move(sizes), {});
  t.data_buffer_idx = owner_.add_constant(data);
  return push(std::move(t));
}

int32_t MethodBuilder::add_constant_tensor(std::vector<int32_t> sizes, const std::vector<float>& data) {
  return add_constant_tensor(ScalarType::kFloat, std::move(sizes),
                             ByteSpan(reinterpret_cast<const uint8_t*>(data.data()), data.size() * sizeof(float)));
}

int32_t MethodBuilder::add_planned_tensor(ScalarType type, std::vector<int32_t> sizes, ShapeDynamism dynamism) {
  const uint64_t offset = align_up(arena_used_, kTensorAlignment);
  const int32_t index = add_planned_tensor_at(type, std::move(sizes), offset);
  std::get<Tensor>(plan_.values[size_t(index)]).shape_dynamism = dynamism;
  return index;
}

int32_t MethodBuilder::add_planned_tensor_at(ScalarType type, std::vector<int32_t> sizes, uint64_t offset,
                                             std::vector<uint8_t> dim_order) {
  const uint64_t end = offset + nbytes_of(type, sizes);
  Tensor t = make_tensor(type, std::move(sizes), std::move(dim_order));
  t.allocation_info = AllocationDetails{1, offset};
  arena_used_ = std::max(arena_used_, end);
  plan_.non_const_buffer_sizes[1] = static_cast<int64_t>(align_up(arena_used_, kTensorAlignment));
  return push(std::move(t));
}

int32_t MethodBuilder::add_unplanned_tensor(ScalarType type, std::vector<int32_t> sizes) {
  return push(make_tensor(type, std::move(sizes), {}));
}

void MethodBuilder::kernel_call(const std::string& name, const std::string& overload, std::vector<int32_t> args) {
  int32_t op_index = -1;
  for (size_t i = 0; i < plan_.operators.size(); ++i) {
    if (plan_.operators[i].name == name && plan_.operators[i].overload == overload) op_index = static_cast<int32_t>(i);
  }
  if (op_index < 0) {
    plan_.operators.push_back(Operator{name, overload});
    op_index = static_cast<int32_t>(plan_.operators.size() - 1);
  }
  plan_.chains[0].instructions.push_back(KernelCall{op_index, std::move(args)});
}

int32_t MethodBuilder::add_delegate(std::string id, std::vector<uint8_t> blob, std::vector<CompileSpec> specs) {
  owner_.delegate_blobs_.push_back(std::move(blob));
  BackendDelegate d;
  d.id = std::move(id);
  d.location = DataLocation::kInline;
  d.index = static_cast<uint32_t>(owner_.delegate_blobs_.size() - 1);
  d.compile_specs = std::move(specs);
  plan_.delegates.push_back(std::move(d));
  return static_cast<int32_t>(plan_.delegates.size() - 1);
}

void MethodBuilder::delegate_call(int32_t delegate_index, std::vector<int32_t> args) {
  plan_.chains[0].instructions.push_back(DelegateCall{delegate_index, std::move(args)});
}
void MethodBuilder::move(int32_t from, int32_t to) { plan_.chains[0].instructions.push_back(MoveCall{from, to}); }
void MethodBuilder::jump_false(int32_t cond, int32_t destination) {
  plan_.chains[0].instructions.push_back(JumpFalseCall{cond, destination});
}
void MethodBuilder::free_value(int32_t value) { plan_.chains[0].instructions.push_back(FreeCall{value}); }

ProgramBuilder::ProgramBuilder() = default;

MethodBuilder& ProgramBuilder::add_method(std::string name) {
  methods_.push_back(MethodBuilder(*this, std::move(name)));
  return methods_.back();
}

uint32_t ProgramBuilder::add_constant(ByteSpan data) {
  // Entries are padded to the tensor alignment; the last one is not.
  const uint64_t offset = constant_offsets_.size() == 1 ? 0 : align_up(constants_.size(), kTensorAlignment);
  constants_.resize(offset, 0);
  constants_.insert(constants_.end(), data.begin(), data.end());
  constant_offsets_.push_back(offset);
  return static_cast<uint32_t>(constant_offsets_.size() - 1);
}

Program ProgramBuilder::build() {
  struct Storage {
    std::vector<uint8_t> constants;
    std::vector<std::vector<uint8_t>> blobs;
  };
  auto storage = std::make_shared<Storage>(Storage{constants_, delegate_blobs_});
  Program program;
  for (const auto& m : methods_) program.execution_plan.push_back(m.plan_);
  // The constant segment is always emitted, even with only the placeholder
  // (then 0 bytes), as the ExecuTorch serializer does.
  program.segment_data.push_back(ByteSpan(storage->constants));
  program.constant_segment = SubsegmentOffsets{0, constant_offsets_};
  for (const auto& blob : storage->blobs) program.backend_delegate_data.push_back(ByteSpan(blob));
  program.storage = storage;
  return program;
}

}  // namespace etkit::pte
