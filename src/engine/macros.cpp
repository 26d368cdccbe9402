#include "engine/macros.hpp"

#include "config/command_compiler.hpp"
#include "engine/downtime_book.hpp"
#include "timeperiod/evaluator.hpp"

#include <algorithm>
#include <array>
#include <bitset>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace vedette::engine {
namespace {

// Naemon's macro names (macros.h), each once. The order is ours; lookups go through k_keys, sorted by name.
// clang-format off
#define VEDETTE_MACROS(X) \
  /* host */ \
  X(HOSTNAME) X(HOSTDISPLAYNAME) X(HOSTALIAS) X(HOSTADDRESS) X(HOSTSTATE) X(HOSTSTATEID) \
  X(LASTHOSTSTATE) X(LASTHOSTSTATEID) X(HOSTCHECKTYPE) X(HOSTSTATETYPE) X(HOSTOUTPUT) X(LONGHOSTOUTPUT) \
  X(HOSTPERFDATA) X(HOSTCHECKCOMMAND) X(HOSTATTEMPT) X(MAXHOSTATTEMPTS) X(HOSTDOWNTIME) X(HOSTPERCENTCHANGE) \
  X(HOSTDURATIONSEC) X(HOSTDURATION) X(HOSTEXECUTIONTIME) X(HOSTLATENCY) X(LASTHOSTCHECK) X(LASTHOSTSTATECHANGE) \
  X(LASTHOSTUP) X(LASTHOSTDOWN) X(LASTHOSTUNREACHABLE) X(HOSTNOTIFICATIONNUMBER) X(HOSTNOTIFICATIONID) X(HOSTEVENTID) \
  X(LASTHOSTEVENTID) X(HOSTPROBLEMID) X(LASTHOSTPROBLEMID) X(HOSTPROBLEMSTART) X(HOSTPROBLEMEND) X(HOSTPROBLEMDURATIONSEC) \
  X(HOSTPROBLEMDURATION) X(HOSTACTIONURL) X(HOSTNOTESURL) X(HOSTNOTES) X(HOSTGROUPNAMES) X(TOTALHOSTSERVICES) \
  X(TOTALHOSTSERVICESOK) X(TOTALHOSTSERVICESWARNING) X(TOTALHOSTSERVICESUNKNOWN) X(TOTALHOSTSERVICESCRITICAL) X(HOSTACKAUTHOR) X(HOSTACKAUTHORNAME) \
  X(HOSTACKAUTHORALIAS) X(HOSTACKCOMMENT) \
  /* hostgroup */ \
  X(HOSTGROUPNAME) X(HOSTGROUPALIAS) X(HOSTGROUPMEMBERS) X(HOSTGROUPACTIONURL) X(HOSTGROUPNOTESURL) X(HOSTGROUPNOTES) \
  /* service */ \
  X(SERVICEDESC) X(SERVICEDISPLAYNAME) X(SERVICEOUTPUT) X(LONGSERVICEOUTPUT) X(SERVICEPERFDATA) X(SERVICECHECKCOMMAND) \
  X(SERVICECHECKTYPE) X(SERVICESTATETYPE) X(SERVICESTATE) X(SERVICESTATEID) X(LASTSERVICESTATE) X(LASTSERVICESTATEID) \
  X(SERVICEISVOLATILE) X(SERVICEATTEMPT) X(MAXSERVICEATTEMPTS) X(SERVICEEXECUTIONTIME) X(SERVICELATENCY) X(LASTSERVICECHECK) \
  X(LASTSERVICESTATECHANGE) X(LASTSERVICEOK) X(LASTSERVICEWARNING) X(LASTSERVICEUNKNOWN) X(LASTSERVICECRITICAL) X(SERVICEDOWNTIME) \
  X(SERVICEPERCENTCHANGE) X(SERVICEDURATIONSEC) X(SERVICEDURATION) X(SERVICENOTIFICATIONNUMBER) X(SERVICENOTIFICATIONID) X(SERVICEEVENTID) \
  X(LASTSERVICEEVENTID) X(SERVICEPROBLEMID) X(LASTSERVICEPROBLEMID) X(SERVICEPROBLEMSTART) X(SERVICEPROBLEMEND) X(SERVICEPROBLEMDURATIONSEC) \
  X(SERVICEPROBLEMDURATION) X(SERVICEACTIONURL) X(SERVICENOTESURL) X(SERVICENOTES) X(SERVICEGROUPNAMES) X(SERVICEACKAUTHOR) \
  X(SERVICEACKAUTHORNAME) X(SERVICEACKAUTHORALIAS) X(SERVICEACKCOMMENT) \
  /* servicegroup */ \
  X(SERVICEGROUPNAME) X(SERVICEGROUPALIAS) X(SERVICEGROUPMEMBERS) X(SERVICEGROUPACTIONURL) X(SERVICEGROUPNOTESURL) X(SERVICEGROUPNOTES) \
  /* contact */ \
  X(CONTACTNAME) X(CONTACTALIAS) X(CONTACTEMAIL) X(CONTACTPAGER) X(CONTACTGROUPNAMES) \
  /* contactgroup */ \
  X(CONTACTGROUPNAME) X(CONTACTGROUPALIAS) X(CONTACTGROUPMEMBERS) \
  /* notification */ \
  X(NOTIFICATIONTYPE) X(NOTIFICATIONNUMBER) X(NOTIFICATIONRECIPIENTS) X(NOTIFICATIONISESCALATED) X(NOTIFICATIONAUTHOR) X(NOTIFICATIONAUTHORNAME) \
  X(NOTIFICATIONAUTHORALIAS) X(NOTIFICATIONCOMMENT) \
  /* date and time */ \
  X(LONGDATETIME) X(SHORTDATETIME) X(DATE) X(TIME) X(TIMET) X(ISVALIDTIME) \
  X(NEXTVALIDTIME) \
  /* static */ \
  X(ADMINEMAIL) X(ADMINPAGER) X(MAINCONFIGFILE) X(STATUSDATAFILE) X(RETENTIONDATAFILE) X(OBJECTCACHEFILE) \
  X(TEMPFILE) X(LOGFILE) X(RESOURCEFILE) X(COMMANDFILE) X(HOSTPERFDATAFILE) X(SERVICEPERFDATAFILE) \
  X(PROCESSSTARTTIME) X(TEMPPATH) X(EVENTSTARTTIME) \
  /* summary */ \
  X(TOTALHOSTSUP) X(TOTALHOSTSDOWN) X(TOTALHOSTSUNREACHABLE) X(TOTALHOSTSDOWNUNHANDLED) X(TOTALHOSTSUNREACHABLEUNHANDLED) X(TOTALHOSTPROBLEMS) \
  X(TOTALHOSTPROBLEMSUNHANDLED) X(TOTALSERVICESOK) X(TOTALSERVICESWARNING) X(TOTALSERVICESCRITICAL) X(TOTALSERVICESUNKNOWN) X(TOTALSERVICESWARNINGUNHANDLED) \
  X(TOTALSERVICESCRITICALUNHANDLED) X(TOTALSERVICESUNKNOWNUNHANDLED) X(TOTALSERVICEPROBLEMS) X(TOTALSERVICEPROBLEMSUNHANDLED)
// clang-format on

enum class M : std::uint8_t {
#define VEDETTE_MACRO_ENUM(name) name,
  VEDETTE_MACROS(VEDETTE_MACRO_ENUM)
#undef VEDETTE_MACRO_ENUM
};

constexpr std::array k_names{
#define VEDETTE_MACRO_NAME(name) std::string_view(#name),
    VEDETTE_MACROS(VEDETTE_MACRO_NAME)
#undef VEDETTE_MACRO_NAME
};
#undef VEDETTE_MACROS

constexpr bool in(M code, M first, M last) {
  return code >= first && code <= last;
}
constexpr bool is_host_code(M c) {
  return in(c, M::HOSTNAME, M::HOSTACKCOMMENT);
}
constexpr bool is_hostgroup_code(M c) {
  return in(c, M::HOSTGROUPNAME, M::HOSTGROUPNOTES);
}
constexpr bool is_service_code(M c) {
  return in(c, M::SERVICEDESC, M::SERVICEACKCOMMENT);
}
constexpr bool is_servicegroup_code(M c) {
  return in(c, M::SERVICEGROUPNAME, M::SERVICEGROUPNOTES);
}
constexpr bool is_contact_code(M c) {
  return in(c, M::CONTACTNAME, M::CONTACTGROUPNAMES);
}
constexpr bool is_contactgroup_code(M c) {
  return in(c, M::CONTACTGROUPNAME, M::CONTACTGROUPMEMBERS);
}
constexpr bool is_summary_code(M c) {
  return in(c, M::TOTALHOSTSUP, M::TOTALSERVICEPROBLEMSUNHANDLED);
}

// Naemon's list of macros that STRIP_ILLEGAL_MACRO_CHARS applies to (init_macros).
constexpr bool is_cleaned(M c) {
  switch (c) {
    case M::HOSTOUTPUT:
    case M::LONGHOSTOUTPUT:
    case M::HOSTPERFDATA:
    case M::HOSTACKAUTHOR:
    case M::HOSTACKCOMMENT:
    case M::SERVICEOUTPUT:
    case M::LONGSERVICEOUTPUT:
    case M::SERVICEPERFDATA:
    case M::SERVICEACKAUTHOR:
    case M::SERVICEACKCOMMENT:
    case M::HOSTCHECKCOMMAND:
    case M::SERVICECHECKCOMMAND:
    case M::HOSTNOTES:
    case M::SERVICENOTES:
    case M::HOSTGROUPNOTES:
    case M::SERVICEGROUPNOTES:
    // Not in Naemon's list, though whoever sends an acknowledgement, a downtime or a custom notification
    // writes them (docs/compatibility.md, "Macros").
    case M::NOTIFICATIONAUTHOR:
    case M::NOTIFICATIONCOMMENT:
      return true;
    default:
      return false;
  }
}

struct Key {
  std::string_view name;
  M code;
};

const std::vector<Key>& sorted_keys() {
  static const std::vector<Key> keys = [] {
    std::vector<Key> v;
    v.reserve(k_names.size());
    for (std::size_t i = 0; i < k_names.size(); ++i) v.push_back({k_names[i], static_cast<M>(i)});
    std::sort(v.begin(), v.end(), [](const Key& a, const Key& b) { return a.name < b.name; });
    return v;
  }();
  return keys;
}

const Key* find_key(std::string_view name) {
  const std::vector<Key>& keys = sorted_keys();
  auto it = std::lower_bound(keys.begin(), keys.end(), name,
                             [](const Key& k, std::string_view n) { return k.name < n; });
  return it != keys.end() && it->name == name ? &*it : nullptr;
}

// C's atoi on a string_view: leading blanks, a sign, digits; 0 when there are none.
long parse_atoi(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) ++i;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  long value = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9' && value < 1'000'000; ++i)
    value = value * 10 + (s[i] - '0');
  return negative ? -value : value;
}

