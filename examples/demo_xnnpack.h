// The demo LeNet lowered to XNNPACK (one delegate call), with its ETRecord.
#pragma once

#include <vector>

#include "libcore/formats/program/program.h"
#include "libcore/support/result.h"

namespace etkit::demo {

struct XnnpackLenet {
  std::vector<uint8_t> program;   // the .pte bytes
  std::vector<uint8_t> etrecord;  // the edge program of examples/lenet.py, linked to the delegate's nodes
};
Result<XnnpackLenet> lenet_xnnpack();

}  // namespace etkit::demo
