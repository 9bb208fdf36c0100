// Logged values as the Inspector sees them (inspector_spec.md §1.4): which
// dtypes it can inflate, when two runs' values count as equal, and a short
// summary of a tensor's contents for the table.
#pragma once

#include <optional>
#include <string>

#include "libcore/inspect/event_blocks.h"

namespace etdump {
struct Value;
}

namespace etkit::inspect {

// The dtypes _parse_tensor_value knows: BYTE, CHAR, SHORT, INT, LONG, HALF,
// FLOAT, DOUBLE, BOOL, BITS16, UINT16.
bool inspector_supports_dtype(int scalar_type);

// The fields the Python decoder requires of every logged value, whether or
// not the Inspector later inflates it: a tensor's sizes and strides, a
// tensor list's tensors (inspector_spec.md §2).
Status check_required_fields(const ::etdump::Value& value);

// inflate_runtime_output for a verified Value: the value's own table must be
// present for its tag, a tensor's dtype supported and, with a buffer, its
// bytes inside it.
Result<DebugValue> inflate_value(const ::etdump::Value& value, std::optional<ByteSpan> debug_buffer);

// Equality as the Inspector checks repeated runs: same kind, tensors of the
// same dtype and shape whose elements compare equal (all zeros without a
// buffer), scalars equal.
bool debug_values_equal(const DebugValue& a, const DebugValue& b, std::optional<ByteSpan> debug_buffer);

// One line: "float32[1, 10] min=-1 max=2 mean=0.5 [0.1, 0.2, ...]" for a
// tensor (its first `max_values` elements), the value for a scalar, "None".
// The tensor's bytes must lie in `debug_buffer` (inflate_value checked it).
std::string summarize_debug_value(const DebugValue& value, ByteSpan debug_buffer, size_t max_values);

}  // namespace etkit::inspect