// A macro's value: a view of long-lived text (model, state, config) or of `buf`.
struct Value {
  std::string_view view;
  std::string& buf;
  bool null = false;  // Naemon's NULL output: nothing inserted, skipped in group lists

  void set(std::string_view v) { view = v; }
  void set_owned() { view = buf; }
  void set_null() {
    view = {};
    null = true;
  }
  void set_int(long long v) {
    char tmp[24];
    const auto res = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf.assign(tmp, res.ptr);
    view = buf;
  }
  void set_uint(unsigned long long v) {
    char tmp[24];
    const auto res = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf.assign(tmp, res.ptr);
    view = buf;
  }
  void set_fixed(double v, int decimals) {
    char tmp[64];
    const int n = std::snprintf(tmp, sizeof tmp, "%.*f", decimals, v);
    buf.assign(tmp, static_cast<std::size_t>(std::clamp(n, 0, static_cast<int>(sizeof tmp) - 1)));
    view = buf;
  }
  // Naemon prints times with "%lu" of an unsigned long cast.
  void set_time(Time t) { set_uint(static_cast<unsigned long>(t)); }
  void set_duration(unsigned long d) {
    char tmp[80];
    const int n = std::snprintf(tmp, sizeof tmp, "%dd %dh %dm %ds", static_cast<int>(d / 86400),
                                static_cast<int>(d % 86400 / 3600), static_cast<int>(d % 3600 / 60),
                                static_cast<int>(d % 60));
    buf.assign(tmp, static_cast<std::size_t>(std::clamp(n, 0, static_cast<int>(sizeof tmp) - 1)));
    view = buf;
  }
};

std::string_view or_default(std::string_view v, std::string_view fallback) {
  return v.empty() ? fallback : v;
}

// An on-demand argument: `$HOSTSTATE:web01$` has arg1 "web01", `$SERVICESTATE::HTTP$` an empty arg1.
struct Arg {
  std::string_view text;
  bool present = false;
};

constexpr int k_max_nesting = 8;  // notes that name themselves would recurse forever in Naemon

class Resolver {
 public:
  Resolver(const MacroContext& ctx, int depth) : ctx_(ctx), m_(ctx.model), depth_(depth) {}

  // Naemon's grab_macro_value_r. `cleanable` tells whether k_strip_illegal applies to the value.
  bool resolve(std::string_view name, Value& v, bool& cleanable) {
    cleanable = false;
    if (name.starts_with("ARG")) {
      const long n = parse_atoi(name.substr(3));
      if (n <= 0 || n > static_cast<long>(config::k_max_command_args)) return false;
      const auto i = static_cast<std::size_t>(n - 1);
      v.set(i < ctx_.args.size() ? ctx_.args[i] : std::string_view{});
      return true;
    }
    if (name.starts_with("USER")) {
      const long n = parse_atoi(name.substr(4));
      if (n <= 0 || n > 256) return false;
      const auto i = static_cast<std::size_t>(n - 1);
      v.set(i < m_.user_macros.size() ? m_.user_macros[i] : std::string_view{});
      return true;
    }
    if (name.starts_with("VAULT")) return false;  // a broker module's; none is loaded
    if (name == "HOSTADDRESS" && has_host()) {
      v.set(m_.host(ctx_.host).address);
      return true;
    }

    std::string_view base = name;
    std::string_view arg1, arg2;
    bool has_arg1 = false, has_arg2 = false;
    if (const std::size_t colon = name.find(':'); colon != std::string_view::npos) {
      base = name.substr(0, colon);
      arg1 = name.substr(colon + 1);
      has_arg1 = true;
      if (const std::size_t second = arg1.find(':'); second != std::string_view::npos) {
        arg2 = arg1.substr(second + 1);
        arg1 = arg1.substr(0, second);
        has_arg2 = true;
      }
    }
    const Arg a1{arg1, has_arg1}, a2{arg2, has_arg2};

    if (const Key* key = find_key(base)) {
      cleanable = is_cleaned(key->code);
      return keyed(key->code, a1, a2, v);
    }
    if (base.starts_with("CONTACTADDRESS")) return contact_address(base, a1, a2, v);
    if (base.starts_with('_')) {
      const bool known = custom(base, a1, a2, v);
      cleanable = changed_at_run_time_;
      return known;
    }
    return false;
  }

  bool keyed(M code, Arg a1, Arg a2, Value& v);

 private:
  [[nodiscard]] bool has_host() const { return model::is_set(ctx_.host); }

  const HostState* host_state(model::HostId id) const {
    if (id == ctx_.host && ctx_.host_state) return ctx_.host_state;
    if (ctx_.all_hosts && model::index(id) < ctx_.all_hosts->size())
      return &(*ctx_.all_hosts)[model::index(id)];
    return nullptr;
  }
  const ServiceState* service_state(model::ServiceId id) const {
    if (id == ctx_.service && ctx_.service_state) return ctx_.service_state;
    if (ctx_.all_services && model::index(id) < ctx_.all_services->size())
      return &(*ctx_.all_services)[model::index(id)];
    return nullptr;
  }

