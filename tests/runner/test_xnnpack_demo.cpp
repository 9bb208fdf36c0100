// The demo LeNet lowered to XNNPACK (examples/demo_xnnpack.cpp): its outputs
// equal the plain-loop reference of the portable demo, and with its ETRecord
// every node event that came from lenet.py is linked to its module.
#include <catch2/catch.hpp>

#include <cmath>

#include "examples/demo_models.h"
#include "examples/demo_xnnpack.h"
#include "libcore/formats/etrecord/etrecord_reader.h"
#include "libcore/formats/program/program_reader.h"
#include "libcore/inspect/etrecord_links.h"
#include "libcore/inspect/link.h"
#include "runner/backends/xnnpack/xnnpack_backend.h"
#include "runner/executor.h"

using namespace etkit;
using namespace etkit::rt;

TEST_CASE("xnnpack demo: the delegated LeNet equals the plain-loop reference and links to lenet.py", "[xnnpack][demo]") {
  auto demo = demo::lenet_xnnpack();
  REQUIRE(demo.ok());
  auto program = pte::read_program(ByteSpan(demo->program), nullptr);
  REQUIRE(program.ok());
  BackendRegistry backends;
  REQUIRE(backends.add("XnnpackBackend", xnnpack::make_backend()).ok());
  LoadOptions options;
  options.backends = &backends;
  auto method = load_method(*program, "forward", options);
  REQUIRE(method.ok());

  std::vector<float> input(32 * 32);
  for (size_t i = 0; i < input.size(); ++i) input[i] = std::cos(0.1f * float(i));
  std::memcpy((*method)->input(0).tensor->data(), input.data(), input.size() * 4);
  EventTracer tracer;
  REQUIRE(execute(**method, &tracer).ok());
  const auto expected = demo::lenet_reference(input);
  const float* got = (*method)->output(0).tensor->data_as<float>();
  for (size_t i = 0; i < 10; ++i) CHECK(std::fabs(got[i] - expected[i]) < 1e-4f);

  auto record = etrecord::read_etrecord(ByteSpan(demo->etrecord));
  REQUIRE(record.ok());
  auto links = inspect::links_from_etrecord(*record);
  REQUIRE(links.ok());
  const auto dump = tracer.finish();
  auto inspection = inspect::build_event_blocks(ByteSpan(dump));
  REQUIRE(inspection.ok());
  inspect::link_events(*inspection, *links);
  // Module of each node event, by name (the layout transposes and the flatten have none).
  std::map<std::string, std::string> modules;
  for (const auto& e : inspection->blocks.back().events) {
    if (!e.module_hierarchy.empty() && e.module_hierarchy[0].second && !e.module_hierarchy[0].second->empty()) {
      modules[e.name] = e.module_hierarchy[0].second->back().key;
    }
  }
  CHECK(modules["Convolution (NHWC, F32) IGEMM #1"] == "L__self___features_conv1");
  CHECK(modules["Convolution (NHWC, F32) IGEMM #2"] == "L__self___features_conv2");
  CHECK(modules["Max Pooling (NHWC, F32) #2"] == "L__self___features_pool2");
  CHECK(modules["Fully Connected (NC, F32) GEMM #3"] == "L__self___classifier_fc3");
  CHECK(modules.count("Transpose (ND, X32) #1") == 0);
}
