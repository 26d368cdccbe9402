// Object definitions as read from the files, before templates are applied: directives as text, keyed by
// their canonical name. Values are views into the ObjectStore's file texts or its arena. Loader thread.
#pragma once

#include "config/diagnostics.hpp"
#include "config/mapped_file.hpp"
#include "config/object_type.hpp"

#include <array>
#include <bitset>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vedette::config {

struct RawAttr {
  std::string_view key;    // canonical directive, or "_NAME" for a custom variable (name upper-cased)
  std::string_view value;  // empty when is_null
  DirectiveId id;          // directive_id(key); k_custom_variable for custom variables
  bool is_null = false;    // written as `null`: set, but to nothing, and blocks inheritance
  // The value as the builder parsed it (number, boolean or option bits). A template's directive is read
  // by every object using it; parsing it once instead of per object halved the cost of a service.
  enum class Parsed : std::uint8_t { no, number, flag, options };
  mutable Parsed parsed_as = Parsed::no;
  mutable double parsed = 0;
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
  std::vector<RawLine> timeperiod_lines;
  std::string_view template_name;  // `name`
  std::string_view use;            // `use`, comma-separated template names
  bool registered = true;          // `register`
  enum class Resolution : std::uint8_t { pending, in_progress, done } resolution = Resolution::pending;
  std::vector<std::uint32_t> templates;  // timeperiods only: their `use` templates, in `use` order
  // A definition that is not itself a template keeps only its own directives and looks the rest up in
  // its resolved templates, in `use` order: copying ~40 inherited directives into each of 100k services
  // cost 170 MB and most of the load time (bench/config/load_bench.py).
  std::vector<const RawObject*> bases;
  // Templates carry every inherited directive (~40 for a service template) and are asked for each of them
  // by every object using them: a slot per directive id replaces the scan.
  std::unique_ptr<std::array<std::uint16_t, k_directive_count>> slots;
  // Which directive ids the object has itself, so a lookup of an inherited one skips the scan.
  std::bitset<k_directive_count> own;

  void add(const RawAttr& attr) {
    attrs.push_back(attr);
    if (attr.id != k_custom_variable) own.set(attr.id);
  }
  void build_index();

  // The directive as resolved: own, else from the templates in `use` order.
  [[nodiscard]] const RawAttr* find(DirectiveKey key) const { return find(key.id, key.name); }
  [[nodiscard]] const RawAttr* find(DirectiveId id, std::string_view name) const;
  // For names only known at run time ("address3").
  [[nodiscard]] const RawAttr* find_named(std::string_view name) const {
    return find(directive_id(name), name);
  }
  [[nodiscard]] RawAttr* find_own(DirectiveId id, std::string_view name);
  // The value, or empty when it is absent or null.
  [[nodiscard]] std::string_view get(DirectiveKey key) const;
  [[nodiscard]] std::string_view get_named(std::string_view name) const;
  [[nodiscard]] bool has_value(DirectiveKey key) const;

  // Visits every resolved custom variable once, in Naemon's order: its own as written, then for each
  // template in `use` order the ones not yet seen, that template's list walked from its end (Naemon
  // prepends inherited variables and reverses the list when it registers the object).
  template <typename Fn>
  void for_each_custom_variable(Fn&& fn) const {
    for (const RawAttr& a : attrs)
      if (a.id == k_custom_variable) fn(a);
    for (std::size_t b = 0; b < bases.size(); ++b) {
      for (auto it = bases[b]->attrs.rbegin(); it != bases[b]->attrs.rend(); ++it) {
        const RawAttr& a = *it;
        if (a.id != k_custom_variable) continue;
        bool shadowed = false;
        for (const RawAttr& own : attrs)
          shadowed = shadowed || (own.id == k_custom_variable && own.key == a.key);
        for (std::size_t e = 0; e < b && !shadowed; ++e)
          shadowed = bases[e]->find(k_custom_variable, a.key) != nullptr;
        if (!shadowed) fn(a);
      }
    }
  }
};

// Owns the text of every file read and every string made while loading, so views stay valid until the
// model has been built (the model copies what it keeps into its own pool).
class ObjectStore {
 public:
  std::string_view keep(std::string text) { return arena_.emplace_back(std::move(text)); }
  std::string_view keep_file(MappedFile file) { return files_.emplace_back(std::move(file)).text(); }

  std::deque<RawObject>& of(ObjectType type) { return objects_[static_cast<std::size_t>(type)]; }
  const std::deque<RawObject>& of(ObjectType type) const { return objects_[static_cast<std::size_t>(type)]; }

 private:
  std::deque<std::string> arena_;
  std::deque<MappedFile> files_;
  std::array<std::deque<RawObject>, k_object_type_count> objects_;
};

}  // namespace vedette::config
