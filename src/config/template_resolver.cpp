#include "config/template_resolver.hpp"

#include <fmt/format.h>

#include <unordered_map>

namespace vedette::config {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

class Resolver {
 public:
  Resolver(ObjectStore& store, Diagnostics& diags, ObjectType type)
      : store_(store), diags_(diags), type_(type), objects_(store.of(type)) {}

  void run() {
    index_templates();
    for (std::uint32_t i = 0; i < objects_.size(); ++i) resolve(i);
  }

 private:
  void index_templates() {
    for (std::uint32_t i = 0; i < objects_.size(); ++i) {
      const RawObject& obj = objects_[i];
      if (obj.template_name.empty()) continue;
      auto [it, inserted] = by_name_.emplace(obj.template_name, i);
      if (inserted) continue;
      const RawObject& first = objects_[it->second];
      diags_.error(
          fmt::format("Duplicate definition found for {} '{}'", object_type_name(type_), obj.template_name),
          obj.at);
      diags_.error(fmt::format("First occurrence in config file '{}', starting on line {}", *first.at.file,
                               first.at.line));
    }
  }

  void resolve(std::uint32_t index) {
    RawObject& obj = objects_[index];
    if (obj.resolution == RawObject::Resolution::done) return;
    obj.resolution = RawObject::Resolution::in_progress;
    std::string_view rest = obj.use;
    while (!rest.empty()) {
      std::size_t comma = rest.find(',');
      std::string_view name = trim(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      if (name.empty()) continue;
      auto it = by_name_.find(name);
      if (it == by_name_.end()) {
        diags_.error(fmt::format("Template '{}' specified in {} definition could not be found", name,
                                 object_type_name(type_)),
                     obj.at);
        continue;
      }
      RawObject& tmpl = objects_[it->second];
      if (tmpl.resolution == RawObject::Resolution::in_progress) {
        // Naemon silently stops at a loop; a loop is always a mistake, so it is an error here
        // (docs/compatibility.md).
        diags_.error(fmt::format("Template '{}' specified in {} definition is part of a circular chain of "
                                 "templates",
                                 name, object_type_name(type_)),
                     obj.at);
        continue;
      }
      resolve(it->second);
      if (type_ == ObjectType::timeperiod) obj.templates.push_back(it->second);
      if (obj.template_name.empty()) {
        obj.bases.push_back(&tmpl);
        extend_additive(obj, tmpl);
      } else {
        inherit(obj, tmpl);
      }
    }
    obj.resolution = RawObject::Resolution::done;
    if (!obj.template_name.empty()) obj.build_index();
  }

  // Templates get every inherited directive copied in, so an object using them finds all in one place.
  // Custom variables the template adds are appended last-first: Naemon prepends each inherited variable
  // to a list it reverses once more when it registers the object, and that is the order objects.cache and
  // status.dat list them in (RawObject::for_each_custom_variable).
  void inherit(RawObject& obj, const RawObject& tmpl) {
    for (const RawAttr& from : tmpl.attrs) {
      if (from.id == k_custom_variable) continue;
      RawAttr* own = obj.find_own(from.id, from.key);
      if (own == nullptr) {
        obj.add(from);
        continue;
      }
      extend(*own, from);
    }
    for (auto it = tmpl.attrs.rbegin(); it != tmpl.attrs.rend(); ++it)
      if (it->id == k_custom_variable && obj.find_own(it->id, it->key) == nullptr) obj.add(*it);
  }

  // An object that is not a template only completes its own `+list` values; the rest is looked up.
  void extend_additive(RawObject& obj, const RawObject& tmpl) {
    for (RawAttr& own : obj.attrs)
      if (const RawAttr* from = tmpl.find(own.id, own.key)) extend(own, *from);
  }

  void extend(RawAttr& own, const RawAttr& from) {
    if (from.is_null || own.is_null || from.key.front() == '_') return;
    if (!own.value.starts_with('+') || !is_additive_directive(type_, from.key)) return;
    own.value = store_.keep(fmt::format("{},{}", from.value, own.value.substr(1)));
  }

  ObjectStore& store_;
  Diagnostics& diags_;
  ObjectType type_;
  std::deque<RawObject>& objects_;
  std::unordered_map<std::string_view, std::uint32_t> by_name_;
};

}  // namespace

void resolve_templates(ObjectStore& store, Diagnostics& diags) {
  for (std::size_t t = 0; t < k_object_type_count; ++t)
    Resolver(store, diags, static_cast<ObjectType>(t)).run();
}

void clean_additive_values(ObjectStore& store) {
  for (std::size_t t = 0; t < k_object_type_count; ++t) {
    const auto type = static_cast<ObjectType>(t);
    const bool escalation = type == ObjectType::hostescalation || type == ObjectType::serviceescalation;
    for (RawObject& obj : store.of(type)) {
      for (RawAttr& a : obj.attrs) {
        if (!a.value.starts_with('+') || !is_additive_directive(type, a.key)) continue;
        if (escalation && (a.key == "contacts" || a.key == "contact_groups")) continue;
        a.value.remove_prefix(1);
      }
    }
  }
}

}  // namespace vedette::config