  // Naemon's NULL for no id (nothing inserted), else the id's text.
  static bool set_uuid(state::Uuid id, Value& v) {
    if (!id.is_set()) {
      v.set_null();
      return true;
    }
    v.buf.clear();
    state::append_uuid(id, v.buf);
    v.set_owned();
    return true;
  }
  // $…PROBLEMDURATION$: until the problem ended, or until now while it lasts.
  unsigned long problem_duration(const state::EventIds& e) const {
    if (e.problem_end > 0) return static_cast<unsigned long>(e.problem_end - e.problem_start);
    if (e.problem_start > 0) return static_cast<unsigned long>(ctx_.now - e.problem_start);
    return 0;
  }
  // $…ACKAUTHOR$, $…ACKAUTHORNAME$, $…ACKAUTHORALIAS$, $…ACKCOMMENT$ (which: 0 to 3).
  void ack_macro(int which, Value& v) const {
    const NotificationMacros* n = ctx_.notification;
    if (n == nullptr || !n->acknowledgement) {
      v.set_null();
      return;
    }
    const std::string_view values[] = {n->author, n->author_name, n->author_alias, n->comment};
    v.set(values[which]);
  }
  void notification_macro(M code, Value& v) const {
    const NotificationMacros* n = ctx_.notification;
    if (n == nullptr) {
      v.set_null();
      return;
    }
    switch (code) {
      case M::NOTIFICATIONTYPE:
        v.set(n->type);
        break;
      case M::NOTIFICATIONNUMBER:
        v.set_int(n->number);
        break;
      case M::NOTIFICATIONRECIPIENTS:
        v.set(n->recipients);
        break;
      case M::NOTIFICATIONISESCALATED:
        v.set_int(n->escalated ? 1 : 0);
        break;
      case M::NOTIFICATIONAUTHOR:
        v.set(n->author);
        break;
      case M::NOTIFICATIONAUTHORNAME:
        v.set(n->author_name);
        break;
      case M::NOTIFICATIONAUTHORALIAS:
        v.set(n->author_alias);
        break;
      default:  // NOTIFICATIONCOMMENT
        v.set(n->comment);
        break;
    }
  }

  std::optional<model::HostId> find_host(std::string_view name) const {
    auto it = m_.host_by_name.find(name);
    if (it == m_.host_by_name.end()) return std::nullopt;
    return it->second;
  }
  template <class Id>
  static std::optional<Id> find_in(const std::unordered_map<std::string_view, Id>& map,
                                   std::string_view name) {
    auto it = map.find(name);
    if (it == map.end()) return std::nullopt;
    return it->second;
  }
  std::optional<model::ServicegroupId> find_servicegroup(std::string_view name) const {
    // Model has no servicegroup name index; groups are few.
    for (std::uint32_t i = 0; i < m_.servicegroups.size(); ++i)
      if (m_.servicegroups[i].name == name) return model::ServicegroupId{i};
    return std::nullopt;
  }

  // Naemon's hostgroup members live in a tree sorted by host name.
  std::vector<model::HostId> hosts_by_name(const model::Hostgroup& g) const {
    std::vector<model::HostId> members = g.members;
    std::sort(members.begin(), members.end(),
              [&](model::HostId x, model::HostId y) { return m_.host(x).name < m_.host(y).name; });
    return members;
  }
  std::vector<model::ServiceId> services_by_name(const model::Servicegroup& g) const {
    std::vector<model::ServiceId> members = g.members;
    std::sort(members.begin(), members.end(), [&](model::ServiceId x, model::ServiceId y) {
      const model::Service& sx = m_.service(x);
      const model::Service& sy = m_.service(y);
      return std::tie(sx.host_name, sx.description) < std::tie(sy.host_name, sy.description);
    });
    return members;
  }

  bool host_macro(M code, model::HostId id, Value& v);
  bool hostgroup_macro(M code, model::HostgroupId id, Value& v);
  bool service_macro(M code, model::ServiceId id, Value& v);
  bool servicegroup_macro(M code, model::ServicegroupId id, Value& v);
  bool contact_macro(M code, model::ContactId id, Value& v);
  bool contactgroup_macro(M code, model::ContactgroupId id, Value& v);
  bool datetime_macro(M code, Arg a1, Arg a2, Value& v);
  bool static_macro(M code, Value& v);
  bool summary_macro(M code, Value& v);
  bool contact_address(std::string_view base, Arg a1, Arg a2, Value& v);
  bool custom(std::string_view base, Arg a1, Arg a2, Value& v);
  // A custom variable's value: CHANGE_CUSTOM_*_VAR's if a command changed it, else the configured one.
  bool custom_of(const std::vector<model::CustomVariable>& vars, const CheckState* st, std::string_view var,
                 Value& v);
  bool host_custom(model::HostId id, std::string_view var, Value& v) {
    return custom_of(m_.host(id).custom_variables, host_state(id), var, v);
  }
  bool service_custom(model::ServiceId id, std::string_view var, Value& v) {
    return custom_of(m_.service(id).custom_variables, service_state(id), var, v);
  }
  // The notes and URLs of objects are themselves macro-expanded.
  void expand_nested(std::string_view text, unsigned options, Value& v);

  bool is_contact_for_host(model::ContactId c, const model::Host& h) const;
  bool is_contact_for_service(model::ContactId c, const model::Service& s) const;

  const MacroContext& ctx_;
  const model::Model& m_;
  int depth_;
  // A custom variable read had a value CHANGE_CUSTOM_*_VAR set: from outside, so cleaned as outputs are
  // (Naemon cleans no custom variable).
  bool changed_at_run_time_ = false;
};

// Naemon prepends each group to an object's list as memberships are registered, so its "first" group is
// the last one registered and its lists run backwards; the model keeps groups in definition (id) order.
template <class Id, class Groups>
bool join_group_names(const std::vector<Id>& ids, const Groups& groups, Value& v) {
  if (ids.empty()) {
    v.set_null();
    return true;
  }
  v.buf.clear();
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    if (!v.buf.empty()) v.buf += ',';
    v.buf += groups[model::index(*it)].name;
  }
  v.set_owned();
  return true;
}

void url_encode(std::string_view in, std::string& out) {
  static constexpr char k_hex[] = "0123456789ABCDEF";
  out.clear();
  for (char c : in) {
    const auto u = static_cast<unsigned char>(c);
    if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '.' || c == '-' ||
        c == '_' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += k_hex[u >> 4];
      out += k_hex[u & 0xF];
    }
  }
}

// Naemon's illegal_output_char_map: control bytes and DEL always, plus illegal_macro_output_chars.
bool is_illegal_output_char(char c, std::string_view configured) {
  const auto u = static_cast<unsigned char>(c);
  return u < 32 || u == 127 || configured.find(c) != std::string_view::npos;
}

void process_impl(std::string_view text, const MacroContext& ctx, unsigned options, std::string& out,
                  int depth);

// Buffers for one nesting level, reused from call to call so a check allocates nothing here once warm.
struct LevelBuffers {
  std::string value;
  std::string encoded;
  std::string cleaned;
};
LevelBuffers& level_buffers(int depth) {
  thread_local std::array<LevelBuffers, k_max_nesting + 2> levels;
  return levels[static_cast<std::size_t>(std::clamp(depth, 0, k_max_nesting + 1))];
}

// The text one `$name$` (or a trailing unterminated `$name`) becomes under `options`. The view points into
// the model, the state, or the level's buffers, and is valid until the next call at the same depth.
std::string_view macro_text(std::string_view name, bool terminated, const MacroContext& ctx, unsigned options,
                            int depth) {
  LevelBuffers& b = level_buffers(depth);
  Value v{{}, b.value};
  bool cleanable = false;
  if (!Resolver(ctx, depth).resolve(name, v, cleanable)) {
    b.cleaned.clear();
    b.cleaned += '$';
    b.cleaned += name;
    if (terminated) b.cleaned += '$';
    return b.cleaned;
  }
  std::string_view text = v.view;
  if (options & k_url_encode) {
    url_encode(text, b.encoded);
    text = b.encoded;
  }
  if (cleanable && (options & k_strip_illegal)) {
    const std::string_view illegal = ctx.main.illegal_macro_output_chars;
    if (std::any_of(text.begin(), text.end(), [&](char c) { return is_illegal_output_char(c, illegal); })) {
      b.cleaned.clear();
      for (char c : text)
        if (!is_illegal_output_char(c, illegal)) b.cleaned += c;
      text = b.cleaned;
    }
  }
  return text;
}

void process_impl(std::string_view text, const MacroContext& ctx, unsigned options, std::string& out,
                  int depth) {
  bool in_macro = false;
  std::size_t pos = 0;
  while (true) {
    const std::size_t dollar = text.find('$', pos);
    const bool last = dollar == std::string_view::npos;
    const std::string_view segment = text.substr(pos, last ? std::string_view::npos : dollar - pos);
    if (!in_macro) {
      out += segment;
      in_macro = true;
    } else if (segment.empty()) {
      out += '$';
      in_macro = false;
    } else {
      out += macro_text(segment, !last, ctx, options, depth);
      in_macro = false;
    }
    if (last) break;
    pos = dollar + 1;
  }
}

