// Object definitions as read from the files, before templates are applied: directives as text, keyed by
// their canonical name. Values are views into the ObjectStore's file texts or its arena. Loader thread.
#pragma once

#include "config/diagnostics.hpp"
#include "config/mapped_file.hpp"
#include "config/object_type.hpp"

#include <array>
#include <bitset>
#include <deque>
#include <iterator>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vedette::config {

// 32 bytes: a million services have a few million of them. The name is not kept: a directive's is
// k_directive_names[id], a custom variable's ObjectStore::custom_variable_name(name_id).
struct RawAttr {
  std::string_view value;  // empty when is_null
  DirectiveId id;          // the canonical directive; k_custom_variable for custom variables
  bool is_null = false;    // written as `null`: set, but to nothing, and blocks inheritance
  // The value as the builder parsed it (number, boolean or option bits). A template's directive is read
  // by every object using it; parsing it once instead of per object halved the cost of a service.
  enum class Parsed : std::uint8_t { no, number, flag, options };
  mutable Parsed parsed_as = Parsed::no;
  std::uint32_t name_id = 0;  // custom variables: the name's number (ObjectStore::custom_variable)
  mutable double parsed = 0;

  // A directive's canonical name; empty for a custom variable.
  [[nodiscard]] std::string_view key() const {
    return id < k_directive_count ? k_directive_names[id] : std::string_view{};
  }
};

// A timeperiod line such as "monday 3 may 00:00-24:00", kept whole for the timeperiod parser.
struct RawLine {
  std::string_view text;
  std::uint32_t line;
};

struct RawObject {
  ObjectType type;
  SourcePos at;  // the `define` line
  std::vector<RawAttr> attrs;
  std::string_view template_name;  // `name`
  std::string_view use;            // `use`, comma-separated template names
  bool registered = true;          // `register`
  // A service (template) whose own check_command was written `!name!args`: Naemon's "important" check
  // command, which overrides the check_command of whatever uses this template. The '!' is gone from the
  // value.
  bool important_check_command = false;
  enum class Resolution : std::uint8_t { pending, in_progress, done } resolution = Resolution::pending;
  // Timeperiods only (null for other types): their date lines and their `use` templates, in `use` order.
  // Kept apart: two vectors in each of a million service definitions made a RawObject 184 bytes, not 144.
  struct TimeperiodParts {
    std::vector<RawLine> lines;
    std::vector<std::uint32_t> templates;
  };
  std::unique_ptr<TimeperiodParts> timeperiod;
  // The templates it inherits from, in `use` order (those that could be resolved). A definition that is not
  // itself a template keeps only its own directives and looks the rest up in them: copying ~40 inherited
  // directives into each of 100k services cost 170 MB and most of the load time
  // (bench/config/load_bench.py). Custom variables are never copied, not even into templates: a chain of
  // templates each adding one would hold a quadratic number of them (config/custom_variables.hpp).
  std::vector<const RawObject*> bases;
  // Templates carry every inherited directive (~40 for a service template) and are asked for each of them
  // by every object using them: a slot per directive id (k_no_slot: none) replaces the scan.
  static constexpr std::uint32_t k_no_slot = 0xFFFFFFFF;
  std::unique_ptr<std::array<std::uint32_t, k_directive_count>> slots;
  // Which directive ids the object has itself, so a lookup of an inherited one skips the scan.
  std::bitset<k_directive_count> own;

  void add(const RawAttr& attr);
  TimeperiodParts& timeperiod_parts();  // made on first use
  [[nodiscard]] const std::vector<RawLine>& timeperiod_lines() const;
  [[nodiscard]] const std::vector<std::uint32_t>& timeperiod_templates() const;
  // Gives a template its slots; add() keeps them up to date from then on.
  void build_index();

  // The directive as resolved: own, else from the templates in `use` order. Custom variables are not
  // directives here: config/custom_variables.hpp resolves them.
  [[nodiscard]] const RawAttr* find(DirectiveKey key) const { return find(key.id); }
  // Inline (below): ~40 calls for each service, from other translation units.
  [[nodiscard]] const RawAttr* find(DirectiveId id) const;
  // For names only known at run time ("address3"); null for a name that is no directive.
  [[nodiscard]] const RawAttr* find_named(std::string_view name) const;
  // The object's own directive (inherited ones included once a template is resolved).
  [[nodiscard]] RawAttr* find_own(DirectiveId id);
  // The value, or empty when it is absent or null.
  [[nodiscard]] std::string_view get(DirectiveKey key) const {
    const RawAttr* a = find(key);
    return a == nullptr ? std::string_view{} : a->value;
  }
  [[nodiscard]] std::string_view get_named(std::string_view name) const;
  [[nodiscard]] bool has_value(DirectiveKey key) const {
    const RawAttr* a = find(key);
    return a != nullptr && !a->is_null;
  }
};

