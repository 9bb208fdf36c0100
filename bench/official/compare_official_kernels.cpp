// Our portable kernels against ExecuTorch's portable kernels on the shapes of
// the fixtures' programs (issue #15). Built only by
// scripts/compare_official_kernels.sh, against the user's ExecuTorch checkout
// (ETKIT_OFFICIAL_EXECUTORCH_DIR): the official operators are called as
// functions (the codegen'd registration is not needed to time them), ours
// through a one-instruction program and execute(), as et-run calls them.
// Both sides get the same input bytes; outputs are compared (byte for byte,
// or within 1e-5 for sums) before anything is timed. Exit 0: every case as
// fast (within the tolerance), 1: some case slower, an output different or
// a kernel failing, 2: bad usage.
#include <executorch/runtime/kernel/kernel_includes.h>
#include <executorch/runtime/platform/runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "libcore/formats/program/program_builder.h"
#include "libcore/formats/program/program_reader.h"
#include "libcore/formats/program/program_writer.h"
#include "runner/executor.h"

// The official operators, declared with the signatures of
// kernels/portable/cpu/op_*.cpp (normally generated into NativeFunctions.h).
namespace torch::executor::native {
using executorch::aten::ArrayRef;
using executorch::aten::IntArrayRef;
using executorch::aten::MemoryFormat;
using executorch::aten::Scalar;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;
Tensor& relu_out(KernelRuntimeContext&, const Tensor&, Tensor&);
Tensor& add_out(KernelRuntimeContext&, const Tensor&, const Tensor&, const Scalar&, Tensor&);
Tensor& mul_out(KernelRuntimeContext&, const Tensor&, const Tensor&, Tensor&);
Tensor& convolution_out(KernelRuntimeContext&, const Tensor&, const Tensor&, const std::optional<Tensor>&,
                        IntArrayRef, IntArrayRef, IntArrayRef, bool, IntArrayRef, int64_t, Tensor&);
std::tuple<Tensor&, Tensor&> max_pool2d_with_indices_out(KernelRuntimeContext&, const Tensor&, IntArrayRef,
                                                         IntArrayRef, IntArrayRef, IntArrayRef, bool, Tensor&,
                                                         Tensor&);
Tensor& permute_copy_out(KernelRuntimeContext&, const Tensor&, IntArrayRef, Tensor&);
Tensor& addmm_out(KernelRuntimeContext&, const Tensor&, const Tensor&, const Tensor&, const Scalar&, const Scalar&,
                  Tensor&);
Tensor& softmax_out(KernelRuntimeContext&, const Tensor&, int64_t, bool, Tensor&);
Tensor& index_Tensor_out(KernelRuntimeContext&, const Tensor&, ArrayRef<std::optional<Tensor>>, Tensor&);
Tensor& slice_copy_Tensor_out(KernelRuntimeContext&, const Tensor&, int64_t, std::optional<int64_t>,
                              std::optional<int64_t>, int64_t, Tensor&);
Tensor& to_copy_out(KernelRuntimeContext&, const Tensor&, bool, std::optional<MemoryFormat>, Tensor&);
Tensor& arange_start_out(KernelRuntimeContext&, const Scalar&, const Scalar&, const Scalar&, Tensor&);
Tensor& unsqueeze_copy_out(KernelRuntimeContext&, const Tensor&, int64_t, Tensor&);
Tensor& select_copy_int_out(KernelRuntimeContext&, const Tensor&, int64_t, int64_t, Tensor&);
Tensor& index_select_out(KernelRuntimeContext&, const Tensor&, int64_t, const Tensor&, Tensor&);
Tensor& clone_out(KernelRuntimeContext&, const Tensor&, std::optional<MemoryFormat>, Tensor&);
Tensor& mean_dim_out(KernelRuntimeContext&, const Tensor&, std::optional<ArrayRef<int64_t>>, bool,
                     std::optional<executorch::aten::ScalarType>, Tensor&);
Tensor& sum_dim_out(KernelRuntimeContext&, const Tensor&, std::optional<ArrayRef<int64_t>>, bool,
                    std::optional<executorch::aten::ScalarType>, Tensor&);
Tensor& mm_out(KernelRuntimeContext&, const Tensor&, const Tensor&, Tensor&);
Tensor& where_out(KernelRuntimeContext&, const Tensor&, const Tensor&, const Tensor&, Tensor&);
Tensor& eq_scalar_out(KernelRuntimeContext&, const Tensor&, const Scalar&, Tensor&);
Tensor& clamp_out(KernelRuntimeContext&, const Tensor&, const std::optional<Scalar>&, const std::optional<Scalar>&,
                  Tensor&);
Tensor& _to_dim_order_copy_out(KernelRuntimeContext&, const Tensor&, bool, std::optional<ArrayRef<int64_t>>, Tensor&);
Tensor& neg_out(KernelRuntimeContext&, const Tensor&, Tensor&);
Tensor& sub_out(KernelRuntimeContext&, const Tensor&, const Tensor&, const Scalar&, Tensor&);
Tensor& view_copy_out(KernelRuntimeContext&, const Tensor&, ArrayRef<int64_t>, Tensor&);
Tensor& full_like_out(KernelRuntimeContext&, const Tensor&, const Scalar&, std::optional<MemoryFormat>, Tensor&);
Tensor& expand_copy_out(KernelRuntimeContext&, const Tensor&, ArrayRef<int64_t>, bool, Tensor&);

}  // namespace torch::executor::native