void Resolver::expand_nested(std::string_view text, unsigned options, Value& v) {
  if (depth_ >= k_max_nesting) {
    v.set(text);
    return;
  }
  std::string expanded;
  process_impl(text, ctx_, options, expanded, depth_ + 1);
  v.buf = std::move(expanded);
  v.set_owned();
}

bool Resolver::keyed(M code, Arg a1, Arg a2, Value& v) {
  if (is_host_code(code)) {
    if (!a2.present) {
      model::HostId id = ctx_.host;
      if (a1.present) {
        const auto found = find_host(a1.text);
        if (!found) return false;
        id = *found;
      } else if (!has_host()) {
        return false;
      }
      return host_macro(code, id, v);
    }
    const auto group = find_in(m_.hostgroup_by_name, a1.text);
    if (!group) return false;
    std::string joined, item_buf;
    for (model::HostId h : hosts_by_name(m_.hostgroups[model::index(*group)])) {
      Value item{{}, item_buf};
      if (!host_macro(code, h, item) || item.null) continue;
      if (!joined.empty()) joined += a2.text;  // Naemon adds the delimiter only after non-empty text
      joined += item.view;
    }
    v.buf = std::move(joined);
    v.set_owned();
    return true;
  }
  if (is_hostgroup_code(code)) {
    if (a1.present) {
      const auto group = find_in(m_.hostgroup_by_name, a1.text);
      return group && hostgroup_macro(code, *group, v);
    }
    if (!has_host() || m_.host(ctx_.host).hostgroups.empty()) return false;
    return hostgroup_macro(code, m_.host(ctx_.host).hostgroups.back(), v);
  }
  if (is_service_code(code)) {
    if (!a1.present && !a2.present) {
      return model::is_set(ctx_.service) && service_macro(code, ctx_.service, v);
    }
    if (a1.text.empty()) {
      if (!has_host()) return false;
      const model::ServiceId id = m_.find_service(m_.host(ctx_.host).name, a2.text);
      if (model::is_set(id)) return service_macro(code, id, v);
      v.set_null();
      return true;
    }
    if (a2.present) {
      const model::ServiceId id = m_.find_service(a1.text, a2.text);
      if (model::is_set(id)) return service_macro(code, id, v);
      const auto group = find_servicegroup(a1.text);
      if (!group) return false;
      std::string joined, item_buf;
      bool any = false;
      for (model::ServiceId s : services_by_name(m_.servicegroups[model::index(*group)])) {
        Value item{{}, item_buf};
        if (!service_macro(code, s, item) || item.null) continue;
        if (any) joined += a2.text;
        joined += item.view;
        any = true;
      }
      v.buf = std::move(joined);
      v.set_owned();
      return true;
    }
    return false;
  }
  if (is_servicegroup_code(code)) {
    if (a1.present) {
      const auto group = find_servicegroup(a1.text);
      return group && servicegroup_macro(code, *group, v);
    }
    if (!model::is_set(ctx_.service) || m_.service(ctx_.service).servicegroups.empty()) return false;
    return servicegroup_macro(code, m_.service(ctx_.service).servicegroups.back(), v);
  }
  if (is_contact_code(code)) {
    if (!a2.present) {
      model::ContactId id = ctx_.contact;
      if (a1.present) {
        const auto found = find_in(m_.contact_by_name, a1.text);
        if (!found) return false;
        id = *found;
      } else if (!model::is_set(id)) {
        return false;
      }
      return contact_macro(code, id, v);
    }
    const auto group = find_in(m_.contactgroup_by_name, a1.text);
    if (!group) return false;
    std::string joined, item_buf;
    bool any = false;
    for (model::ContactId c : m_.contactgroups[model::index(*group)].members) {
      Value item{{}, item_buf};
      if (!contact_macro(code, c, item) || item.null) continue;
      if (any) joined += a2.text;
      joined += item.view;
      any = true;
    }
    v.buf = std::move(joined);
    v.set_owned();
    return true;
  }
  if (is_contactgroup_code(code)) {
    if (a1.present) {
      const auto group = find_in(m_.contactgroup_by_name, a1.text);
      return group && contactgroup_macro(code, *group, v);
    }
    if (!model::is_set(ctx_.contact) || m_.contacts[model::index(ctx_.contact)].contactgroups.empty())
      return false;
    return contactgroup_macro(code, m_.contacts[model::index(ctx_.contact)].contactgroups.back(), v);
  }
  if (in(code, M::NOTIFICATIONTYPE, M::NOTIFICATIONCOMMENT)) {
    notification_macro(code, v);  // set while notifying only; empty everywhere else
    return true;
  }
  if (in(code, M::LONGDATETIME, M::NEXTVALIDTIME)) return datetime_macro(code, a1, a2, v);
  if (in(code, M::ADMINEMAIL, M::EVENTSTARTTIME)) return static_macro(code, v);
  if (is_summary_code(code)) return summary_macro(code, v);
  return false;
}

bool Resolver::host_macro(M code, model::HostId id, Value& v) {
  const model::Host& h = m_.host(id);
  switch (code) {
    case M::HOSTNAME:
      v.set(h.name);
      return true;
    case M::HOSTDISPLAYNAME:
      v.set(or_default(h.display_name, h.name));
      return true;
    case M::HOSTALIAS:
      v.set(or_default(h.alias, h.name));
      return true;
    case M::HOSTADDRESS:
      v.set(or_default(h.address, h.name));
      return true;
    case M::HOSTCHECKCOMMAND:
      v.set(h.check_command.raw);
      return true;
    case M::MAXHOSTATTEMPTS: {  // CHANGE_MAX_HOST_CHECK_ATTEMPTS's value when a command changed it
      const HostState* s = host_state(id);
      v.set_int(s != nullptr ? state::max_check_attempts_of(h, *s) : h.max_check_attempts);
      return true;
    }
    case M::HOSTACTIONURL:
      expand_nested(h.action_url, k_url_encode, v);
      return true;
    case M::HOSTNOTESURL:
      expand_nested(h.notes_url, k_url_encode, v);
      return true;
    case M::HOSTNOTES:
      expand_nested(h.notes, k_macro_plain, v);
      return true;
    case M::HOSTGROUPNAMES:
      return join_group_names(h.hostgroups, m_.hostgroups, v);
    case M::HOSTDOWNTIME:
      if (ctx_.notification != nullptr && ctx_.notification->host_downtime_depth >= 0 && id == ctx_.host) {
        v.set_int(ctx_.notification->host_downtime_depth);
        return true;
      }
      v.set_int(ctx_.downtimes != nullptr ? ctx_.downtimes->depth(id) : 0);
      return true;
    // Set only while an acknowledgement is notified (Naemon computes them nowhere else).
    case M::HOSTACKAUTHOR:
    case M::HOSTACKAUTHORNAME:
    case M::HOSTACKAUTHORALIAS:
    case M::HOSTACKCOMMENT:
      ack_macro(code == M::HOSTACKAUTHOR        ? 0
                : code == M::HOSTACKAUTHORNAME  ? 1
                : code == M::HOSTACKAUTHORALIAS ? 2
                                                : 3,
                v);
      return true;
    case M::TOTALHOSTSERVICES:
    case M::TOTALHOSTSERVICESOK:
    case M::TOTALHOSTSERVICESWARNING:
    case M::TOTALHOSTSERVICESUNKNOWN:
    case M::TOTALHOSTSERVICESCRITICAL: {
      std::array<int, 4> by_state{};
      for (model::ServiceId s : h.services) {
        const ServiceState* st = service_state(s);
        if (!st) return false;
        if (st->current_state >= 0 && st->current_state <= 3)
          ++by_state[static_cast<std::size_t>(st->current_state)];
      }
      switch (code) {
        case M::TOTALHOSTSERVICES:
          v.set_int(static_cast<long long>(h.services.size()));
          break;
        case M::TOTALHOSTSERVICESOK:
          v.set_int(by_state[k_state_ok]);
          break;
        case M::TOTALHOSTSERVICESWARNING:
          v.set_int(by_state[k_state_warning]);
          break;
        case M::TOTALHOSTSERVICESUNKNOWN:
          v.set_int(by_state[k_state_unknown]);
          break;
        default:
          v.set_int(by_state[k_state_critical]);
          break;
      }
      return true;
    }
    default:
      break;
  }

  const HostState* s = host_state(id);
  if (!s) return false;
  switch (code) {
    case M::HOSTSTATE:
      v.set(host_state_name(s->current_state));
      return true;
    case M::HOSTSTATEID:
      v.set_int(s->current_state);
      return true;
    case M::LASTHOSTSTATE:
      v.set(host_state_name(s->last_state));
      return true;
    case M::LASTHOSTSTATEID:
      v.set_int(s->last_state);
      return true;
    case M::HOSTCHECKTYPE:
      v.set(s->check_type == CheckType::passive ? "PASSIVE" : "ACTIVE");
      return true;
    case M::HOSTSTATETYPE:
      v.set(state_type_name(s->state_type));
      return true;
    case M::HOSTOUTPUT:
      v.set(s->plugin_output);
      return true;
    case M::LONGHOSTOUTPUT:
      v.set(s->long_plugin_output);
      return true;
    case M::HOSTPERFDATA:
      v.set(s->perf_data);
      return true;
    case M::HOSTATTEMPT:
      v.set_int(s->current_attempt);
      return true;
    case M::HOSTDURATIONSEC:
      v.set_uint(static_cast<unsigned long>(ctx_.now - s->last_state_change));
      return true;
    case M::HOSTDURATION:
      v.set_duration(static_cast<unsigned long>(ctx_.now - s->last_state_change));
      return true;
    case M::HOSTEXECUTIONTIME:
      v.set_fixed(s->execution_time, 3);
      return true;
    case M::HOSTLATENCY:
      v.set_fixed(s->latency, 3);
      return true;
    case M::LASTHOSTCHECK:
      v.set_time(s->last_check);
      return true;
    case M::LASTHOSTSTATECHANGE:
      v.set_time(s->last_state_change);
      return true;
    case M::LASTHOSTUP:
      v.set_time(s->last_time_up);
      return true;
    case M::LASTHOSTDOWN:
      v.set_time(s->last_time_down);
      return true;
    case M::LASTHOSTUNREACHABLE:
      v.set_time(s->last_time_unreachable);
      return true;
    case M::HOSTPERCENTCHANGE:
      v.set_fixed(s->flap.percent_state_change, 2);
      return true;
    case M::HOSTNOTIFICATIONNUMBER:
      v.set_int(s->notification.current_notification_number);
      return true;
    case M::HOSTNOTIFICATIONID:
      return set_uuid(s->notification.current_notification_id, v);
    case M::HOSTEVENTID:
      v.set_uint(s->events.current_event_id);
      return true;
    case M::LASTHOSTEVENTID:
      v.set_uint(s->events.last_event_id);
      return true;
    case M::HOSTPROBLEMID:
      return set_uuid(s->events.current_problem_id, v);
    case M::LASTHOSTPROBLEMID:
      return set_uuid(s->events.last_problem_id, v);
    case M::HOSTPROBLEMSTART:
      v.set_time(s->events.problem_start);
      return true;
    case M::HOSTPROBLEMEND:
      v.set_time(s->events.problem_end);
      return true;
    case M::HOSTPROBLEMDURATIONSEC:
      v.set_uint(problem_duration(s->events));
      return true;
    case M::HOSTPROBLEMDURATION:
      v.set_duration(problem_duration(s->events));
      return true;
    default:
      return false;
  }
}

