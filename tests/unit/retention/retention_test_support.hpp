// Shared by the retention tests: a temporary directory, a configuration loaded by the real loader, and hot
// state initialised the way the core initialises it before retention is applied.
#pragma once

#include "engine/status_snapshot.hpp"
#include "engine/world/reload.hpp"
#include "loaded_config.hpp"
#include "retention/apply.hpp"
#include "state/check_state.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace vedette::retention::test {

namespace fs = std::filesystem;

using TempDir = vedette::test::TempDir;

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string fixture_dir() {
  return std::string(VEDETTE_SOURCE_DIR) + "/tests/fixtures/retention";
}

// A configuration (objects file + extra main-config lines) and the hot state at its initial values.
class Loaded {
 public:
  Loaded(const std::string& objects_path, const std::string& main_extra = "") {
    dir.write("naemon.cfg", "cfg_file=" + objects_path + "\nstate_retention_file=" +
                                dir.file("retention.dat") + "\nretain_state_information=1\n" + main_extra);
    cfg = vedette::test::load_config(dir.file("naemon.cfg"), files, diags);
    EXPECT_TRUE(cfg.model != nullptr);
    reset_state();
  }

  static Loaded from_text(const std::string& objects, const std::string& main_extra = "") {
    return Loaded(objects, main_extra, 0);
  }

  // As engine::Core does before anything is applied.
  void reset_state() {
    engine::initial_states(*cfg.model, hosts, services);
    contacts = state::initial_contact_states(*cfg.model);
  }

  [[nodiscard]] Target target() { return {*cfg.model, cfg.main, hosts, services, contacts}; }

  [[nodiscard]] state::HostState& host(std::string_view name) {
    const auto it = cfg.model->host_by_name.find(name);
    EXPECT_NE(it, cfg.model->host_by_name.end()) << name;
    return hosts.at(model::index(it->second));
  }
  [[nodiscard]] state::ServiceState& service(std::string_view host_name, std::string_view description) {
    const model::ServiceId id = cfg.model->find_service(host_name, description);
    EXPECT_TRUE(model::is_set(id)) << host_name << ";" << description;
    return services.at(model::index(id));
  }
  [[nodiscard]] model::ServiceId service_id(std::string_view host_name, std::string_view description) const {
    return cfg.model->find_service(host_name, description);
  }
  [[nodiscard]] model::HostId host_id(std::string_view name) const {
    return cfg.model->host_by_name.at(name);
  }

  TempDir dir{"vedette-retention"};
  config::SourceFiles files;
  config::Diagnostics diags;
  config::Configuration cfg;
  std::vector<state::HostState> hosts;
  std::vector<state::ServiceState> services;
  std::vector<state::ContactState> contacts;

 private:
  Loaded(const std::string& objects, const std::string& main_extra, int)
      : Loaded(write_objects(objects), main_extra) {}

  // The objects file lives in a directory of its own that outlives the load (kept for the process).
  static std::string write_objects(const std::string& objects) {
    static TempDir objects_dir;
    static int n = 0;
    const std::string name = "objects" + std::to_string(n++) + ".cfg";
    objects_dir.write(name, objects);
    return objects_dir.file(name);
  }
};

// What the core hands the retention writer: a snapshot of `l`'s hot state taken at `now`. Comments,
// downtimes and contacts are shared when given; none otherwise (contacts: as configured).
struct SnapshotLists {
  std::span<const Comment> comments{};
  std::span<const Downtime> downtimes{};
  std::span<const state::ContactState> contacts{};
};
inline std::shared_ptr<const files::StatusSnapshot> snapshot_of(Loaded& l, const ProgramCounters& counters,
                                                                Time now, SnapshotLists lists = {}) {
  const engine::ProgramStatus program{.now = now, .counters = counters};
  auto shared = []<typename T>(std::span<const T> items) {
    return items.empty() ? nullptr : std::make_shared<const std::vector<T>>(items.begin(), items.end());
  };
  return engine::make_status_snapshot({.model = *l.cfg.model,
                                       .main = l.cfg.main,
                                       .hosts = l.hosts,
                                       .services = l.services,
                                       .program = program,
                                       .comments = shared(lists.comments),
                                       .downtimes = shared(lists.downtimes),
                                       .contacts = shared(lists.contacts)});
}

}  // namespace vedette::retention::test
