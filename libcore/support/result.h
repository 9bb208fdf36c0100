// Result<T>: a value or an Error naming the file and field that were wrong.
// Library code never prints; errors travel up as values and only tools/
// turns them into a message and an exit code.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace etkit {

enum class ErrorKind {
  kBadInput,     // malformed, truncated or inconsistent input
  kUnsupported,  // well-formed, but a version or feature we do not handle
  kIo,           // the file system refused (open, read, write, rename)
  kUsage,        // the caller asked for something impossible
  kRuntime,      // a kernel failed while executing
  kBrokenPipe,   // the reader of our output went away (e.g. `| head`): not a failure
};

struct Error {
  ErrorKind kind = ErrorKind::kBadInput;
  std::string file;     // the file the problem is in; may be empty
  std::string field;    // path inside the file, e.g. "run_data[0].events[12]"
  std::string message;  // lowercase, no final period, actual values

  // Prepends a field path element as the error travels up through parsers.
  Error&& in(std::string_view outer) && {
    if (field.empty()) {
      field = outer;
    } else if (!field.empty() && field.front() == '[') {
      field = std::string(outer) + field;
    } else {
      field = std::string(outer) + "." + field;
    }
    return std::move(*this);
  }
  Error&& at_file(std::string_view path) && {
    if (file.empty()) file = path;
    return std::move(*this);
  }

  // "file: field: message" with empty parts left out.
  std::string describe() const {
    std::string out;
    if (!file.empty()) out += file + ": ";
    if (!field.empty()) out += field + ": ";
    out += message;
    return out;
  }
};

inline Error bad_input(std::string message, std::string field = {}) {
  return Error{ErrorKind::kBadInput, {}, std::move(field), std::move(message)};
}
inline Error unsupported(std::string message, std::string field = {}) {
  return Error{ErrorKind::kUnsupported, {}, std::move(field), std::move(message)};
}
inline Error io_error(std::string file, std::string message) {
  return Error{ErrorKind::kIo, std::move(file), {}, std::move(message)};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}  // NOLINT

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const& { return std::get<1>(state_); }
  Error&& error() && { return std::get<1>(std::move(state_)); }

 private:
  std::variant<T, Error> state_;
};

// Result<void>: success or an Error.
class [[nodiscard]] Status {
 public:
  // User-provided, so that `return {}` does not zero the whole Error (three
  // strings) before constructing it: every kernel call returns one.
  Status() {}
  Status(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT
  static Status ok_status() { return {}; }

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const& { return error_; }
  Error&& error() && { return std::move(error_); }

 private:
  Error error_;
  bool failed_ = false;
};

}  // namespace etkit

// Early-return helpers for Result/Status-returning functions.
#define ETKIT_CONCAT_INNER(a, b) a##b
#define ETKIT_CONCAT(a, b) ETKIT_CONCAT_INNER(a, b)

#define ETKIT_TRY(expr)                              \
  do {                                               \
    auto etkit_status_ = (expr);                     \
    if (!etkit_status_) return std::move(etkit_status_).error(); \
  } while (0)

#define ETKIT_ASSIGN_OR_RETURN(lhs, expr) \
  ETKIT_ASSIGN_OR_RETURN_IMPL(ETKIT_CONCAT(etkit_result_, __LINE__), lhs, expr)
#define ETKIT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp) return std::move(tmp).error();          \
  lhs = std::move(tmp).value()