namespace {

namespace off = torch::executor::native;
using OffTensor = executorch::aten::Tensor;
using OffImpl = executorch::runtime::etensor::TensorImpl;
using OffContext = executorch::runtime::KernelRuntimeContext;
using etkit::ScalarType;

size_t element_size(ScalarType t) {
  switch (t) {
    case ScalarType::kLong: case ScalarType::kDouble: return 8;
    case ScalarType::kBool: case ScalarType::kByte: case ScalarType::kChar: return 1;
    default: return 4;
  }
}

// A tensor's description and its bytes (inputs) or room (outputs).
struct Spec {
  ScalarType dtype;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> bytes;  // inputs only
  int64_t numel() const {
    int64_t n = 1;
    for (int32_t s : sizes) n *= s;
    return n;
  }
  size_t nbytes() const { return size_t(numel()) * element_size(dtype); }
};

// Mixed signs, no two neighbours equal, no ties that would make max pooling's
// reported index depend on the scan order.
Spec floats(std::vector<int32_t> sizes, uint32_t seed) {
  Spec s{ScalarType::kFloat, std::move(sizes), {}};
  std::vector<float> v(size_t(s.numel()));
  uint32_t x = seed * 2654435761u + 12345u;
  for (float& f : v) {
    x = x * 1664525u + 1013904223u;
    f = float(int32_t(x >> 8) % 2000001 - 1000000) / 250000.0f;
  }
  s.bytes.assign(reinterpret_cast<const uint8_t*>(v.data()), reinterpret_cast<const uint8_t*>(v.data() + v.size()));
  return s;
}

// Every `every`-th float (from the fourth) a NaN with its own payload: the
// outputs then show the NaN rule, down to which NaN's bits come out.
Spec with_nans(Spec s, size_t every) {
  for (size_t i = 3; i < s.bytes.size() / 4; i += every) {
    const uint32_t b = 0x7fc00000u | uint32_t(i & 0x3fffff);
    std::memcpy(s.bytes.data() + 4 * i, &b, 4);
  }
  return s;
}

Spec longs(std::vector<int32_t> sizes, const std::vector<int64_t>& v) {
  Spec s{ScalarType::kLong, std::move(sizes), {}};
  s.bytes.assign(reinterpret_cast<const uint8_t*>(v.data()), reinterpret_cast<const uint8_t*>(v.data() + v.size()));
  return s;
}

Spec out_spec(ScalarType t, std::vector<int32_t> sizes) { return Spec{t, std::move(sizes), {}}; }

// One official tensor over caller-owned bytes (contiguous, static shape).
struct OffHolder {
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  std::vector<int32_t> strides;
  std::unique_ptr<OffImpl> impl;
  std::unique_ptr<OffTensor> tensor;
  OffHolder(const Spec& s, void* data) : sizes(s.sizes), dim_order(s.sizes.size()), strides(s.sizes.size()) {
    int32_t stride = 1;
    for (size_t d = sizes.size(); d-- > 0;) {
      dim_order[d] = uint8_t(d);
      strides[d] = stride;
      stride *= sizes[d];
    }
    impl = std::make_unique<OffImpl>(static_cast<executorch::aten::ScalarType>(s.dtype), ssize_t(sizes.size()),
                                     sizes.data(), data, dim_order.data(), strides.data());
    tensor = std::make_unique<OffTensor>(impl.get());
  }
};

// Our side's arguments, in schema order (the return slot is appended).
struct Arg {
  enum Kind { kIn, kOut, kInt, kIntList, kBool, kDouble, kNone, kOptTensors } kind = kNone;
  int64_t i = 0;
  std::vector<int64_t> list;  // int list, or input indices (kOptTensors; -1 for None)
  double d = 0;
};
Arg arg(Arg::Kind kind, int64_t i = 0, std::vector<int64_t> list = {}, double d = 0) {
  Arg a;
  a.kind = kind;
  a.i = i;
  a.list = std::move(list);
  a.d = d;
  return a;
}
Arg in(int k) { return arg(Arg::kIn, k); }
Arg out(int k) { return arg(Arg::kOut, k); }
Arg i64(int64_t v) { return arg(Arg::kInt, v); }
Arg ints(std::vector<int64_t> v) { return arg(Arg::kIntList, 0, std::move(v)); }
Arg boolean(bool v) { return arg(Arg::kBool, v ? 1 : 0); }
Arg none() { return arg(Arg::kNone); }
Arg tensors(std::vector<int64_t> inputs) { return arg(Arg::kOptTensors, 0, std::move(inputs)); }
Arg f64(double v) { return arg(Arg::kDouble, 0, {}, v); }

using OffCall = std::function<void(OffContext&, std::vector<OffTensor*>& in, std::vector<OffTensor*>& out)>;

struct Case {
  std::string op;     // "aten::relu.out"
  std::string where;  // "lenet_tutorial #1"
  std::string shape;  // for the table
  std::vector<Spec> inputs;
  std::vector<Spec> outputs;
  std::vector<Arg> args;
  OffCall official;
};

// Our kernel in a one-instruction program, inputs set once.
struct Ours {
  etkit::pte::Program program;
  std::vector<uint8_t> bytes;
  std::unique_ptr<etkit::rt::KernelRegistry> registry;  // the no-op frame's
  std::unique_ptr<etkit::rt::LoadedMethod> method;
};

std::string describe(const etkit::Error& e) { return e.describe(); }

// The operator's own registration (name, argument count, out arguments)
// with a kernel that does nothing: the same instruction through it costs
// what execute() adds around the kernel (argument checks included), which
// the official side, called directly, does not pay.
std::unique_ptr<etkit::rt::KernelRegistry> noop_registry(const std::string& op) {
  const etkit::rt::KernelInfo* real = etkit::rt::portable_kernel_registry().find(op);
  if (!real) return nullptr;
  etkit::rt::KernelInfo noop = *real;
  noop.fn = [](etkit::rt::KernelContext&, std::span<etkit::rt::EValue* const>) -> etkit::Status { return {}; };
  auto registry = std::make_unique<etkit::rt::KernelRegistry>();
  if (!registry->add(std::move(noop))) return nullptr;
  return registry;
}

std::unique_ptr<Ours> build_ours(const Case& c, std::string& error, bool noop = false) {
  using namespace etkit;
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  std::vector<int32_t> in_ids, out_ids, call;
  for (const Spec& s : c.inputs) in_ids.push_back(m.add_planned_tensor(s.dtype, s.sizes));
  for (const Spec& s : c.outputs) out_ids.push_back(m.add_planned_tensor(s.dtype, s.sizes));
  int32_t ret = -1;
  for (const Arg& a : c.args) {
    switch (a.kind) {
      case Arg::kIn: call.push_back(in_ids[size_t(a.i)]); break;
      case Arg::kOut:
        call.push_back(out_ids[size_t(a.i)]);
        ret = out_ids[size_t(a.i)];
        break;
      case Arg::kInt: call.push_back(m.add_int(a.i)); break;
      case Arg::kIntList: call.push_back(m.add_int_list(a.list)); break;
      case Arg::kBool: call.push_back(m.add_bool(a.i != 0)); break;
      case Arg::kDouble: call.push_back(m.add_double(a.d)); break;
      case Arg::kNone: call.push_back(m.add_null()); break;
      case Arg::kOptTensors: {
        std::vector<int32_t> ids;
        for (int64_t k : a.list) ids.push_back(k < 0 ? m.add_null() : in_ids[size_t(k)]);
        call.push_back(m.add_optional_tensor_list(ids));
        break;
      }
    }
  }
  call.push_back(ret);  // the return slot, as the exporter writes it
  const auto dot = c.op.find('.');
  m.kernel_call(c.op.substr(0, dot), c.op.substr(dot + 1), call);
  m.set_inputs(in_ids);
  m.set_outputs(out_ids);
  auto ours = std::make_unique<Ours>();
  auto bytes = pte::write_program(b.build());
  if (!bytes) return error = describe(bytes.error()), nullptr;
  ours->bytes = std::move(bytes.value());
  auto program = pte::read_program(ByteSpan(ours->bytes), nullptr);
  if (!program) return error = describe(program.error()), nullptr;
  ours->program = std::move(program.value());
  rt::LoadOptions options;
  if (noop) {
    ours->registry = noop_registry(c.op);
    if (!ours->registry) return error = c.op + " is not a registered portable kernel", nullptr;
  }
  options.kernels = noop ? ours->registry.get() : &rt::portable_kernel_registry();
  auto method = rt::load_method(ours->program, "forward", options);
  if (!method) return error = describe(method.error()), nullptr;
  ours->method = std::move(method.value());
  for (size_t k = 0; k < c.inputs.size(); ++k) {
    const Spec& s = c.inputs[k];
    auto st = ours->method->set_input_tensor(k, s.dtype, s.sizes, ByteSpan(s.bytes.data(), s.bytes.size()));
    if (!st) return error = describe(st.error()), nullptr;
  }
  return ours;
}

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Calls `call` enough times to last about 20 us (so that the clock's own
// cost and resolution stay out of the small operators' figures), after a
// warm-up.
template <typename F>
int batch_size(F&& call) {
  for (int k = 0; k < 3; ++k) call();
  int batch = 1;
  for (;;) {
    const double a = now_us();
    for (int k = 0; k < batch; ++k) call();
    if (now_us() - a >= 20 || batch >= (1 << 20)) return batch;
    batch *= 2;
  }
}

// Medians of the time per call of each function, over rounds that time one
// batch of each in turn: on a shared machine the load changes within
// seconds, and interleaving gives every side the same share of it. At
// least 7 rounds, at most 2000, as many as fit in `budget_us` per side.
std::vector<double> interleaved_medians(const std::vector<std::function<void()>>& calls, double budget_us) {
  std::vector<int> batch;
  for (const auto& call : calls) batch.push_back(batch_size(call));
  std::vector<std::vector<double>> t(calls.size());
  const double start = now_us();
  while (t[0].size() < 7 || (t[0].size() < 2000 && now_us() - start < budget_us * double(calls.size()))) {
    for (size_t c = 0; c < calls.size(); ++c) {
      const double a = now_us();
      for (int k = 0; k < batch[c]; ++k) calls[c]();
      t[c].push_back((now_us() - a) / batch[c]);
    }
  }
  std::vector<double> medians;
  for (auto& v : t) {
    std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
    medians.push_back(v[v.size() / 2]);
  }
  return medians;
}

std::vector<Case> fixture_cases() {
  using S = std::vector<int32_t>;
  std::vector<Case> cases;
  auto relu = [&](std::string where, S shape) {
    Case c{"aten::relu.out", std::move(where), "", {floats(shape, 1)}, {out_spec(ScalarType::kFloat, shape)},
           {in(0), out(0)}, [](OffContext& ctx, auto& i, auto& o) { off::relu_out(ctx, *i[0], *o[0]); }};
    cases.push_back(std::move(c));
  };
  relu("lenet_tutorial #1", {1, 6, 28, 28});
  relu("lenet_tutorial #8", {1, 120});
  relu("din_model #1", {1, 16, 256, 256});

  cases.push_back({"aten::add.out", "diamond #0 (add.out form)", "", {floats({1, 4}, 2), floats({1, 4}, 3)},
                   {out_spec(ScalarType::kFloat, {1, 4})}, {in(0), in(1), i64(1), out(0)},
                   [](OffContext& ctx, auto& i, auto& o) { off::add_out(ctx, *i[0], *i[1], int64_t(1), *o[0]); }});
  cases.push_back({"aten::mul.out", "diamond #1 (mul.out form)", "", {floats({1, 4}, 4), floats({}, 5)},
                   {out_spec(ScalarType::kFloat, {1, 4})}, {in(0), in(1), out(0)},
                   [](OffContext& ctx, auto& i, auto& o) { off::mul_out(ctx, *i[0], *i[1], *o[0]); }});

  auto conv = [&](std::string where, S x, S w, S y, int64_t stride, int64_t pad) {
    const int32_t oc = w[0];
    Case c{"aten::convolution.out", std::move(where), "", {floats(x, 6), floats(w, 7), floats({oc}, 8)},
           {out_spec(ScalarType::kFloat, y)},
           {in(0), in(1), in(2), ints({stride, stride}), ints({pad, pad}), ints({1, 1}), boolean(false), ints({0, 0}),
            i64(1), out(0)},
           [stride, pad](OffContext& ctx, auto& i, auto& o) {
             const int64_t s[2] = {stride, stride}, p[2] = {pad, pad}, d[2] = {1, 1}, op[2] = {0, 0};
             off::convolution_out(ctx, *i[0], *i[1], std::optional<OffTensor>(*i[2]), {s, 2}, {p, 2}, {d, 2}, false,
                                  {op, 2}, 1, *o[0]);
           }};
    cases.push_back(std::move(c));
  };
  conv("lenet_tutorial #0", {1, 1, 32, 32}, {6, 1, 5, 5}, {1, 6, 28, 28}, 1, 0);
  conv("lenet_tutorial #3", {1, 6, 14, 14}, {16, 6, 5, 5}, {1, 16, 10, 10}, 1, 0);
  conv("din_model #0", {1, 3, 256, 256}, {16, 3, 3, 3}, {1, 16, 256, 256}, 1, 1);

  auto pool = [&](std::string where, S x, S y, int64_t k, int64_t stride, int64_t pad, size_t nan_every = 0) {
    Case c{"aten::max_pool2d_with_indices.out", std::move(where), "",
           {nan_every ? with_nans(floats(x, 9), nan_every) : floats(x, 9)},
           {out_spec(ScalarType::kFloat, y), out_spec(ScalarType::kLong, y)},
           {in(0), ints({k, k}), ints({stride, stride}), ints({pad, pad}), ints({1, 1}), boolean(false), out(0),
            out(1)},
           [k, stride, pad](OffContext& ctx, auto& i, auto& o) {
             const int64_t kk[2] = {k, k}, s[2] = {stride, stride}, p[2] = {pad, pad}, d[2] = {1, 1};
             off::max_pool2d_with_indices_out(ctx, *i[0], {kk, 2}, {s, 2}, {p, 2}, {d, 2}, false, *o[0], *o[1]);
           }};
    cases.push_back(std::move(c));
  };
  pool("lenet_tutorial #2", {1, 6, 28, 28}, {1, 6, 14, 14}, 2, 2, 0);
  pool("lenet_tutorial #5", {1, 16, 10, 10}, {1, 16, 5, 5}, 2, 2, 0);
  pool("maxpool2d #0", {1, 64, 112, 112}, {1, 64, 56, 56}, 3, 2, 1);
  // NaNs every 5th element: in 2x2 and 3x3 windows they fall on first and
  // later taps alike.
  pool("lenet_tutorial #5 (NaN every 5th)", {1, 16, 10, 10}, {1, 16, 5, 5}, 2, 2, 0, 5);
  pool("maxpool2d #0 (NaN every 5th)", {1, 64, 112, 112}, {1, 64, 56, 56}, 3, 2, 1, 5);

  auto permute = [&](std::string where, S x) {
    Case c{"aten::permute_copy.out", std::move(where), "", {floats(x, 10)},
           {out_spec(ScalarType::kFloat, {x[1], x[0]})}, {in(0), ints({1, 0}), out(0)},
           [](OffContext& ctx, auto& i, auto& o) {
             const int64_t dims[2] = {1, 0};
             off::permute_copy_out(ctx, *i[0], {dims, 2}, *o[0]);
           }};
    cases.push_back(std::move(c));
  };
  permute("lenet_tutorial #6", {120, 400});
  permute("lenet_tutorial #9", {84, 120});
  permute("lenet_tutorial #12", {10, 84});

  auto addmm = [&](std::string where, int32_t k, int32_t n) {
    Case c{"aten::addmm.out", std::move(where), "", {floats({n}, 11), floats({1, k}, 12), floats({k, n}, 13)},
           {out_spec(ScalarType::kFloat, {1, n})}, {in(0), in(1), in(2), i64(1), i64(1), out(0)},
           [](OffContext& ctx, auto& i, auto& o) {
             off::addmm_out(ctx, *i[0], *i[1], *i[2], int64_t(1), int64_t(1), *o[0]);
           }};
    cases.push_back(std::move(c));
  };
  addmm("lenet_tutorial #7", 400, 120);
  addmm("lenet_tutorial #10", 120, 84);
  addmm("lenet_tutorial #13", 84, 10);

  cases.push_back({"aten::_softmax.out", "softmax #0", "", {floats({2, 4096}, 14)},
                   {out_spec(ScalarType::kFloat, {2, 4096})}, {in(0), i64(-1), boolean(false), out(0)},
                   [](OffContext& ctx, auto& i, auto& o) { off::softmax_out(ctx, *i[0], -1, false, *o[0]); }});

  // yolox's nearest upsampling: rows [26, 1] and columns [26], each i / 2.
  auto upsample = [&](std::string where, int32_t ch, int32_t hw) {
    std::vector<int64_t> idx(size_t(2 * hw));
    for (size_t k = 0; k < idx.size(); ++k) idx[k] = int64_t(k / 2);
    Case c{"aten::index.Tensor_out", std::move(where), "",
           {floats({1, ch, hw, hw}, 15), longs({2 * hw, 1}, idx), longs({2 * hw}, idx)},
           {out_spec(ScalarType::kFloat, {1, ch, 2 * hw, 2 * hw})}, {in(0), tensors({-1, -1, 1, 2}), out(0)},
           [](OffContext& ctx, auto& i, auto& o) {
             const std::optional<OffTensor> list[4] = {std::nullopt, std::nullopt, *i[1], *i[2]};
             off::index_Tensor_out(ctx, *i[0], {list, 4}, *o[0]);
           }};
    cases.push_back(std::move(c));
  };
  upsample("yolox #16", 128, 13);
  upsample("yolox #21", 64, 26);

  auto slice = [&](std::string where, S x, int64_t dim, int64_t start) {
    S y = x;
    y[size_t(dim)] /= 2;
    Case c{"aten::slice_copy.Tensor_out", std::move(where), "", {floats(x, 16)}, {out_spec(ScalarType::kFloat, y)},
           {in(0), i64(dim), i64(start), i64(std::numeric_limits<int64_t>::max()), i64(2), out(0)},
           [dim, start](OffContext& ctx, auto& i, auto& o) {
             off::slice_copy_Tensor_out(ctx, *i[0], dim, start, std::numeric_limits<int64_t>::max(), 2, *o[0]);
           }};
    cases.push_back(std::move(c));
  };
  slice("yolox #4 (rows)", {1, 3, 416, 416}, 2, 0);
  slice("yolox #8 (columns)", {1, 3, 208, 416}, 3, 1);

  cases.push_back({"aten::_to_copy.out", "yolox #13 (FLOAT -> LONG)", "", {floats({26}, 17)},
                   {out_spec(ScalarType::kLong, {26})}, {in(0), boolean(false), none(), out(0)},
                   [](OffContext& ctx, auto& i, auto& o) { off::to_copy_out(ctx, *i[0], false, std::nullopt, *o[0]); }});
  cases.push_back({"aten::arange.start_out", "yolox #0", "", {}, {out_spec(ScalarType::kFloat, {26})},
                   {i64(0), i64(26), i64(1), out(0)},
                   [](OffContext& ctx, auto&, auto& o) {
                     off::arange_start_out(ctx, int64_t(0), int64_t(26), int64_t(1), *o[0]);
                   }});
  cases.push_back({"aten::unsqueeze_copy.out", "yolox #15", "", {longs({26}, std::vector<int64_t>(26, 3))},
                   {out_spec(ScalarType::kLong, {26, 1})}, {in(0), i64(1), out(0)},
                   [](OffContext& ctx, auto& i, auto& o) { off::unsqueeze_copy_out(ctx, *i[0], 1, *o[0]); }});
  cases.push_back({"aten::select_copy.int_out", "stress_mlp #2", "", {floats({32, 256}, 18)},
                   {out_spec(ScalarType::kFloat, {256})}, {in(0), i64(0), i64(5), out(0)},
                   [](OffContext& ctx, auto& i, auto& o) { off::select_copy_int_out(ctx, *i[0], 0, 5, *o[0]); }});
  cases.push_back({"aten::index_select.out", "stress_mlp #11", "", {floats({64, 256}, 19), longs({1}, {7})},
                   {out_spec(ScalarType::kFloat, {1, 256})}, {in(0), i64(0), in(1), out(0)},
                   [](OffContext& ctx, auto& i, auto& o) { off::index_select_out(ctx, *i[0], 0, *i[1], *o[0]); }});
  cases.push_back({"aten::clone.out", "module_model #2", "", {floats({1}, 20)}, {out_spec(ScalarType::kFloat, {1})},
                   {in(0), none(), out(0)},
                   [](OffContext& ctx, auto& i, auto& o) { off::clone_out(ctx, *i[0], std::nullopt, *o[0]); }});
  cases.push_back({"aten::mean.out", "module_model #0", "", {floats({1, 2}, 21)}, {out_spec(ScalarType::kFloat, {1})},
                   {in(0), ints({1}), boolean(false), none(), out(0)},
                   [](OffContext& ctx, auto& i, auto& o) {
                     const int64_t dims[1] = {1};
                     off::mean_dim_out(ctx, *i[0], executorch::aten::ArrayRef<int64_t>(dims, 1), false, std::nullopt,
                                       *o[0]);
                   }});
  cases.push_back({"aten::sum.IntList_out", "dnf_training #4", "", {floats({1, 100}, 22)},
                   {out_spec(ScalarType::kFloat, {100})}, {in(0), ints({0}), boolean(false), none(), out(0)},
                   [](OffContext& ctx, auto& i, auto& o) {
                     const int64_t dims[1] = {0};
                     off::sum_dim_out(ctx, *i[0], executorch::aten::ArrayRef<int64_t>(dims, 1), false, std::nullopt,
                                      *o[0]);
                   }});
  cases.push_back({"aten::mm.out", "dnf_training #13", "", {floats({100, 1}, 23), floats({1, 100}, 24)},
                   {out_spec(ScalarType::kFloat, {100, 100})}, {in(0), in(1), out(0)},
                   [](OffContext& ctx, auto& i, auto& o) { off::mm_out(ctx, *i[0], *i[1], *o[0]); }});

  cases.push_back({"aten::sub.out", "dnf_training #2", "", {floats({1, 1}, 25), floats({1}, 26)},
                   {out_spec(ScalarType::kFloat, {1, 1})}, {in(0), in(1), i64(1), out(0)},
                   [](OffContext& ctx, auto& i, auto& o) { off::sub_out(ctx, *i[0], *i[1], int64_t(1), *o[0]); }});
  cases.push_back({"aten::neg.out", "dnf_training #10", "", {floats({1, 1}, 27)}, {out_spec(ScalarType::kFloat, {1, 1})},
                   {in(0), out(0)}, [](OffContext& ctx, auto& i, auto& o) { off::neg_out(ctx, *i[0], *o[0]); }});
  cases.push_back({"aten::full_like.out", "dnf_training #6", "", {floats({}, 28)}, {out_spec(ScalarType::kFloat, {})},
                   {in(0), f64(1.0), none(), out(0)},
                   [](OffContext& ctx, auto& i, auto& o) { off::full_like_out(ctx, *i[0], 1.0, std::nullopt, *o[0]); }});
  cases.push_back({"aten::view_copy.out", "dnf_training #16", "", {floats({1, 1}, 29)},
                   {out_spec(ScalarType::kFloat, {1})}, {in(0), ints({1}), out(0)},
                   [](OffContext& ctx, auto& i, auto& o) {
                     const int64_t size[1] = {1};
                     off::view_copy_out(ctx, *i[0], {size, 1}, *o[0]);
                   }});
  cases.push_back({"aten::eq.Scalar_out", "module_model #1", "", {floats({1}, 30)}, {out_spec(ScalarType::kBool, {1})},
                   {in(0), f64(0.5), out(0)},
                   [](OffContext& ctx, auto& i, auto& o) { off::eq_scalar_out(ctx, *i[0], 0.5, *o[0]); }});
  {
    Spec cond{ScalarType::kBool, {1}, {1}};
    cases.push_back({"aten::where.self_out", "module_model #3", "", {cond, floats({}, 31), floats({1}, 32)},
                     {out_spec(ScalarType::kFloat, {1})}, {in(0), in(1), in(2), out(0)},
                     [](OffContext& ctx, auto& i, auto& o) { off::where_out(ctx, *i[0], *i[1], *i[2], *o[0]); }});
  }
  cases.push_back({"aten::clamp.out", "stress_mlp #9", "", {floats({}, 33)}, {out_spec(ScalarType::kFloat, {})},
                   {in(0), f64(0.0), f64(63.0), out(0)}, [](OffContext& ctx, auto& i, auto& o) {
                     off::clamp_out(ctx, *i[0], executorch::aten::Scalar(0.0), executorch::aten::Scalar(63.0), *o[0]);
                   }});
  cases.push_back({"dim_order_ops::_to_dim_order_copy.out", "stress_mlp #7 (FLOAT -> LONG)", "", {floats({}, 34)},
                   {out_spec(ScalarType::kLong, {})}, {in(0), boolean(false), none(), out(0)},
                   [](OffContext& ctx, auto& i, auto& o) {
                     off::_to_dim_order_copy_out(ctx, *i[0], false, std::nullopt, *o[0]);
                   }});
  // med_output: one float broadcast to 512 MiB.
  cases.push_back({"aten::expand_copy.out", "med_output #0", "", {floats({1}, 35)},
                   {out_spec(ScalarType::kFloat, {134217728})}, {in(0), ints({134217728}), boolean(false), out(0)},
                   [](OffContext& ctx, auto& i, auto& o) {
                     const int64_t size[1] = {134217728};
                     off::expand_copy_out(ctx, *i[0], {size, 1}, false, *o[0]);
                   }});

  const auto shape_of = [](const Spec& spec) {
    std::string text = "[";
    for (size_t d = 0; d < spec.sizes.size(); ++d) {
      if (d) text.push_back(',');
      text.append(std::to_string(spec.sizes[d]));
    }
    text.push_back(']');
    return text;
  };
  for (Case& c : cases) {
    for (size_t k = 0; k < c.inputs.size(); ++k) c.shape.append(k ? ", " : "").append(shape_of(c.inputs[k]));
    if (c.inputs.empty()) c.shape = "-> " + shape_of(c.outputs[0]);
  }
  return cases;
}

}  // namespace

int main(int argc, char** argv) {
  double tolerance = 0.10;
  double budget_ms = 300;
  std::string only;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--tolerance" && k + 1 < argc) {
      tolerance = std::atof(argv[++k]);
    } else if (a == "--budget-ms" && k + 1 < argc) {
      budget_ms = std::atof(argv[++k]);
    } else if (a == "--only" && k + 1 < argc) {
      only = argv[++k];
    } else {
      std::fprintf(stderr,
                   "usage: %s [--tolerance FRACTION (0.10)] [--budget-ms MS per side and case (300)] [--only OP]\n",
                   argv[0]);
      return 2;
    }
  }
  executorch::runtime::runtime_init();

  int slower = 0, differ = 0, failed = 0;
  std::printf(
      "| operator | fixture | shape | official us | ours us (with execute()) | ratio (ours / official) | outputs |\n"
      "|---|---|---|---|---|---|---|\n");
  for (Case& c : fixture_cases()) {
    if (!only.empty() && c.op.find(only) == std::string::npos) continue;
    std::string error;
    auto ours = build_ours(c, error);
    auto frame = ours ? build_ours(c, error, true) : nullptr;
    if (!ours || !frame) {
      std::fprintf(stderr, "%s (%s): ours could not be built: %s\n", c.op.c_str(), c.where.c_str(), error.c_str());
      ++failed;
      continue;
    }
    // The official side's tensors over its own copies of the same bytes.
    std::vector<std::vector<uint8_t>> in_bytes, out_bytes;
    std::vector<std::unique_ptr<OffHolder>> holders;
    std::vector<OffTensor*> off_in, off_out;
    for (const Spec& s : c.inputs) {
      in_bytes.push_back(s.bytes);
      holders.push_back(std::make_unique<OffHolder>(s, in_bytes.back().data()));
      off_in.push_back(holders.back()->tensor.get());
    }
    out_bytes.reserve(c.outputs.size());
    for (const Spec& s : c.outputs) {
      out_bytes.emplace_back(s.nbytes());
      holders.push_back(std::make_unique<OffHolder>(s, out_bytes.back().data()));
      off_out.push_back(holders.back()->tensor.get());
    }
    OffContext ctx;
    c.official(ctx, off_in, off_out);
    if (ctx.failure_state() != executorch::runtime::Error::Ok) {
      std::fprintf(stderr, "%s (%s): the official kernel failed (error %d)\n", c.op.c_str(), c.where.c_str(),
                   int(ctx.failure_state()));
      ++failed;
      continue;
    }
    auto st = etkit::rt::execute(*ours->method);
    if (!st) {
      std::fprintf(stderr, "%s (%s): ours failed: %s\n", c.op.c_str(), c.where.c_str(), describe(st.error()).c_str());
      ++failed;
      continue;
    }
    // Identical bytes, or (float outputs of sums: convolution, addmm,
    // softmax, mean, whose summation order is the kernel's choice) within
    // 1e-5 relative to the output's largest magnitude.
    std::string match = "identical";
    for (size_t k = 0; k < c.outputs.size(); ++k) {
      const auto* t = ours->method->output(k).tensor;
      if (t->nbytes() != out_bytes[k].size()) {
        match = "differ (size)";
        continue;
      }
      if (std::memcmp(t->data(), out_bytes[k].data(), t->nbytes()) == 0) continue;
      if (c.outputs[k].dtype != ScalarType::kFloat) {
        match = "differ";
        continue;
      }
      const float* a = static_cast<const float*>(t->data());
      const float* b = reinterpret_cast<const float*>(out_bytes[k].data());
      double worst = 0, scale = 0;
      for (int64_t e = 0; e < t->numel(); ++e) {
        worst = std::max(worst, std::fabs(double(a[e]) - double(b[e])));
        scale = std::max(scale, std::fabs(double(b[e])));
      }
      char buf[64];
      std::snprintf(buf, sizeof buf, "within %.1e", worst / std::max(scale, 1e-30));
      if (match == "identical") match = buf;
      if (!(worst <= 1e-5 * scale)) match = std::string("differ (") + buf + ")";
    }
    const bool same = match.rfind("differ", 0) != 0;
    if (!same) {
      std::fprintf(stderr, "%s (%s): outputs differ from the official kernel's: %s\n", c.op.c_str(),
                   c.where.c_str(), match.c_str());
      ++differ;
    }
    const double budget = budget_ms * 1000;
    const auto t = interleaved_medians({[&] { c.official(ctx, off_in, off_out); },
                                        [&] { (void)etkit::rt::execute(*ours->method); },
                                        [&] { (void)etkit::rt::execute(*frame->method); }},
                                       budget);
    const double t_off = t[0], t_ours_all = t[1], t_frame = t[2];
    const double t_ours = std::max(t_ours_all - t_frame, 0.0);
    const double ratio = t_ours / t_off;
    const bool slow = ratio > 1 + tolerance;
    slower += slow;
    std::printf("| %s | %s | %s | %.3g | %.3g (%.3g) | %.2f%s | %s |\n", c.op.c_str(), c.where.c_str(),
                c.shape.c_str(), t_off, t_ours, t_ours_all, ratio, slow ? " **slower**" : "", match.c_str());
    std::fflush(stdout);
  }
  std::printf("\n%d case(s) slower than the official kernel by more than %.0f%%, %d with different outputs, %d failed\n",
              slower, tolerance * 100, differ, failed);
  return slower || differ || failed ? 1 : 0;
}