bool Resolver::hostgroup_macro(M code, model::HostgroupId id, Value& v) {
  const model::Hostgroup& g = m_.hostgroups[model::index(id)];
  switch (code) {
    case M::HOSTGROUPNAME:
      v.set(g.name);
      return true;
    case M::HOSTGROUPALIAS:
      v.set(g.alias);
      return true;
    case M::HOSTGROUPMEMBERS:
      v.buf.clear();
      for (model::HostId h : hosts_by_name(g)) {
        if (!v.buf.empty()) v.buf += ',';
        v.buf += m_.host(h).name;
      }
      v.set_owned();
      return true;
    case M::HOSTGROUPACTIONURL:
      expand_nested(g.action_url, k_url_encode, v);
      return true;
    case M::HOSTGROUPNOTESURL:
      expand_nested(g.notes_url, k_url_encode, v);
      return true;
    case M::HOSTGROUPNOTES:
      expand_nested(g.notes, k_macro_plain, v);
      return true;
    default:
      return false;
  }
}

bool Resolver::service_macro(M code, model::ServiceId id, Value& v) {
  const model::Service& svc = m_.service(id);
  switch (code) {
    case M::SERVICEDESC:
      v.set(svc.description);
      return true;
    case M::SERVICEDISPLAYNAME:
      v.set(or_default(svc.display_name, svc.description));
      return true;
    case M::SERVICECHECKCOMMAND:
      v.set(svc.check_command.raw);
      return true;
    case M::SERVICEISVOLATILE:
      v.set_int(svc.is_volatile ? 1 : 0);
      return true;
    case M::MAXSERVICEATTEMPTS: {
      const ServiceState* s = service_state(id);
      v.set_int(s != nullptr ? state::max_check_attempts_of(svc, *s) : svc.max_check_attempts);
      return true;
    }
    case M::SERVICEACTIONURL:
      expand_nested(svc.action_url, k_url_encode, v);
      return true;
    case M::SERVICENOTESURL:
      expand_nested(svc.notes_url, k_url_encode, v);
      return true;
    case M::SERVICENOTES:
      expand_nested(svc.notes, k_macro_plain, v);
      return true;
    case M::SERVICEGROUPNAMES:
      return join_group_names(svc.servicegroups, m_.servicegroups, v);
    case M::SERVICEDOWNTIME:
      if (ctx_.notification != nullptr && ctx_.notification->downtime_depth >= 0 && id == ctx_.service) {
        v.set_int(ctx_.notification->downtime_depth);
        return true;
      }
      v.set_int(ctx_.downtimes != nullptr ? ctx_.downtimes->depth(id) : 0);
      return true;
    case M::SERVICEACKAUTHOR:
    case M::SERVICEACKAUTHORNAME:
    case M::SERVICEACKAUTHORALIAS:
    case M::SERVICEACKCOMMENT:
      ack_macro(code == M::SERVICEACKAUTHOR        ? 0
                : code == M::SERVICEACKAUTHORNAME  ? 1
                : code == M::SERVICEACKAUTHORALIAS ? 2
                                                   : 3,
                v);
      return true;
    default:
      break;
  }

  const ServiceState* s = service_state(id);
  if (!s) return false;
  switch (code) {
    case M::SERVICEOUTPUT:
      v.set(s->plugin_output);
      return true;
    case M::LONGSERVICEOUTPUT:
      v.set(s->long_plugin_output);
      return true;
    case M::SERVICEPERFDATA:
      v.set(s->perf_data);
      return true;
    case M::SERVICECHECKTYPE:
      v.set(s->check_type == CheckType::passive ? "PASSIVE" : "ACTIVE");
      return true;
    case M::SERVICESTATETYPE:
      v.set(state_type_name(s->state_type));
      return true;
    case M::SERVICESTATE:
      v.set(service_state_name(s->current_state));
      return true;
    case M::SERVICESTATEID:
      v.set_int(s->current_state);
      return true;
    case M::LASTSERVICESTATE:
      v.set(service_state_name(s->last_state));
      return true;
    case M::LASTSERVICESTATEID:
      v.set_int(s->last_state);
      return true;
    case M::SERVICEATTEMPT:
      v.set_int(s->current_attempt);
      return true;
    case M::SERVICEEXECUTIONTIME:
      v.set_fixed(s->execution_time, 3);
      return true;
    case M::SERVICELATENCY:
      v.set_fixed(s->latency, 3);
      return true;
    case M::LASTSERVICECHECK:
      v.set_time(s->last_check);
      return true;
    case M::LASTSERVICESTATECHANGE:
      v.set_time(s->last_state_change);
      return true;
    case M::LASTSERVICEOK:
      v.set_time(s->last_time_ok);
      return true;
    case M::LASTSERVICEWARNING:
      v.set_time(s->last_time_warning);
      return true;
    case M::LASTSERVICEUNKNOWN:
      v.set_time(s->last_time_unknown);
      return true;
    case M::LASTSERVICECRITICAL:
      v.set_time(s->last_time_critical);
      return true;
    case M::SERVICEDURATIONSEC:
      v.set_uint(static_cast<unsigned long>(ctx_.now - s->last_state_change));
      return true;
    case M::SERVICEDURATION:
      v.set_duration(static_cast<unsigned long>(ctx_.now - s->last_state_change));
      return true;
    case M::SERVICEPERCENTCHANGE:
      v.set_fixed(s->flap.percent_state_change, 2);
      return true;
    case M::SERVICENOTIFICATIONNUMBER:
      v.set_int(s->notification.current_notification_number);
      return true;
    case M::SERVICENOTIFICATIONID:
      return set_uuid(s->notification.current_notification_id, v);
    case M::SERVICEEVENTID:
      v.set_uint(s->events.current_event_id);
      return true;
    case M::LASTSERVICEEVENTID:
      v.set_uint(s->events.last_event_id);
      return true;
    case M::SERVICEPROBLEMID:
      return set_uuid(s->events.current_problem_id, v);
    case M::LASTSERVICEPROBLEMID:
      return set_uuid(s->events.last_problem_id, v);
    case M::SERVICEPROBLEMSTART:
      v.set_time(s->events.problem_start);
      return true;
    case M::SERVICEPROBLEMEND:
      v.set_time(s->events.problem_end);
      return true;
    case M::SERVICEPROBLEMDURATIONSEC:
      v.set_uint(problem_duration(s->events));
      return true;
    case M::SERVICEPROBLEMDURATION:
      v.set_duration(problem_duration(s->events));
      return true;
    default:
      return false;
  }
}

