#include "config/template_resolver.hpp"

#include <fmt/format.h>

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace vedette::config {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Where a directive is: the definition and the directive's position in its attrs (both stable).
struct AttrAt {
  RawObject* obj;
  std::uint32_t position;
  bool operator==(const AttrAt&) const = default;
  RawAttr& attr() const { return obj->attrs[position]; }
};

struct AttrAtHash {
  std::size_t operator()(const AttrAt& a) const {
    return std::hash<const void*>{}(a.obj) ^ (std::size_t{a.position} * 0x9E3779B97F4A7C15u);
  }
};

class Resolver {
 public:
  Resolver(ObjectStore& store, Diagnostics& diags, ObjectType type)
      : store_(store), diags_(diags), type_(type), objects_(store.of(type)) {}

  void run() {
    if (type_ == ObjectType::service) mark_important_check_commands();
    index_templates();
    for (std::uint32_t i = 0; i < objects_.size(); ++i) resolve(i);
    join_read_values();
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

  void mark_important_check_commands() {
    for (RawObject& obj : objects_) {
      RawAttr* command = obj.find_own(directive_id("check_command"));
      if (command == nullptr || command->is_null || !command->value.starts_with('!')) continue;
      command->value.remove_prefix(1);
      obj.important_check_command = true;
    }
  }

  // A definition being resolved: the rest of its `use` list, and the template it waits for.
  struct Frame {
    std::uint32_t index;
    std::string_view rest;
    std::uint32_t waiting_for;
  };
  static constexpr std::uint32_t k_none = 0xFFFFFFFF;

  // Each template is resolved before the definition using it, depth first with an explicit stack: the call
  // stack overflowed on a chain of 200k templates. Messages come in the order recursion gave them.
  void resolve(std::uint32_t root) {
    if (objects_[root].resolution != RawObject::Resolution::pending) return;
    begin(root);
    while (!stack_.empty()) {
      Frame& frame = stack_.back();
      if (frame.waiting_for != k_none) {
        apply(frame.index, std::exchange(frame.waiting_for, k_none));
        continue;
      }
      if (frame.rest.empty()) {
        RawObject& obj = objects_[frame.index];
        obj.resolution = RawObject::Resolution::done;
        stack_.pop_back();
        continue;
      }
      const std::size_t comma = frame.rest.find(',');
      const std::string_view name = trim(frame.rest.substr(0, comma));
      frame.rest = comma == std::string_view::npos ? std::string_view{} : frame.rest.substr(comma + 1);
      if (name.empty()) continue;
      const RawObject& obj = objects_[frame.index];
      auto it = by_name_.find(name);
      if (it == by_name_.end()) {
        diags_.error(fmt::format("Template '{}' specified in {} definition could not be found", name,
                                 object_type_name(type_)),
                     obj.at);
        continue;
      }
      const RawObject& tmpl = objects_[it->second];
      if (tmpl.resolution == RawObject::Resolution::in_progress) {
        // Naemon silently stops at a loop; a loop is always a mistake, so it is an error here
        // (docs/compatibility.md).
        diags_.error(fmt::format("Template '{}' specified in {} definition is part of a circular chain of "
                                 "templates",
                                 name, object_type_name(type_)),
                     obj.at);
        continue;
      }
      if (tmpl.resolution == RawObject::Resolution::done) {
        apply(frame.index, it->second);
        continue;
      }
      frame.waiting_for = it->second;
      begin(it->second);  // `frame` is not used past this point: the stack may move
    }
  }

  void begin(std::uint32_t index) {
    RawObject& obj = objects_[index];
    obj.resolution = RawObject::Resolution::in_progress;
    // A template finds what it has in O(1) while it inherits; objects using it later do too.
    if (!obj.template_name.empty()) obj.build_index();
    stack_.push_back({index, obj.use, k_none});
  }

  // `tmpl` is resolved: the definition at `index` takes from it.
  void apply(std::uint32_t index, std::uint32_t tmpl_index) {
    RawObject& obj = objects_[index];
    RawObject& tmpl = objects_[tmpl_index];
    if (type_ == ObjectType::timeperiod) obj.timeperiod_parts().templates.push_back(tmpl_index);
    obj.bases.push_back(&tmpl);
    if (tmpl.important_check_command) take_important_check_command(obj, tmpl);
    if (obj.template_name.empty())
      extend_additive(obj, tmpl);
    else
      inherit(obj, tmpl);
  }

  // Naemon's have_important_check_command: the template's check_command replaces the definition's own
  // (a later important template in `use` replaces an earlier one's). Used by distributed setups, where a
  // passive poller's template sets every service to a `set_to_stale` command.
  void take_important_check_command(RawObject& obj, const RawObject& tmpl) {
    const RawAttr* from = tmpl.find(directive_id("check_command"));
    if (from == nullptr) return;
    if (RawAttr* own = obj.find_own(from->id)) {
      own->value = from->value;
      own->is_null = from->is_null;
      own->parsed_as = RawAttr::Parsed::no;
    } else {
      obj.add(*from);
    }
  }

  // Templates get every inherited directive copied in, so an object using them finds all in one place;
  // there are at most k_directive_count of them. Custom variables stay where they are written
  // (config/custom_variables.hpp). A `+value` is not joined to what it extends here but where an object
  // reads it (join()).
  void inherit(RawObject& obj, RawObject& tmpl) {
    for (std::uint32_t i = 0; i < tmpl.attrs.size(); ++i) {
      const RawAttr& from = tmpl.attrs[i];
      if (from.id == k_custom_variable) continue;
      RawAttr* own = obj.find_own(from.id);
      if (own == nullptr) {
        obj.add(from);
        if (auto it = extends_.find({&tmpl, i}); it != extends_.end()) {
          const AttrAt extended = it->second;
          extends_.emplace(AttrAt{&obj, static_cast<std::uint32_t>(obj.attrs.size() - 1)}, extended);
          with_unjoined_.insert(&obj);
        }
        continue;
      }
      const AttrAt own_at{&obj, static_cast<std::uint32_t>(own - obj.attrs.data())};
      // A value this template took from an earlier template: whether it can be extended depends on the
      // whole list (a plain list below the `+` items is not extended), and only one extension is kept.
      if (extends_.contains(own_at)) join(own_at);
      if (!extends(*own, from)) continue;
      extends_.emplace(own_at, AttrAt{&tmpl, i});
      with_unjoined_.insert(&obj);
    }
  }

  // An object that is not a template only completes its own `+list` values; the rest is looked up.
  void extend_additive(RawObject& obj, RawObject& tmpl) {
    for (RawAttr& own : obj.attrs) {
      if (own.id == k_custom_variable) continue;
      const RawAttr* from = tmpl.find(own.id);
      if (from == nullptr || !extends(own, *from)) continue;
      const RawAttr& joined = join({&tmpl, static_cast<std::uint32_t>(from - tmpl.attrs.data())});
      own.value = store_.keep(fmt::format("{},{}", joined.value, own.value.substr(1)));
    }
  }

  bool extends(const RawAttr& own, const RawAttr& from) const {
    if (from.is_null || own.is_null) return false;
    return own.value.starts_with('+') && is_additive_directive(type_, from.key());
  }

  // Gives a template's `+value` the whole list it stands for: what it extends (joined the same way), a
  // comma, its own items. Joining at every level instead kept a quadratic amount of text for a chain of
  // templates each adding one group (10k levels: 200 MB); this walk is as long as the list it makes.
  const RawAttr& join(AttrAt at) {
    auto it = extends_.find(at);
    if (it == extends_.end()) return at.attr();
    std::vector<std::string_view> own_items;  // innermost last
    AttrAt inner = at;
    for (; it != extends_.end(); it = extends_.find(inner)) {
      own_items.push_back(inner.attr().value.substr(1));
      inner = it->second;
    }
    std::string value(inner.attr().value);
    for (auto item = own_items.rbegin(); item != own_items.rend(); ++item) value.append(",").append(*item);
    at.attr().value = store_.keep(std::move(value));
    extends_.erase(at);
    return at.attr();
  }

  // What the model builder reads is joined: registered templates' own values and the values of the
  // templates other registered definitions use (the only ones they look up).
  void join_read_values() {
    if (extends_.empty()) return;
    auto join_all = [&](RawObject& tmpl) {
      if (with_unjoined_.erase(&tmpl) == 0) return;
      for (std::uint32_t i = 0; i < tmpl.attrs.size(); ++i) join({&tmpl, i});
    };
    for (RawObject& obj : objects_) {
      if (!obj.registered) continue;
      if (!obj.template_name.empty()) join_all(obj);
      // `bases` point into objects_, which this resolver may change.
      for (const RawObject* base : obj.bases) join_all(const_cast<RawObject&>(*base));
    }
  }

  ObjectStore& store_;
  Diagnostics& diags_;
  ObjectType type_;
  RawObjects& objects_;
  std::unordered_map<std::string_view, std::uint32_t> by_name_;
  std::vector<Frame> stack_;
  // A template's `+value` not joined yet, and the inherited value (of another template) it extends.
  std::unordered_map<AttrAt, AttrAt, AttrAtHash> extends_;
  std::unordered_set<const RawObject*> with_unjoined_;  // templates holding such values
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
        if (!a.value.starts_with('+') || !is_additive_directive(type, a.key())) continue;
        if (escalation && (a.key() == "contacts" || a.key() == "contact_groups")) continue;
        a.value.remove_prefix(1);
      }
    }
  }
}

}  // namespace vedette::config
