#include "config/model_builder_internal.hpp"
#include "config/timeperiod_parser.hpp"

namespace vedette::config::internal {

// A timeperiod's rules: its own lines, then what each of its templates has, itself parsed the same way
// first. Depth first with an explicit stack (a chain of 200k timeperiod templates overflowed the call
// stack); messages come in the order recursion gave them.
void ModelBuilder::parse_rules(std::uint32_t index, std::vector<char>& state,
                               std::vector<timeperiod::Rules>& rules) {
  const auto& raws = store_.of(ObjectType::timeperiod);
  auto parse_own = [&](std::uint32_t i) {
    state[i] = 1;
    const RawObject& obj = raws[i];
    for (const RawLine& line : obj.timeperiod_lines) {
      if (base::Status s = parse_timeperiod_line(line.text, rules[i]); !s)
        diags_.error(
            fmt::format("Invalid timeperiod directive in timeperiod '{}': {}",
                        obj.get("timeperiod_name").empty() ? obj.template_name : obj.get("timeperiod_name"),
                        s.error()),
            {obj.at.file, line.line}, PosKind::line);
    }
  };
  if (state[index] != 0) return;
  parse_own(index);
  std::vector<std::pair<std::uint32_t, std::size_t>> stack{{index, 0}};  // a timeperiod, its templates done
  while (!stack.empty()) {
    const auto [i, done] = stack.back();
    const std::vector<std::uint32_t>& templates = raws[i].templates;
    if (done > 0) rules[i].inherit_from(rules[templates[done - 1]]);
    if (done == templates.size()) {
      stack.pop_back();
      continue;
    }
    ++stack.back().second;
    if (state[templates[done]] == 0) {
      parse_own(templates[done]);
      stack.push_back({templates[done], 0});
    }
  }
}

void ModelBuilder::build_timeperiods() {
  auto& raws = store_.of(ObjectType::timeperiod);
  std::vector<char> state(raws.size(), 0);
  std::vector<timeperiod::Rules> rules(raws.size());
  std::vector<const RawObject*> index_raws;
  for (std::uint32_t i = 0; i < raws.size(); ++i) {
    const RawObject& obj = raws[i];
    if (!obj.registered || !named(obj, "timeperiod_name")) continue;
    std::string_view name = obj.get("timeperiod_name");
    if (!index_name(model_->timeperiod_by_name, index_raws, intern(name), obj, "timeperiod")) continue;
    check_name(name, "time period", obj);
    if (!obj.has_value("alias")) diags_.error(fmt::format("Timeperiod '{}' has no alias", name), obj.at);
    parse_rules(i, state, rules);
    model::Timeperiod tp;
    tp.name = intern(name);
    tp.alias = intern(obj.get("alias"));
    tp.rules = rules[i];  // copied: a later timeperiod may still use this one as a template
    model_->timeperiods.push_back(std::move(tp));
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
