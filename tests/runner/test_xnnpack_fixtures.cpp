// Real XNNPACK-delegated programs (../shared/fixtures): every one runs, and
// two are checked against plain double-precision loops over the weights the
// program itself stores (written here, apart from the backend's kernels).
#include <catch2/catch.hpp>

#include <cmath>

#include "libcore/formats/etdump/etdump_reader.h"
#include "libcore/formats/xnnpack/xnn_reader.h"
#include "runner/backends/xnnpack/xnnpack_backend.h"
#include "runner/executor.h"
#include "runner/program_file.h"
#include "tests/support/test_support.h"

using namespace etkit;
using namespace etkit::rt;

namespace {

struct Loaded {
  ProgramFile file;
  BackendRegistry backends;
  std::unique_ptr<LoadedMethod> method;
};

std::unique_ptr<Loaded> load(const std::string& relative, xnnpack::Options options = {}) {
  auto out = std::make_unique<Loaded>();
  auto pf = open_program_file(test::fixture(relative).string());
  REQUIRE(pf.ok());
  out->file = std::move(pf).value();
  REQUIRE(out->backends.add(std::string(xnnpack::kBackendId), xnnpack::make_backend(options)).ok());
  LoadOptions lo;
  lo.backends = &out->backends;
  auto m = load_method(out->file.program, "forward", lo);
  INFO(relative << ": " << (m.ok() ? "" : m.error().describe()));
  REQUIRE(m.ok());
  out->method = std::move(m).value();
  return out;
}

void fill_ones(LoadedMethod& m) {
  for (size_t i = 0; i < m.num_inputs(); ++i) {
    Tensor& t = *m.input(i).tensor;
    REQUIRE(t.dtype() == ScalarType::kFloat);
    std::fill(t.data_as<float>(), t.data_as<float>() + t.numel(), 1.0f);
  }
}

// The delegate's graph and a constant's floats, resolved through the
// program's named data as the runtime does.
xnn::Graph delegate_graph(const pte::Program& p) {
  const auto& d = p.execution_plan[0].delegates.at(0);
  const ByteSpan blob = d.location == pte::DataLocation::kInline ? p.backend_delegate_data[d.index] : p.segment_data[d.index];
  auto g = xnn::read_xnn_payload(blob);
  REQUIRE(g.ok());
  return std::move(g).value();
}
std::vector<float> constant_floats(const pte::Program& p, const xnn::Graph& g, const xnn::Value& v) {
  const xnn::Constant& c = g.constants.at(v.constant_buffer_idx);
  ByteSpan bytes = c.bytes;
  for (const auto& nd : p.named_data) {
    if (!c.named_key.empty() && nd.key == c.named_key) bytes = p.segment_data[nd.segment_index];
  }
  std::vector<float> out(c.size / 4);
  std::memcpy(out.data(), bytes.data(), out.size() * 4);
  return out;
}

}  // namespace

TEST_CASE("xnnpack fixtures: every delegated program loads and runs", "[xnnpack][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  const std::vector<std::pair<std::string, std::vector<int32_t>>> programs = {
      {"wild/pte/djl_spike_add.pte", {1}},
      {"wild/pte/djl_spike_clamp5.pte", {5}},
      {"wild/pte/djl_spike_conv.pte", {1, 8, 16, 16}},
      {"wild/pte/djl_spike_lin129.pte", {64}},
      {"wild/pte/et_xnnpack_add.pte", {1, 2, 3, 4}},
      {"wild/pte/simpletm_model.pte", {1, 10}},
      {"wild/pte/yolox_engine_models_yolox_nano_xnnpack.pte", {1, 3549, 85}},
      {"pte/dynamic_xnnpack.pte", {8}},
      {"pte/stress_mlp_xnnpack_segments.pte", {32, 256}},
  };
  for (const auto& [path, shape] : programs) {
    INFO(path);
    auto l = load(path);
    fill_ones(*l->method);
    auto s = execute(*l->method);
    INFO((s.ok() ? "" : s.error().describe()));
    REQUIRE(s.ok());
    const Tensor& out = *l->method->output(0).tensor;
    CHECK(std::vector<int32_t>(out.sizes().begin(), out.sizes().end()) == shape);
    for (int64_t i = 0; i < out.numel(); ++i) REQUIRE(std::isfinite(out.data_as<float>()[i]));
  }
}

