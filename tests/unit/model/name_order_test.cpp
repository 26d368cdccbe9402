// Naemon's object order: by name, services by the text "host;description" as strcmp orders it, checked
// against sorting the joined texts themselves, on names built to hit the ';' edge cases.
#include "model/name_order.hpp"

#include "model/model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace vedette::model {
namespace {

// Hosts and services named from a small alphabet so prefixes, ';' and bytes on both sides of ';' (0x3B)
// are common: '-' (0x2D) sorts before it, 'a' after it.
Model random_model(std::mt19937& rng, bool semicolons) {
  const std::string alphabet = semicolons ? "a-;z" : "a-z.";
  auto name = [&](std::size_t max) {
    std::string s;
    const std::size_t n = 1 + rng() % max;
    for (std::size_t i = 0; i < n; ++i) s.push_back(alphabet[rng() % alphabet.size()]);
    return s;
  };
  Model m;
  std::vector<std::string> seen;
  for (int h = 0; h < 40; ++h) {
    std::string host_name = name(4);
    if (std::find(seen.begin(), seen.end(), host_name) != seen.end()) continue;
    seen.push_back(host_name);
    Host host;
    host.name = m.strings.intern(host_name);
    const auto id = HostId{static_cast<std::uint32_t>(m.hosts.size())};
    std::vector<std::string> descriptions;
    for (int s = 0; s < 6; ++s) {
      std::string d = name(3);
      if (std::find(descriptions.begin(), descriptions.end(), d) != descriptions.end()) continue;
      descriptions.push_back(d);
      Service svc;
      svc.host = id;
      svc.host_name = host.name;
      svc.description = m.strings.intern(d);
      host.services.push_back(ServiceId{static_cast<std::uint32_t>(m.services.size())});
      m.services.push_back(svc);
    }
    m.hosts.push_back(std::move(host));
  }
  return m;
}

std::vector<std::string> joined(const Model& m, const std::vector<ServiceId>& order) {
  std::vector<std::string> out;
  for (ServiceId s : order)
    out.push_back(std::string(m.service(s).host_name) + ";" + std::string(m.service(s).description));
  return out;
}

TEST(NameOrder, ServicesSortAsTheirJoinedText) {
  std::mt19937 rng(7);
  for (const bool semicolons : {false, true}) {
    for (int round = 0; round < 50; ++round) {
      const Model m = random_model(rng, semicolons);
      const std::vector<std::string> ours = joined(m, name_order(m).services);
      std::vector<std::string> naive = ours;
      std::sort(naive.begin(), naive.end());
      ASSERT_EQ(ours, naive) << "semicolons=" << semicolons << " round " << round;
    }
  }
}

TEST(NameOrder, AHostThatPrefixesAnotherComparesItsSemicolon) {
  // "web;x" against "web-1;a": ';' (0x3B) sorts after '-' (0x2D), so web-1 comes first; against "webb;a"
  // 'b' sorts after ';'.
  EXPECT_TRUE(service_name_less("web-1", "a", "web", "x"));
  EXPECT_FALSE(service_name_less("web", "x", "web-1", "a"));
  EXPECT_TRUE(service_name_less("web", "x", "webb", "a"));
  EXPECT_TRUE(service_name_less("web", "a", "web", "b"));
  EXPECT_FALSE(service_name_less("web", "a", "web", "a"));
}

TEST(NameOrder, OtherTypesSortByName) {
  Model m;
  for (const char* name : {"b", "a-1", "a", "A"}) {
    Host h;
    h.name = m.strings.intern(name);
    m.hosts.push_back(h);
    Contact c;
    c.name = h.name;
    m.contacts.push_back(c);
  }
  const NameOrder order = name_order(m);
  std::vector<std::string_view> hosts, contacts;
  for (HostId h : order.hosts) hosts.push_back(m.host(h).name);
  for (ContactId c : order.contacts) contacts.push_back(m.contacts[index(c)].name);
  EXPECT_EQ(hosts, (std::vector<std::string_view>{"A", "a", "a-1", "b"}));
  EXPECT_EQ(contacts, hosts);
}

}  // namespace
}  // namespace vedette::model
