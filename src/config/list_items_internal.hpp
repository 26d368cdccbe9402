// Helpers config/model_builder.cpp and config/naemon_order.cpp share: comma lists split the way Naemon
// splits them, and POSIX regex matching of object names. Loader thread.
#pragma once

#include <regex.h>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vedette::config::internal {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The items of a comma-separated list, trimmed, empty ones skipped; iterating allocates nothing (lists are
// split several times per service, and a vector per split was a tenth of the load time).
class ListItems {
 public:
  class iterator {
   public:
    iterator(std::string_view rest) : rest_(rest) { advance(); }
    std::string_view operator*() const { return item_; }
    iterator& operator++() {
      advance();
      return *this;
    }
    bool operator==(const iterator& other) const { return done_ == other.done_; }

   private:
    void advance() {
      while (!rest_.empty()) {
        std::size_t comma = rest_.find(',');
        item_ = trim(rest_.substr(0, comma));
        if (comma == std::string_view::npos) {
          rest_ = {};
        } else {
          rest_.remove_prefix(comma + 1);
        }
        if (!item_.empty()) return;
      }
      done_ = true;
    }
    std::string_view rest_;
    std::string_view item_;
    bool done_ = false;
  };

  explicit ListItems(std::string_view list) : list_(list) {}
  iterator begin() const { return iterator(list_); }
  iterator end() const { return iterator({}); }

 private:
  std::string_view list_;
};

inline ListItems split_list(std::string_view s) {
  return ListItems(s);
}

inline std::vector<std::string_view> split_list_vector(std::string_view s) {
  std::vector<std::string_view> out;
  for (std::string_view item : split_list(s)) out.push_back(item);
  return out;
}

// Compiles POSIX extended regexes once per pattern, as Naemon's regcomp() does.
class RegexCache {
 public:
  RegexCache() = default;
  RegexCache(const RegexCache&) = delete;
  RegexCache& operator=(const RegexCache&) = delete;
  ~RegexCache() {
    for (auto& [_, re] : cache_)
      if (re.ok) regfree(&re.compiled);
  }
  // nullptr when the pattern does not compile.
  const regex_t* get(std::string_view pattern) {
    auto [it, inserted] = cache_.try_emplace(std::string(pattern));
    if (inserted)
      it->second.ok = regcomp(&it->second.compiled, it->first.c_str(), REG_EXTENDED | REG_NOSUB) == 0;
    return it->second.ok ? &it->second.compiled : nullptr;
  }

 private:
  struct Entry {
    regex_t compiled{};
    bool ok = false;
  };
  std::unordered_map<std::string, Entry> cache_;
};

inline bool matches(const regex_t* re, std::string_view text) {
  std::string s(text);
  return regexec(re, s.c_str(), 0, nullptr, 0) == 0;
}

}  // namespace vedette::config::internal