bool Resolver::servicegroup_macro(M code, model::ServicegroupId id, Value& v) {
  const model::Servicegroup& g = m_.servicegroups[model::index(id)];
  switch (code) {
    case M::SERVICEGROUPNAME:
      v.set(g.name);
      return true;
    case M::SERVICEGROUPALIAS:
      v.set(g.alias);
      return true;
    case M::SERVICEGROUPMEMBERS:
      v.buf.clear();
      for (model::ServiceId s : services_by_name(g)) {
        if (!v.buf.empty()) v.buf += ',';
        v.buf += m_.service(s).host_name;
        v.buf += ',';
        v.buf += m_.service(s).description;
      }
      v.set_owned();
      return true;
    case M::SERVICEGROUPACTIONURL:
      expand_nested(g.action_url, k_url_encode, v);
      return true;
    case M::SERVICEGROUPNOTESURL:
      expand_nested(g.notes_url, k_url_encode, v);
      return true;
    case M::SERVICEGROUPNOTES:
      expand_nested(g.notes, k_macro_plain, v);
      return true;
    default:
      return false;
  }
}

bool Resolver::contact_macro(M code, model::ContactId id, Value& v) {
  const model::Contact& c = m_.contacts[model::index(id)];
  switch (code) {
    case M::CONTACTNAME:
      v.set(c.name);
      return true;
    case M::CONTACTALIAS:
      v.set(or_default(c.alias, c.name));
      return true;
    case M::CONTACTEMAIL:
      v.set(c.email);
      return true;
    case M::CONTACTPAGER:
      v.set(c.pager);
      return true;
    case M::CONTACTGROUPNAMES:
      return join_group_names(c.contactgroups, m_.contactgroups, v);
    default:
      return false;
  }
}

bool Resolver::contactgroup_macro(M code, model::ContactgroupId id, Value& v) {
  const model::Contactgroup& g = m_.contactgroups[model::index(id)];
  switch (code) {
    case M::CONTACTGROUPNAME:
      v.set(g.name);
      return true;
    case M::CONTACTGROUPALIAS:
      v.set(g.alias);
      return true;
    case M::CONTACTGROUPMEMBERS:
      // Naemon repeats the first member ("a,a,b"); Vedette lists each once (docs/compatibility.md).
      v.buf.clear();
      for (model::ContactId c : g.members) {
        if (!v.buf.empty()) v.buf += ',';
        v.buf += m_.contacts[model::index(c)].name;
      }
      v.set_owned();
      return true;
    default:
      return false;
  }
}

