// Status and Result keep their Error behind a pointer (ErrorBox): a success
// holds none, a failure a deep copy that travels with moves and copies.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "libcore/support/result.h"

using etkit::Error;
using etkit::ErrorKind;
using etkit::Result;
using etkit::Status;

namespace {

Error sample_error() { return Error{ErrorKind::kRuntime, "f.pte", "values[3]", "bad value"}; }

}  // namespace

TEST_CASE("Status: a success has no error and reads as an empty one", "[support][result]") {
  Status ok;
  CHECK(ok.ok());
  CHECK(ok.error().message.empty());
  CHECK(ok.error().field.empty());
  CHECK(Status::ok_status().ok());
}

TEST_CASE("Status: a failure keeps every field through copies and moves", "[support][result]") {
  Status failed = sample_error();
  REQUIRE_FALSE(failed.ok());
  Status copy = failed;
  CHECK_FALSE(copy.ok());
  CHECK(copy.error().describe() == "f.pte: values[3]: bad value");
  // The copy is deep: changing the original's error leaves the copy alone.
  Status moved = std::move(failed);
  CHECK_FALSE(moved.ok());
  Error taken = std::move(moved).error().in("method 'forward'");
  CHECK(taken.kind == ErrorKind::kRuntime);
  CHECK(taken.field == "method 'forward'.values[3]");
  CHECK(copy.error().field == "values[3]");
  Status assigned;
  assigned = copy;
  CHECK(assigned.error().message == "bad value");
  assigned = Status();
  CHECK(assigned.ok());
}

TEST_CASE("Result: value or error, the error surviving copies", "[support][result]") {
  Result<int> value = 42;
  REQUIRE(value.ok());
  CHECK(*value == 42);
  Result<int> failed = sample_error();
  REQUIRE_FALSE(failed.ok());
  const Result<int> copy = failed;
  CHECK(copy.error().message == "bad value");
  CHECK(std::move(failed).error().file == "f.pte");
  // A move-only value type still works.
  Result<std::unique_ptr<int>> owned = std::make_unique<int>(7);
  REQUIRE(owned.ok());
  CHECK(*std::move(owned).value() == 7);
}

TEST_CASE("ETKIT_TRY passes a failure up and a success through", "[support][result]") {
  const auto inner = [](bool fail) -> Status {
    if (fail) return sample_error();
    return {};
  };
  const auto outer = [&](bool fail) -> Result<int> {
    ETKIT_TRY(inner(fail));
    return 1;
  };
  CHECK(outer(false).ok());
  const Result<int> r = outer(true);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "bad value");
}
