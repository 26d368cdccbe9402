#include "app/privileges.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <grp.h>
#include <pwd.h>
#include <string_view>
#include <unistd.h>

namespace vedette::app {
namespace {

constexpr std::string_view k_root_refusal =
    "ERROR: do not start vedette as root user.\n"
    "Set naemon_user (and naemon_group) in the main config file to the user it should run as, or pass "
    "--allow-root to run as root anyway.";
constexpr std::string_view k_root_warning = "WARNING: you are running as root which is not recommended.";

// Old cores took an all-digit value as the id itself; anything else is a name to look up.
template <typename Id>
std::optional<Id> numeric_id(std::string_view text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  Id id{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return id;
}

struct Setting {
  std::string_view option;  // the name the config used, for messages
  const std::string* value = nullptr;
  bool empty() const { return value->empty(); }
};

// Naemon's name wins; a nagios.cfg names the same thing the Nagios way.
Setting user_setting(const config::MainConfig& main) {
  if (!main.naemon_user.empty()) return {"naemon_user", &main.naemon_user};
  return {"nagios_user", &main.nagios_user};
}

Setting group_setting(const config::MainConfig& main) {
  if (!main.naemon_group.empty()) return {"naemon_group", &main.naemon_group};
  return {"nagios_group", &main.nagios_group};
}

std::string failure(const TargetUser& user, std::string_view step, int err) {
  return fmt::format("Error: Failed to drop privileges to user '{}' (uid {}, gid {}): {}: {}. Aborting.",
                     user.name.empty() ? std::to_string(user.uid) : user.name, user.uid, user.gid, step,
                     std::strerror(err));
}

}  // namespace

bool started_as_root() {
  return ::getuid() == 0 || ::geteuid() == 0;
}

PrivilegePlan plan_privileges(const config::MainConfig& main, bool allow_root, bool running_as_root) {
  PrivilegePlan plan;
  if (!running_as_root) return plan;
  const Setting user_option = user_setting(main);
  if (user_option.empty()) {
    if (allow_root) {
      plan.warning = k_root_warning;
    } else {
      plan.error = k_root_refusal;
    }
    return plan;
  }

  TargetUser target;
  std::optional<gid_t> primary_group;
  const std::string& user_name = *user_option.value;
  if (const std::optional<uid_t> uid = numeric_id<uid_t>(user_name)) {
    target.uid = *uid;
    // A numeric id may have no passwd entry; then it gets no supplementary groups.
    if (const passwd* pw = ::getpwuid(*uid)) {
      target.name = pw->pw_name;
      primary_group = pw->pw_gid;
    }
  } else if (const passwd* pw = ::getpwnam(user_name.c_str())) {
    target.name = pw->pw_name;
    target.uid = pw->pw_uid;
    primary_group = pw->pw_gid;
  } else {
    plan.error = fmt::format("Error: Could not get passwd entry for {} '{}': no such user. Aborting.",
                             user_option.option, user_name);
    return plan;
  }

  if (target.uid == 0) {
    // Configured to run as root: the same as configuring no user.
    if (allow_root) {
      plan.warning = k_root_warning;
    } else {
      plan.error = fmt::format("{}\n({} '{}' is root.)", k_root_refusal, user_option.option, user_name);
    }
    return plan;
  }

  const Setting group_option = group_setting(main);
  const std::string& group_name = *group_option.value;
  if (group_option.empty()) {
    if (!primary_group) {
      plan.error = fmt::format(
          "Error: {} '{}' has no passwd entry, so it has no primary group: set naemon_group too. Aborting.",
          user_option.option, user_name);
      return plan;
    }
    target.gid = *primary_group;
  } else if (const std::optional<gid_t> gid = numeric_id<gid_t>(group_name)) {
    target.gid = *gid;
  } else if (const group* gr = ::getgrnam(group_name.c_str())) {
    target.gid = gr->gr_gid;
  } else {
    plan.error = fmt::format("Error: Could not get group entry for {} '{}': no such group. Aborting.",
                             group_option.option, group_name);
    return plan;
  }
  plan.switch_to = std::move(target);
  return plan;
}

base::Status switch_user(const TargetUser& user) {
  // Groups first: once the user id is not root's, the process may no longer change them.
  if (!user.name.empty()) {
    if (::initgroups(user.name.c_str(), user.gid) != 0) {
      return base::Error{failure(user, "initgroups()", errno)};
    }
  } else if (::setgroups(1, &user.gid) != 0) {
    return base::Error{failure(user, "setgroups()", errno)};
  }
  if (::setgid(user.gid) != 0) {
    return base::Error{failure(user, "setgid()", errno)};
  }
  if (::setuid(user.uid) != 0) {
    return base::Error{failure(user, "setuid()", errno)};
  }
  // setuid() as root changes the real, effective and saved ids; make sure, and that there is no way back.
  if (::getuid() != user.uid || ::geteuid() != user.uid || ::getgid() != user.gid ||
      ::getegid() != user.gid) {
    return base::Error{failure(user, "checking the new ids", EPERM)};
  }
  if (user.uid != 0 && ::setuid(0) == 0) {
    return base::Error{failure(user, "checking that root cannot be regained", EPERM)};
  }
  return base::Status::ok();
}

}  // namespace vedette::app
