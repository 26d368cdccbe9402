// A value or an error message: what the fallible calls of the library return (decoding a payload, opening
// a listener, writing a file). C++20 has no std::expected; this is the small part of it used here, and
// Status is the same for calls with no value. A plain value; any thread.
//
//   Expected<Job> job = parse_job(text);
//   if (Status s = listen(where); !s) log(s.error());
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace vedette::base {

// The error side, so that Expected<std::string> can still tell a value from an error.
struct Error {
  std::string message;  // with its context; Naemon's wording where Vedette repeats a Naemon message
};

template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}      // NOLINT: implicit by design
  Expected(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  [[nodiscard]] bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  // Only when has_value().
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // Only when !has_value().
  [[nodiscard]] const std::string& error() const { return std::get<1>(v_).message; }

 private:
  std::variant<T, Error> v_;
};

// Success or an error, for calls that have nothing else to return.
class [[nodiscard]] Status {
 public:
  static Status ok() { return Status(); }
  Status(Error error) : error_(std::move(error)) {}  // NOLINT: implicit, like Expected's

  explicit operator bool() const { return !error_; }

  // Only when !*this.
  [[nodiscard]] const std::string& error() const { return error_->message; }

 private:
  Status() = default;
  std::optional<Error> error_;
};

}  // namespace vedette::base
