// retention.dat reading: the text split into blocks (reader.hpp) and applied to a small model (apply.hpp),
// as at start-up and on a reload.
#include "engine/world/reload.hpp"
#include "fuzz_model.hpp"
#include "retention/apply.hpp"
#include "retention/reader.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

const vedette::config::Configuration& configuration() {
  static const vedette::config::Configuration cfg = vedette::fuzz::load_small_config(
      vedette::fuzz::private_dir("retention"),
      "retain_state_information=1\nuse_retained_program_state=1\nuse_retained_scheduling_info=1\n");
  return cfg;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const vedette::config::Configuration& cfg = configuration();
  std::string text(reinterpret_cast<const char*>(data), size);

  const vedette::retention::Data parsed = vedette::retention::parse_text(text);
  for (const vedette::retention::Warning& w : parsed.warnings)
    (void)vedette::retention::format_warning("retention.dat", w);

  vedette::config::MainConfig main = cfg.main;
  std::vector<vedette::state::HostState> hosts;
  std::vector<vedette::state::ServiceState> services;
  vedette::engine::initial_states(*cfg.model, hosts, services);
  std::vector<vedette::state::ContactState> contacts;
  for (const vedette::model::Contact& c : cfg.model->contacts)
    contacts.push_back(vedette::state::ContactState::from(c));
  const vedette::retention::LoadResult loaded = vedette::retention::apply_text(
      text, {.model = *cfg.model, .main = main, .hosts = hosts, .services = services, .contacts = contacts},
      1700000000);
  for (const vedette::retention::Warning& w : loaded.warnings)
    (void)vedette::retention::format_warning("retention.dat", w);
  return 0;
}