bool Resolver::datetime_macro(M code, Arg a1, Arg a2, Value& v) {
  if (code == M::ISVALIDTIME || code == M::NEXTVALIDTIME) {
    const auto period = find_in(m_.timeperiod_by_name, a1.text);
    if (!period || !ctx_.timeperiods) return false;
    std::time_t test_time = ctx_.now;
    if (a2.present) {
      const std::string digits(a2.text);
      test_time = static_cast<std::time_t>(std::strtoul(digits.c_str(), nullptr, 0));
    }
    const auto index = static_cast<timeperiod::PeriodIndex>(model::index(*period));
    const bool valid = ctx_.timeperiods->is_time_valid(index, test_time);
    if (code == M::ISVALIDTIME) {
      v.set_int(valid ? 1 : 0);
      return true;
    }
    std::time_t next = ctx_.timeperiods->next_valid_time(index, test_time, ctx_.now);
    if (next == test_time && !valid) next = 0;
    v.set_uint(static_cast<unsigned long>(next));
    return true;
  }
  if (code == M::TIMET) {
    v.set_uint(static_cast<unsigned long>(ctx_.now));
    return true;
  }

  static constexpr std::array<const char*, 7> k_weekdays{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr std::array<const char*, 12> k_months{"Jan", "Feb", "Mar",  "Apr", "May", "Jun",
                                                        "Jul", "Aug", "Sept", "Oct", "Nov", "Dec"};
  const std::time_t t = ctx_.now;
  std::tm tm{};
  ::localtime_r(&t, &tm);
  const int year = tm.tm_year + 1900, month = tm.tm_mon + 1, day = tm.tm_mday;
  const config::DateFormat format = ctx_.main.date_format;
  const bool iso = format == config::DateFormat::iso8601 || format == config::DateFormat::strict_iso8601;
  char tmp[96];
  int n = 0;
  switch (code) {
    case M::LONGDATETIME:
      n = std::snprintf(tmp, sizeof tmp, "%s %s %d %02d:%02d:%02d %s %d",
                        k_weekdays[static_cast<std::size_t>(tm.tm_wday)],
                        k_months[static_cast<std::size_t>(tm.tm_mon)], day, tm.tm_hour, tm.tm_min, tm.tm_sec,
                        tm.tm_zone ? tm.tm_zone : "", year);
      break;
    case M::SHORTDATETIME:
      if (format == config::DateFormat::euro) {
        n = std::snprintf(tmp, sizeof tmp, "%02d-%02d-%04d %02d:%02d:%02d", day, month, year, tm.tm_hour,
                          tm.tm_min, tm.tm_sec);
      } else if (iso) {
        n = std::snprintf(tmp, sizeof tmp, "%04d-%02d-%02d%c%02d:%02d:%02d", year, month, day,
                          format == config::DateFormat::strict_iso8601 ? 'T' : ' ', tm.tm_hour, tm.tm_min,
                          tm.tm_sec);
      } else {
        n = std::snprintf(tmp, sizeof tmp, "%02d-%02d-%04d %02d:%02d:%02d", month, day, year, tm.tm_hour,
                          tm.tm_min, tm.tm_sec);
      }
      break;
    case M::DATE:
      if (format == config::DateFormat::euro) {
        n = std::snprintf(tmp, sizeof tmp, "%02d-%02d-%04d", day, month, year);
      } else if (iso) {
        n = std::snprintf(tmp, sizeof tmp, "%04d-%02d-%02d", year, month, day);
      } else {
        n = std::snprintf(tmp, sizeof tmp, "%02d-%02d-%04d", month, day, year);
      }
      break;
    default:  // TIME
      n = std::snprintf(tmp, sizeof tmp, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
      break;
  }
  v.buf.assign(tmp, static_cast<std::size_t>(std::clamp(n, 0, static_cast<int>(sizeof tmp) - 1)));
  v.set_owned();
  return true;
}

bool Resolver::static_macro(M code, Value& v) {
  const config::MainConfig& c = ctx_.main;
  switch (code) {
    case M::ADMINEMAIL:
      v.set(c.admin_email);
      return true;
    case M::ADMINPAGER:
      v.set(c.admin_pager);
      return true;
    case M::MAINCONFIGFILE:
      v.set(c.main_config_file);
      return true;
    case M::STATUSDATAFILE:
      v.set(c.status_file);
      return true;
    case M::RETENTIONDATAFILE:
      v.set(c.state_retention_file);
      return true;
    case M::OBJECTCACHEFILE:
      v.set(c.object_cache_file);
      return true;
    case M::TEMPFILE:
      v.set(c.temp_file);
      return true;
    case M::LOGFILE:
      v.set(c.log_file);
      return true;
    case M::RESOURCEFILE:  // Naemon keeps the last resource_file it read
      v.set(c.resource_files.empty() ? std::string_view{} : std::string_view(c.resource_files.back()));
      return true;
    case M::COMMANDFILE:
      v.set(c.command_file);
      return true;
    case M::HOSTPERFDATAFILE:
      v.set(c.host_perfdata_file);
      return true;
    case M::SERVICEPERFDATAFILE:
      v.set(c.service_perfdata_file);
      return true;
    case M::TEMPPATH:
      v.set(c.temp_path);
      return true;
    case M::PROCESSSTARTTIME:
    case M::EVENTSTARTTIME:
      v.set_time(ctx_.program_start);
      return true;
    default:
      return false;
  }
}

bool Resolver::is_contact_for_host(model::ContactId c, const model::Host& h) const {
  if (std::find(h.contacts.begin(), h.contacts.end(), c) != h.contacts.end()) return true;
  const auto& groups = m_.contacts[model::index(c)].contactgroups;
  return std::any_of(h.contact_groups.begin(), h.contact_groups.end(), [&](model::ContactgroupId g) {
    return std::find(groups.begin(), groups.end(), g) != groups.end();
  });
}

bool Resolver::is_contact_for_service(model::ContactId c, const model::Service& s) const {
  if (std::find(s.contacts.begin(), s.contacts.end(), c) != s.contacts.end()) return true;
  const auto& groups = m_.contacts[model::index(c)].contactgroups;
  return std::any_of(s.contact_groups.begin(), s.contact_groups.end(), [&](model::ContactgroupId g) {
    return std::find(groups.begin(), groups.end(), g) != groups.end();
  });
}

bool Resolver::summary_macro(M code, Value& v) {
  if (!ctx_.all_hosts || !ctx_.all_services) return false;
  const bool filter = model::is_set(ctx_.contact);
  // As Naemon: a problem is handled when it is in a downtime, acknowledged, or its active checks are
  // disabled at run time; a service's also when its host is DOWN or UNREACHABLE.
  const auto handled = [&](const auto& id, const auto& state) {
    return (ctx_.downtimes != nullptr && ctx_.downtimes->depth(id) > 0) ||
           state.problem_has_been_acknowledged || !state.enabled(state::Flag::active_checks);
  };
  int up = 0, down = 0, unreachable = 0, down_unhandled = 0;
  for (std::uint32_t i = 0; i < m_.hosts.size() && i < ctx_.all_hosts->size(); ++i) {
    const model::Host& h = m_.hosts[i];
    if (filter && !is_contact_for_host(ctx_.contact, h)) continue;
    const HostState& s = (*ctx_.all_hosts)[i];
    if (s.current_state == k_host_up && s.has_been_checked) {
      ++up;
    } else if (s.current_state == k_host_down || s.current_state == k_host_unreachable) {
      // Naemon counts unhandled UNREACHABLE hosts as unhandled DOWN ones; TOTALHOSTSUNREACHABLEUNHANDLED
      // stays 0. Kept for compatibility.
      if (!handled(model::HostId{i}, s)) ++down_unhandled;
      (s.current_state == k_host_down ? down : unreachable)++;
    }
  }
  std::array<int, 4> svc{}, svc_unhandled{};
  for (std::uint32_t i = 0; i < m_.services.size() && i < ctx_.all_services->size(); ++i) {
    const model::Service& sv = m_.services[i];
    if (filter && !is_contact_for_service(ctx_.contact, sv)) continue;
    const ServiceState& s = (*ctx_.all_services)[i];
    if (s.current_state == k_state_ok) {
      if (s.has_been_checked) ++svc[k_state_ok];
      continue;
    }
    if (s.current_state < 1 || s.current_state > 3) continue;
    const auto st = static_cast<std::size_t>(s.current_state);
    bool problem = !handled(model::ServiceId{i}, s);
    if (model::is_set(sv.host) && model::index(sv.host) < ctx_.all_hosts->size()) {
      const int hs = (*ctx_.all_hosts)[model::index(sv.host)].current_state;
      if (hs == k_host_down || hs == k_host_unreachable) problem = false;
    }
    if (problem) ++svc_unhandled[st];
    ++svc[st];
  }
  long long value = 0;
  switch (code) {
    case M::TOTALHOSTSUP:
      value = up;
      break;
    case M::TOTALHOSTSDOWN:
      value = down;
      break;
    case M::TOTALHOSTSUNREACHABLE:
      value = unreachable;
      break;
    case M::TOTALHOSTSDOWNUNHANDLED:
      value = down_unhandled;
      break;
    case M::TOTALHOSTSUNREACHABLEUNHANDLED:
      value = 0;
      break;
    case M::TOTALHOSTPROBLEMS:
      value = down + unreachable;
      break;
    case M::TOTALHOSTPROBLEMSUNHANDLED:
      value = down_unhandled;
      break;
    case M::TOTALSERVICESOK:
      value = svc[k_state_ok];
      break;
    case M::TOTALSERVICESWARNING:
      value = svc[k_state_warning];
      break;
    case M::TOTALSERVICESCRITICAL:
      value = svc[k_state_critical];
      break;
    case M::TOTALSERVICESUNKNOWN:
      value = svc[k_state_unknown];
      break;
    case M::TOTALSERVICESWARNINGUNHANDLED:
      value = svc_unhandled[k_state_warning];
      break;
    case M::TOTALSERVICESCRITICALUNHANDLED:
      value = svc_unhandled[k_state_critical];
      break;
    case M::TOTALSERVICESUNKNOWNUNHANDLED:
      value = svc_unhandled[k_state_unknown];
      break;
    case M::TOTALSERVICEPROBLEMS:
      value = svc[1] + svc[2] + svc[3];
      break;
    default:  // TOTALSERVICEPROBLEMSUNHANDLED
      value = svc_unhandled[1] + svc_unhandled[2] + svc_unhandled[3];
      break;
  }
  v.set_int(value);
  return true;
}

bool Resolver::contact_address(std::string_view base, Arg a1, Arg a2, Value& v) {
  const long n = parse_atoi(base.substr(14)) - 1;  // $CONTACTADDRESS1$ is address1
  if (n < 0 || n >= 6) return false;
  const auto slot = static_cast<std::size_t>(n);
  if (!a1.present) {
    if (!model::is_set(ctx_.contact)) return false;
    v.set(m_.contacts[model::index(ctx_.contact)].addresses[slot]);
    return true;
  }
  if (!a2.present) {
    const auto c = find_in(m_.contact_by_name, a1.text);
    if (!c) return false;
    v.set(m_.contacts[model::index(*c)].addresses[slot]);
    return true;
  }
  const auto group = find_in(m_.contactgroup_by_name, a1.text);
  if (!group) return false;
  std::string joined;
  bool any = false;
  for (model::ContactId c : m_.contactgroups[model::index(*group)].members) {
    if (any) joined += a2.text;
    joined += m_.contacts[model::index(c)].addresses[slot];
    any = true;
  }
  v.buf = std::move(joined);
  v.set_owned();
  return true;
}

bool Resolver::custom_of(const std::vector<model::CustomVariable>& vars, const CheckState* st,
                         std::string_view var, Value& v) {
  for (const model::CustomVariable& cv : vars) {
    if (cv.name == var) {
      const std::string* changed =
          st != nullptr && st->overrides != nullptr ? st->overrides->custom_variable(var) : nullptr;
      v.set(changed != nullptr ? std::string_view(*changed) : cv.value);
      if (changed != nullptr) changed_at_run_time_ = true;
      return true;
    }
  }
  return false;
}

bool Resolver::custom(std::string_view base, Arg a1, Arg a2, Value& v) {
  if (base.starts_with("_HOST")) {
    const std::string_view var = base.substr(5);
    if (!a2.present) {
      model::HostId id = ctx_.host;
      if (a1.present) {
        const auto found = find_host(a1.text);
        if (!found) return false;
        id = *found;
      } else if (!has_host()) {
        return false;
      }
      return host_custom(id, var, v);
    }
    const auto group = find_in(m_.hostgroup_by_name, a1.text);
    if (!group) return false;
    std::string joined, item_buf;
    for (model::HostId h : hosts_by_name(m_.hostgroups[model::index(*group)])) {
      Value item{{}, item_buf};
      if (!host_custom(h, var, item)) continue;
      if (!joined.empty()) joined += a2.text;
      joined += item.view;
    }
    v.buf = std::move(joined);
    v.set_owned();
    return true;
  }
  if (base.starts_with("_SERVICE")) {
    const std::string_view var = base.substr(8);
    if (!a1.present && !a2.present) {
      return model::is_set(ctx_.service) && service_custom(ctx_.service, var, v);
    }
    // Naemon looks the service up on the current host whatever the first argument says; Vedette uses the
    // host named there, empty meaning the current host, as the standard service macros do.
    std::string_view host_name = a1.text;
    if (host_name.empty()) {
      if (!has_host()) return false;
      host_name = m_.host(ctx_.host).name;
    }
    const model::ServiceId id =
        a2.present ? m_.find_service(host_name, a2.text) : model::no_id<model::ServiceId>();
    if (model::is_set(id)) return service_custom(id, var, v);
    if (!a2.present) return false;
    const auto group = find_servicegroup(a1.text);
    if (!group) return false;
    std::string joined, item_buf;
    bool any = false;
    for (model::ServiceId s : services_by_name(m_.servicegroups[model::index(*group)])) {
      Value item{{}, item_buf};
      if (!service_custom(s, var, item)) continue;
      if (any) joined += a2.text;
      joined += item.view;
      any = true;
    }
    v.buf = std::move(joined);
    v.set_owned();
    return true;
  }
  if (base.starts_with("_CONTACT")) {
    const std::string_view var = base.substr(8);
    if (!a2.present) {
      model::ContactId id = ctx_.contact;
      if (a1.present) {
        const auto found = find_in(m_.contact_by_name, a1.text);
        if (!found) return false;
        id = *found;
      } else if (!model::is_set(id)) {
        return false;
      }
      return custom_of(m_.contacts[model::index(id)].custom_variables, nullptr, var, v);
    }
    const auto group = find_in(m_.contactgroup_by_name, a1.text);
    if (!group) return false;
    std::string joined, item_buf;
    bool any = false;
    for (model::ContactId c : m_.contactgroups[model::index(*group)].members) {
      Value item{{}, item_buf};
      if (!custom_of(m_.contacts[model::index(c)].custom_variables, nullptr, var, item)) continue;
      if (any) joined += a2.text;
      joined += item.view;
      any = true;
    }
    v.buf = std::move(joined);
    v.set_owned();
    return true;
  }
  return false;
}

// Scratch for expand_command, reused from check to check (core thread; one per thread to stay safe).
struct ExpandScratch {
  std::vector<std::string> arg_buffers;
  std::vector<std::string_view> arg_values;
  std::string line;
  std::vector<std::pair<std::string, std::string>> split_env;
};

void append_environment(const MacroContext& ctx, std::vector<std::pair<std::string, std::string>>& env) {
  if (!ctx.main.enable_environment_macros) return;
  std::vector<std::pair<std::string, std::string>> extra = environment_macros(ctx);
  env.insert(env.end(), std::make_move_iterator(extra.begin()), std::make_move_iterator(extra.end()));
}

}  // namespace

bool macro_value(std::string_view name, const MacroContext& ctx, std::string& out) {
  std::string buf;
  Value v{{}, buf};
  bool cleanable = false;
  if (!Resolver(ctx, 0).resolve(name, v, cleanable)) return false;
  out.assign(v.view);
  return true;
}

void process_macros(std::string_view text, const MacroContext& ctx, unsigned options, std::string& out) {
  process_impl(text, ctx, options, out, 0);
}

void expand_command(const model::CommandTemplate& tmpl, const MacroContext& ctx,
                    std::span<const std::string_view> raw_args, ExpandedCommand& out) {
  thread_local ExpandScratch s;

  // $ARGn$ are expanded first, in order, each seeing the ones before it (Naemon's get_raw_command_line_r).
  const std::size_t n_args = std::min(raw_args.size(), config::k_max_command_args);
  if (s.arg_buffers.size() < n_args) s.arg_buffers.resize(n_args);
  s.arg_values.clear();
  s.arg_values.reserve(n_args);
  MacroContext local = ctx;
  for (std::size_t i = 0; i < n_args; ++i) {
    local.args = std::span<const std::string_view>(s.arg_values.data(), i);
    const std::string_view raw = raw_args[i];
    if (raw.find('$') == std::string_view::npos) {
      s.arg_values.push_back(raw);
      continue;
    }
    std::string& buf = s.arg_buffers[i];
    buf.clear();
    process_impl(raw, local, k_strip_illegal, buf, 1);
    s.arg_values.push_back(buf);
  }
  local.args = std::span<const std::string_view>(s.arg_values.data(), s.arg_values.size());

  out.env.clear();
  if (!tmpl.always_resplit) {
    std::size_t words = 0;
    bool fits = true;
    for (const model::CommandArg& arg : tmpl.argv) {
      if (words == out.argv.size()) out.argv.emplace_back();
      std::string& word = out.argv[words];
      word.clear();
      for (const model::CommandPiece& piece : arg.pieces) {
        if (piece.kind == model::CommandPiece::Kind::literal) {
          word += piece.text;
          continue;
        }
        const std::string_view value = macro_text(piece.text, !piece.unterminated, local, k_strip_illegal, 0);
        if (config::value_needs_resplit(value, piece)) {
          fits = false;
          break;
        }
        word += value;
      }
      if (!fits) break;
      if (arg.drop_if_empty && word.empty()) continue;
      ++words;
    }
    if (fits) {
      out.argv.resize(words);
      out.shell = tmpl.needs_shell;
      append_environment(local, out.env);
      for (const model::CommandEnv& e : tmpl.env) out.env.emplace_back(e.name, e.value);
      return;
    }
  }

  // A value changes the split: do what Naemon does, expand the whole line, then split it.
  s.line.clear();
  process_impl(tmpl.line, local, k_strip_illegal, s.line, 0);
  s.split_env.clear();
  bool shell = false;
  out.argv = config::split_expanded_line(s.line, shell, s.split_env);
  out.shell = shell;
  append_environment(local, out.env);
  for (auto& e : s.split_env) out.env.push_back(std::move(e));
}

ExpandedCommand expand_command(const model::CommandTemplate& tmpl, const MacroContext& ctx,
                               std::span<const std::string_view> raw_args) {
  ExpandedCommand out;
  out.argv.reserve(tmpl.argv.size());
  expand_command(tmpl, ctx, raw_args, out);
  return out;
}

std::vector<std::pair<std::string, std::string>> environment_macros(const MacroContext& ctx) {
  std::vector<std::pair<std::string, std::string>> env;
  if (!ctx.main.enable_environment_macros) return env;
  const auto add = [&](std::string_view name, std::string_view value) {
    std::string key = "NAGIOS_";
    key += name;
    env.emplace_back(std::move(key), std::string(value));
  };
  std::string buf;
  for (std::size_t i = 0; i < k_names.size(); ++i) {
    const auto code = static_cast<M>(i);
    if (code == M::ISVALIDTIME || code == M::NEXTVALIDTIME) continue;  // need an argument
    if (ctx.main.use_large_installation_tweaks &&
        (is_summary_code(code) || code == M::HOSTGROUPMEMBERS || code == M::SERVICEGROUPMEMBERS))
      continue;
    Value v{{}, buf};
    bool cleanable = false;
    if (!Resolver(ctx, 0).resolve(k_names[i], v, cleanable)) continue;
    add(k_names[i], v.view);
  }
  for (std::size_t i = 0; i < ctx.args.size(); ++i) add("ARG" + std::to_string(i + 1), ctx.args[i]);

  const std::string_view illegal = ctx.main.illegal_macro_output_chars;
  const auto add_custom = [&](std::string_view prefix, const std::vector<model::CustomVariable>& vars) {
    for (const model::CustomVariable& cv : vars) {
      std::string cleaned;
      for (char c : cv.value)
        if (!is_illegal_output_char(c, illegal)) cleaned += c;
      if (cleaned.empty()) continue;
      std::string name(prefix);
      name += cv.name;
      add(name, cleaned);
    }
  };
  const model::Model& m = ctx.model;
  if (model::is_set(ctx.host)) add_custom("_HOST", m.host(ctx.host).custom_variables);
  if (model::is_set(ctx.service)) add_custom("_SERVICE", m.service(ctx.service).custom_variables);
  if (model::is_set(ctx.contact)) {
    const model::Contact& c = m.contacts[model::index(ctx.contact)];
    add_custom("_CONTACT", c.custom_variables);
    // Nagios numbers these from 0 although $CONTACTADDRESS1$ is the first address.
    for (std::size_t i = 0; i < c.addresses.size(); ++i)
      add("CONTACTADDRESS" + std::to_string(i), c.addresses[i]);
  }
  return env;
}

}  // namespace vedette::engine
