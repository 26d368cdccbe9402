// A value or an error message: what the fallible steps of the gearman link return (decoding a payload,
// reading a key file). C++20 has no std::expected; this is the small part of it used here.
// A plain value; any thread.
//
//   Expected<Job> job = parse_job(text);
//   if (!job) log(job.error());  else run(*job);
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace vedette::gearman {

// The error side, so that Expected<std::string> can still tell a value from an error.
struct Error {
  std::string message;  // lower-case, no trailing period, with its context
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

}  // namespace vedette::gearman