inline void RawObject::add(const RawAttr& attr) {
  attrs.push_back(attr);
  if (attr.id == k_custom_variable) return;
  own.set(attr.id);
  if (slots != nullptr) (*slots)[attr.id] = static_cast<std::uint32_t>(attrs.size() - 1);
}

inline RawAttr* RawObject::find_own(DirectiveId id) {
  if (!own.test(id)) return nullptr;
  if (slots != nullptr) return &attrs[(*slots)[id]];
  for (RawAttr& a : attrs)
    if (a.id == id) return &a;
  return nullptr;
}

inline const RawAttr* RawObject::find(DirectiveId id) const {
  if (slots != nullptr) {
    const std::uint32_t slot = (*slots)[id];
    return slot == k_no_slot ? nullptr : &attrs[slot];
  }
  if (own.test(id))
    for (const RawAttr& a : attrs)
      if (a.id == id) return &a;
  // Only templates are bases, and templates answer from their slots: one level deep, whatever the chain.
  for (const RawObject* base : bases)
    if (const RawAttr* a = base->find(id)) return a;
  return nullptr;
}

// The definitions of one type in reading order, at stable addresses (objects point to their templates),
// in blocks of k_block constructed in place: std::deque's 512-byte blocks held three RawObjects, left a
// sixth unused and cost a malloc for every three definitions.
class RawObjects {
 public:
  RawObjects() = default;
  RawObjects(const RawObjects&) = delete;
  RawObjects& operator=(const RawObjects&) = delete;
  ~RawObjects() {
    for (std::size_t i = 0; i < size_; ++i) (*this)[i].~RawObject();
  }

  RawObject& emplace_back() {
    if (size_ % k_block == 0) blocks_.emplace_back(new Slot[k_block]);
    RawObject* obj = new (&blocks_[size_ / k_block][size_ % k_block]) RawObject();
    ++size_;
    return *obj;
  }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  RawObject& operator[](std::size_t i) { return *std::launder(slot(i)); }
  const RawObject& operator[](std::size_t i) const { return *std::launder(slot(i)); }

  template <typename Owner, typename Value>
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = RawObject;
    using difference_type = std::ptrdiff_t;
    using pointer = Value*;
    using reference = Value&;
    Iterator() = default;
    Iterator(Owner* objects, std::size_t i) : objects_(objects), i_(i) {}
    Value& operator*() const { return (*objects_)[i_]; }
    Value* operator->() const { return &(*objects_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    Iterator operator++(int) { return {objects_, i_++}; }
    bool operator==(const Iterator& other) const { return i_ == other.i_; }

   private:
    Owner* objects_ = nullptr;
    std::size_t i_ = 0;
  };
  using iterator = Iterator<RawObjects, RawObject>;
  using const_iterator = Iterator<const RawObjects, const RawObject>;
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, size_}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  static constexpr std::size_t k_block = 256;  // 36 KB of 144-byte definitions
  struct Slot {
    alignas(RawObject) unsigned char bytes[sizeof(RawObject)];
  };
  RawObject* slot(std::size_t i) const {
    return reinterpret_cast<RawObject*>(blocks_[i / k_block][i % k_block].bytes);
  }
  std::vector<std::unique_ptr<Slot[]>> blocks_;
  std::size_t size_ = 0;
};

// Owns the text of every file read and every string made while loading, so views stay valid until the
// model has been built (the model copies what it keeps into its own pool).
class ObjectStore {
 public:
  std::string_view keep(std::string text) { return arena_.emplace_back(std::move(text)); }
  std::string_view keep_file(MappedFile file) { return files_.emplace_back(std::move(file)).text(); }

  // A custom variable's name ("_RACK", upper-cased) as one kept view and a number, the same for every
  // definition using it, so definitions and inheritance tell names apart by number.
  struct CustomName {
    std::string_view name;
    std::uint32_t id;
  };
  CustomName custom_variable(std::string_view upper_name);
  [[nodiscard]] std::string_view custom_variable_name(std::uint32_t id) const {
    return custom_names_by_id_[id];
  }
  [[nodiscard]] std::size_t custom_variable_count() const { return custom_names_.size(); }

  RawObjects& of(ObjectType type) { return objects_[static_cast<std::size_t>(type)]; }
  const RawObjects& of(ObjectType type) const { return objects_[static_cast<std::size_t>(type)]; }

 private:
  std::deque<std::string> arena_;
  std::deque<MappedFile> files_;
  std::array<RawObjects, k_object_type_count> objects_;
  std::unordered_map<std::string_view, std::uint32_t> custom_names_;  // views into arena_
  std::vector<std::string_view> custom_names_by_id_;
};

}  // namespace vedette::config
