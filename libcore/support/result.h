// Result<T>: a value or an Error naming the file and field that were wrong.
// Library code never prints; errors travel up as values and only tools/
// turns them into a message and an exit code.
#pragma once

#include <new>
#include <string>
#include <string_view>
#include <type_traits>
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

// An Error kept on the heap, copied deeply. Nearly every Status and Result
// a kernel returns is a success, which then constructs and destroys one
// null pointer instead of an Error of three strings (an out-of-line
// destructor call per Status, issue #15); failures pay an allocation. The
// failure paths are out of line so that the success paths inline.
class ErrorBox {
 public:
  ErrorBox() = default;
  explicit ErrorBox(Error error) : p_(make(std::move(error))) {}
  ErrorBox(const ErrorBox& other) : p_(other.p_ ? clone(*other.p_) : nullptr) {}
  ErrorBox(ErrorBox&& other) noexcept : p_(std::exchange(other.p_, nullptr)) {}
  ErrorBox& operator=(const ErrorBox& other) {
    if (this != &other) {
      ErrorBox copy(other);
      std::swap(p_, copy.p_);
    }
    return *this;
  }
  ErrorBox& operator=(ErrorBox&& other) noexcept {
    std::swap(p_, other.p_);
    return *this;
  }
  ~ErrorBox() {
    if (p_) [[unlikely]] destroy(p_);
  }

  bool empty() const { return p_ == nullptr; }
  // An empty box reads as an empty Error (what error() of a success gave
  // before the box); taking it fills the box first.
  const Error& get() const { return p_ ? *p_ : none(); }
  Error& take() {
    if (!p_) p_ = make(Error{});
    return *p_;
  }

 private:
  [[gnu::cold, gnu::noinline]] static Error* make(Error&& e) { return new Error(std::move(e)); }
  [[gnu::cold, gnu::noinline]] static Error* clone(const Error& e) { return new Error(e); }
  [[gnu::cold, gnu::noinline]] static void destroy(Error* p) { delete p; }
  [[gnu::cold, gnu::noinline]] static const Error& none() {
    static const Error kNone;
    return kNone;
  }
  Error* p_ = nullptr;
};

// A value or an Error. Not a std::variant: its destructor and moves went
// through an out-of-line visitor (a call per Result in every kernel,
// issue #15); here a success destroys its value and tests one pointer.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : has_value_(true) { new (&value_) T(std::move(value)); }  // NOLINT: implicit by design
  Result(Error error) : error_(std::move(error)) {}  // NOLINT
  Result(const Result& other) : error_(other.error_), has_value_(other.has_value_) {
    if (has_value_) new (&value_) T(other.value_);
  }
  Result(Result&& other) noexcept(std::is_nothrow_move_constructible_v<T>)
      : error_(std::move(other.error_)), has_value_(other.has_value_) {
    if (has_value_) new (&value_) T(std::move(other.value_));
  }
  Result& operator=(const Result& other) {
    if (this != &other) {
      Result copy(other);
      *this = std::move(copy);
    }
    return *this;
  }
  Result& operator=(Result&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (this != &other) {
      reset();
      error_ = std::move(other.error_);
      if (other.has_value_) {
        new (&value_) T(std::move(other.value_));
        has_value_ = true;
      }
    }
    return *this;
  }
  ~Result() { reset(); }

  bool ok() const { return has_value_; }
  explicit operator bool() const { return ok(); }

  // As std::get on the variant this replaced: the value of a failure throws.
  T& value() & { return check(), value_; }
  const T& value() const& { return check(), value_; }
  T&& value() && { return check(), std::move(value_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const& {
    if (has_value_) throw_bad_access();
    return error_.get();
  }
  Error&& error() && {
    if (has_value_) throw_bad_access();
    return std::move(error_.take());
  }

 private:
  void check() const {
    if (!has_value_) [[unlikely]] throw_bad_access();
  }
  [[noreturn, gnu::cold, gnu::noinline]] static void throw_bad_access() { throw std::bad_variant_access(); }
  void reset() {
    if (has_value_) {
      value_.~T();
      has_value_ = false;
    }
  }

  ErrorBox error_;  // empty while has_value_
  union {
    T value_;
  };
  bool has_value_ = false;
};

// Result<void>: success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT
  static Status ok_status() { return {}; }

  bool ok() const { return error_.empty(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const& { return error_.get(); }
  Error&& error() && { return std::move(error_.take()); }

 private:
  ErrorBox error_;  // empty: success
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
