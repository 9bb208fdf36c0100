// The shape group's operator families, each adding its kernels to the table.
#pragma once

#include <vector>

#include "runner/kernel_registry.h"

namespace etkit::rt::kernels {

void add_view_kernels(std::vector<KernelInfo>& table);
void add_fill_kernels(std::vector<KernelInfo>& table);

}  // namespace etkit::rt::kernels
