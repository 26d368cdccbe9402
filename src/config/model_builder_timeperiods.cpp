#include "config/inherited_list_internal.hpp"
#include "config/model_builder_internal.hpp"
#include "config/timeperiod_parser.hpp"

namespace vedette::config::internal {

namespace {

// Exceptions with the same dates are one key (DateRange::same_dates()).
struct DatesHash {
  std::size_t operator()(const timeperiod::DateRange* e) const { return e->dates_hash(); }
};
struct SameDates {
  bool operator()(const timeperiod::DateRange* a, const timeperiod::DateRange* b) const {
    return a->same_dates(*b);
  }
};

// Timeperiod definitions as InheritedList walks them: the exceptions each one writes, every type in order.
class TimeperiodTemplates {
 public:
  using Node = std::uint32_t;
  using Item = timeperiod::DateRange;

  TimeperiodTemplates(const RawObjects& raws, const std::vector<timeperiod::Rules>& own)
      : raws_(raws), own_(own) {
    for (const timeperiod::Rules& rules : own)
      for (const auto& list : rules.exceptions)
        for (const timeperiod::DateRange& e : list)
          keys_.try_emplace(&e, static_cast<std::uint32_t>(keys_.size()));
  }

  const std::vector<Node>& bases(Node tp) const { return raws_[tp].timeperiod_templates(); }
  template <typename Fn>
  void for_each_item(Node tp, bool forward, Fn&& fn) const {
    const auto& exceptions = own_[tp].exceptions;
    if (forward) {
      for (const auto& list : exceptions)
        for (const timeperiod::DateRange& e : list) fn(e);
      return;
    }
    for (auto list = exceptions.rbegin(); list != exceptions.rend(); ++list)
      for (auto e = list->rbegin(); e != list->rend(); ++e) fn(*e);
  }
  std::uint32_t key(const Item& e) const { return keys_.find(&e)->second; }
  std::size_t key_count() const { return keys_.size(); }

 private:
  const RawObjects& raws_;
  const std::vector<timeperiod::Rules>& own_;
  std::unordered_map<const timeperiod::DateRange*, std::uint32_t, DatesHash, SameDates> keys_;
};

}  // namespace

// The lines a timeperiod and its templates write, each definition parsed once, depth first with an
// explicit stack (a chain of 100k templates overflowed the call stack); messages come in the order the
// recursion gave them.
void ModelBuilder::parse_rules(std::uint32_t index, std::vector<char>& parsed,
                               std::vector<timeperiod::Rules>& own) {
  const auto& raws = store_.of(ObjectType::timeperiod);
  auto parse = [&](std::uint32_t i) {
    parsed[i] = 1;
    const RawObject& obj = raws[i];
    for (const RawLine& line : obj.timeperiod_lines()) {
      if (base::Status s = parse_timeperiod_line(line.text, own[i]); !s)
        diags_.error(
            fmt::format("Invalid timeperiod directive in timeperiod '{}': {}",
                        obj.get("timeperiod_name").empty() ? obj.template_name : obj.get("timeperiod_name"),
                        s.error()),
            {obj.at.file, line.line}, PosKind::line);
    }
  };
  if (parsed[index] != 0) return;
  parse(index);
  std::vector<std::pair<std::uint32_t, std::size_t>> stack{{index, 0}};  // a timeperiod, its templates done
  while (!stack.empty()) {
    const auto [i, done] = stack.back();
    const std::vector<std::uint32_t>& templates = raws[i].timeperiod_templates();
    if (done == templates.size()) {
      stack.pop_back();
      continue;
    }
    ++stack.back().second;
    if (parsed[templates[done]] == 0) {
      parse(templates[done]);
      stack.push_back({templates[done], 0});
    }
  }
}

// Rules as Naemon's template copying leaves them, made without copying: a weekday from the first
// definition having it, depth first through the templates; exceptions as an inherited list keyed by their
// dates (inherited_list_internal.hpp). Copying made a chain of 3000 templates, each adding an exception,
// take 6 s and 580 MB.
void ModelBuilder::build_timeperiods() {
  auto& raws = store_.of(ObjectType::timeperiod);
  std::vector<char> parsed(raws.size(), 0);
  std::vector<timeperiod::Rules> own(raws.size());
  std::vector<const RawObject*> index_raws;
  std::vector<std::uint32_t> definition_of;  // the store index each model timeperiod came from
  for (std::uint32_t i = 0; i < raws.size(); ++i) {
    const RawObject& obj = raws[i];
    if (!obj.registered || !named(obj, "timeperiod_name")) continue;
    std::string_view name = obj.get("timeperiod_name");
    if (!index_name(model_->timeperiod_by_name, index_raws, intern(name), obj, "timeperiod")) continue;
    check_name(name, "time period", obj);
    if (!obj.has_value("alias")) diags_.error(fmt::format("Timeperiod '{}' has no alias", name), obj.at);
    parse_rules(i, parsed, own);
    model::Timeperiod tp;
    tp.name = intern(name);
    tp.alias = intern(obj.get("alias"));
    model_->timeperiods.push_back(std::move(tp));
    definition_of.push_back(i);
  }
  const TimeperiodTemplates templates(raws, own);
  InheritedList<TimeperiodTemplates> walker(templates);
  using List = InheritedList<TimeperiodTemplates>::List;
  std::unordered_map<std::uint32_t, std::pair<List, const timeperiod::Rules*>> made;  // by store index
  for (std::uint32_t t = 0; t < definition_of.size(); ++t) {
    List list = walker.make(definition_of[t], [&](std::uint32_t tp) -> const List* {
      auto it = made.find(tp);
      return it == made.end() ? nullptr : &it->second.first;
    });
    timeperiod::Rules& rules = model_->timeperiods[t].rules;
    for (std::size_t day = 0; day < rules.weekdays.size(); ++day) {
      for (const auto& visited : walker.preorder()) {
        const timeperiod::Rules& from =
            visited.known != nullptr ? *made.at(visited.node).second : own[visited.node];
        if (!from.has_weekday[day]) continue;
        rules.weekdays[day] = from.weekdays[day];
        rules.has_weekday[day] = true;
        break;
      }
    }
    for (const timeperiod::DateRange* e : list)
      rules.exceptions[static_cast<std::size_t>(e->type)].push_back(*e);
    made.emplace(definition_of[t], std::make_pair(std::move(list), &rules));
  }
  for (std::uint32_t i = 0; i < model_->timeperiods.size(); ++i) {
    const RawObject& obj = *index_raws[i];
    timeperiod_marks_.start(model_->timeperiods.size());
    for (std::string_view name : split_list(obj.get("exclude"))) {
      model::TimeperiodId id = find_timeperiod(name);
      if (!model::is_set(id)) {
        diags_.error(
            fmt::format("Excluded time period '{}' specified in timeperiod '{}' is not defined anywhere!",
                        name, model_->timeperiods[i].name),
            obj.at);
        continue;
      }
      if (timeperiod_marks_.insert(model::index(id))) model_->timeperiods[i].exclusions.push_back(id);
    }
  }
  timeperiod_raws_ = std::move(index_raws);
}
}  // namespace vedette::config::internal
