// Who the daemon runs as. Started as root, Vedette switches to naemon_user/naemon_group (or Nagios 4's
// nagios_user/nagios_group) before it creates any file but the lock file, and without such a user it refuses
// to run as root unless --allow-root, as Naemon refuses. Main thread, before the core starts any thread.
//
//   PrivilegePlan plan = plan_privileges(cfg.main, allow_root, started_as_root());   // before daemonizing
//   if (!plan.error.empty()) { print plan.error; exit 1; }
//   ... lock file ...   if (plan.switch_to && !switch_user(*plan.switch_to)) { print the error; exit 1; }
#pragma once

#include "base/expected.hpp"
#include "config/main_config.hpp"

#include <optional>
#include <string>
#include <sys/types.h>

namespace vedette::app {

struct TargetUser {
  std::string name;  // for the supplementary groups; empty: a numeric naemon_user without a passwd entry
  uid_t uid = 0;
  gid_t gid = 0;
};

struct PrivilegePlan {
  std::optional<TargetUser> switch_to;  // nothing: keep running as the current user
  std::string warning;                  // to print before starting (running as root with --allow-root)
  std::string error;                    // not empty: refuse to start (exit 1)
};

// True when the process has root's real or effective user id.
bool started_as_root();

// Not root: nothing to do (a configured user is ignored, as old cores ignored it). Root: switch to the
// configured user, which may be a name or a numeric id; its group is naemon_group (a name or a numeric id)
// or else the user's primary group. No user configured, or one that is root itself: refuse, or with
// allow_root, warn and stay root. An unknown user or group is an error naming it.
PrivilegePlan plan_privileges(const config::MainConfig& main, bool allow_root, bool running_as_root);

// initgroups() (or only the group without a passwd entry), setgid(), setuid(), then checks that every id
// changed and that root cannot be regained. An error on any failure.
[[nodiscard]] base::Status switch_user(const TargetUser& user);

}  // namespace vedette::app