TEST_CASE("xnnpack fixtures: djl_spike_conv equals a direct convolution of its own weights", "[xnnpack][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  auto l = load("wild/pte/djl_spike_conv.pte");
  const xnn::Graph g = delegate_graph(l->file.program);
  // The graph: NCHW->NHWC transpose, Conv2d 3->8 3x3 pad 1 (+ output clamp), NHWC->NCHW.
  const xnn::Node& conv = g.nodes.at(1);
  REQUIRE(conv.type == xnn::NodeType::kConv2d);
  const auto w = constant_floats(l->file.program, g, *g.find(conv.inputs[1]));  // OHWI [8,3,3,3]
  const auto b = constant_floats(l->file.program, g, *g.find(conv.inputs[2]));
  REQUIRE(w.size() == 8 * 3 * 3 * 3);
  // Input x[c][y][x] = 1 + 0.01 * (c * 256 + y * 16 + x) (NCHW), a ramp so every weight matters.
  Tensor& in = *l->method->input(0).tensor;
  for (int64_t i = 0; i < in.numel(); ++i) in.data_as<float>()[i] = 1.0f + 0.01f * float(i);
  REQUIRE(execute(*l->method).ok());
  const float* y = l->method->output(0).tensor->data_as<float>();
  double worst = 0;
  for (int oc = 0; oc < 8; ++oc) {
    for (int oy = 0; oy < 16; ++oy) {
      for (int ox = 0; ox < 16; ++ox) {
        double acc = b[size_t(oc)];
        for (int ky = 0; ky < 3; ++ky) {
          for (int kx = 0; kx < 3; ++kx) {
            const int iy = oy + ky - 1, ix = ox + kx - 1;
            if (iy < 0 || ix < 0 || iy >= 16 || ix >= 16) continue;
            for (int ic = 0; ic < 3; ++ic) {
              acc += double(w[size_t(((oc * 3 + ky) * 3 + kx) * 3 + ic)]) * (1.0 + 0.01 * double(ic * 256 + iy * 16 + ix));
            }
          }
        }
        acc = std::min<double>(std::max<double>(acc, conv.output_min), conv.output_max);
        worst = std::max(worst, std::fabs(acc - double(y[(oc * 16 + oy) * 16 + ox])));
      }
    }
  }
  CHECK(worst < 1e-4);  // float accumulation of 27 products against double
}

TEST_CASE("xnnpack fixtures: djl_spike_lin129 equals x W^T + b from its own weights", "[xnnpack][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  auto l = load("wild/pte/djl_spike_lin129.pte");
  const xnn::Graph g = delegate_graph(l->file.program);
  const xnn::Node& fc = g.nodes.at(0);
  REQUIRE(fc.type == xnn::NodeType::kFullyConnected);
  const xnn::Value& wv = *g.find(fc.inputs[1]);
  const auto w = constant_floats(l->file.program, g, wv);
  const auto b = constant_floats(l->file.program, g, *g.find(fc.inputs[2]));
  const size_t out_ch = wv.dims[0], in_ch = wv.dims[1];
  Tensor& in = *l->method->input(0).tensor;
  REQUIRE(size_t(in.numel()) == in_ch);
  for (size_t i = 0; i < in_ch; ++i) in.data_as<float>()[i] = std::sin(float(i));
  REQUIRE(execute(*l->method).ok());
  const float* y = l->method->output(0).tensor->data_as<float>();
  for (size_t o = 0; o < out_ch; ++o) {
    double acc = b[o];
    for (size_t i = 0; i < in_ch; ++i) acc += double(w[o * in_ch + i]) * std::sin(double(float(i)));
    CHECK(std::fabs(acc - double(y[o])) < 1e-4);
  }
}

TEST_CASE("xnnpack fixtures: one delegate event per node before DELEGATE_CALL, named or by debug handle", "[xnnpack][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  for (auto mode : {xnnpack::DebugIds::kOperatorNames, xnnpack::DebugIds::kDebugHandles}) {
    auto l = load("wild/pte/djl_spike_conv.pte", xnnpack::Options{mode});
    fill_ones(*l->method);
    EventTracer tracer(DebugLevel::kIntermediateOutputs);
    REQUIRE(execute(*l->method, &tracer).ok());
    auto dump = etdump::read_etdump(ByteSpan(tracer.finish()));
    REQUIRE(dump.ok());
    const auto& ev = *dump->run_data.at(0).events;
    // Per node: its profile event, then its output (3 nodes); then the 2 call arguments, DELEGATE_CALL.
    REQUIRE(ev.size() >= 9);
    const std::vector<std::string> names = {"Transpose (ND, X32) #1", "Convolution (NHWC, F32) IGEMM #1",
                                            "Transpose (ND, X32) #2"};
    const std::vector<int32_t> handles = {65535, 1, 65535};  // the transposes have no source node
    for (size_t k = 0; k < 3; ++k) {
      const auto& p = ev[2 * k].profile_event;
      REQUIRE(p);
      CHECK_FALSE(p->name);
      CHECK(p->instruction_id == 0);
      if (mode == xnnpack::DebugIds::kOperatorNames) {
        CHECK(*p->delegate_debug_id_str == names[k]);
        CHECK(p->delegate_debug_id_int == -1);
      } else {
        CHECK_FALSE(p->delegate_debug_id_str);
        CHECK(p->delegate_debug_id_int == handles[k]);
      }
      const std::string meta(p->delegate_debug_metadata->begin(), p->delegate_debug_metadata->end());
      CHECK(meta == "{\"node\":" + std::to_string(k) + ",\"debug_handle\":" + std::to_string(handles[k]) + ",\"type\":\"" +
                        (k == 1 ? "Conv2d" : "StaticTranspose") + "\"}");
      const auto& d = ev[2 * k + 1].debug_event;
      REQUIRE(d);
      CHECK(d->debug_entry.tensor->sizes == (k == 2 ? std::vector<int64_t>{1, 8, 16, 16}
                                                    : k == 1 ? std::vector<int64_t>{1, 16, 16, 8}
                                                             : std::vector<int64_t>{1, 16, 16, 3}));
    }
    CHECK(*ev[8].profile_event->name == "DELEGATE_CALL");
    // The delegate events lie inside the DELEGATE_CALL's span.
    CHECK(ev[0].profile_event->start_time >= ev[8].profile_event->start_time);
    CHECK(ev[4].profile_event->end_time <= ev[8].profile_event->end_time);
  }
}
