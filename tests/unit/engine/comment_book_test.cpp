#include "engine/books/comment_book.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

namespace vedette::engine {
namespace {

using model::HostId;
using model::ServiceId;

std::vector<unsigned long> order_of(const NaemonIdTable& table) {
  std::vector<unsigned long> ids;
  table.for_each([&](unsigned long id, std::uint32_t) { ids.push_back(id); });
  return ids;
}

std::vector<unsigned long> ids_in(const std::vector<state::Comment>& comments) {
  std::vector<unsigned long> ids;
  for (const state::Comment& c : comments) ids.push_back(c.comment_id);
  return ids;
}

state::Comment note(const char* text, int entry_type = k_user_comment, bool persistent = true) {
  return {.host_name = "web01",
          .entry_type = entry_type,
          .persistent = persistent,
          .author = "admin",
          .comment_data = text};
}

// Orders printed by GLib 2.74 itself (g_hash_table_new(g_direct_hash, g_direct_equal), GINT_TO_POINTER keys,
// GHashTableIter) for the same operations.
TEST(NaemonIdTable, IteratesInGlibOrder) {
  NaemonIdTable table;
  for (unsigned long id = 1; id <= 4; ++id) ASSERT_TRUE(table.insert(id, 0));
  // Also what the reference Naemon 1.5.2 wrote into status.dat for comments 1-4 (ids 1 and 2 share a
  // bucket: GLib hashes 0 and 1 as 2).
  EXPECT_EQ(order_of(table), (std::vector<unsigned long>{1, 2, 4, 3}));

  for (unsigned long id = 5; id <= 20; ++id) ASSERT_TRUE(table.insert(id, 0));  // two resizes
  EXPECT_EQ(order_of(table), (std::vector<unsigned long>{17, 3,  20, 6, 9, 12, 15, 18, 4,  7,
                                                         10, 13, 16, 1, 2, 5,  8,  11, 19, 14}));

  for (unsigned long id = 2; id <= 20; id += 2) ASSERT_TRUE(table.erase(id));  // tombstones, then a shrink
  EXPECT_EQ(order_of(table), (std::vector<unsigned long>{17, 3, 9, 15, 7, 13, 1, 5, 11, 19}));

  for (unsigned long id = 21; id <= 25; ++id) ASSERT_TRUE(table.insert(id, 0));
  EXPECT_EQ(order_of(table),
            (std::vector<unsigned long>{17, 3, 23, 9, 15, 21, 7, 24, 13, 1, 5, 22, 25, 11, 19}));

  for (unsigned long id = 1; id <= 19; id += 2) ASSERT_TRUE(table.erase(id));
  EXPECT_EQ(order_of(table), (std::vector<unsigned long>{25, 24, 23, 22, 21}));
  EXPECT_TRUE(table.check_invariants());
}

TEST(NaemonIdTable, AgreesWithAMapUnderRandomChurn) {
  std::mt19937_64 rng(7);
  NaemonIdTable table;
  std::map<unsigned long, std::uint32_t> model;
  for (int op = 0; op < 20000; ++op) {
    // Mostly small ids (collisions, re-insertion after erase), some beyond 32 bits (equal low halves).
    unsigned long id = rng() % 3000;
    if (rng() % 10 == 0) id += (rng() % 3) << 32;
    if (rng() % 100 < 55) {
      const auto value = static_cast<std::uint32_t>(rng());
      ASSERT_EQ(table.insert(id, value), model.emplace(id, value).second);
    } else {
      ASSERT_EQ(table.erase(id), model.erase(id) == 1);
    }
    if (op % 500 == 0) {
      ASSERT_TRUE(table.check_invariants()) << "op " << op;
    }
  }
  ASSERT_EQ(table.size(), model.size());
  for (const auto& [id, value] : model) {
    const std::uint32_t* found = table.find(id);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(*found, value);
  }
  EXPECT_EQ(table.find(5000), nullptr);
  EXPECT_TRUE(table.check_invariants());
}

TEST(CommentBook, AssignsIdsFromTheCounter) {
  CommentBook book;
  EXPECT_EQ(book.add(HostId{0}, note("a")), 1u);
  EXPECT_EQ(book.add(ServiceId{0}, note("b")), 2u);
  EXPECT_EQ(book.next_comment_id(), 3u);
  const state::Comment* b = book.find(2);
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->is_service);
  EXPECT_EQ(b->comment_data, "b");
  EXPECT_FALSE(book.find(1)->is_service);
  EXPECT_TRUE(book.check_invariants());
}

TEST(CommentBook, RetainedIdsAreKeptAndTheCounterMovesPastThem) {
  CommentBook book;
  book.set_next_comment_id(5);  // retention.dat's program block comes first
  state::Comment retained = note("retained");
  retained.comment_id = 9;
  EXPECT_EQ(book.add(HostId{1}, retained), 9u);
  EXPECT_EQ(book.next_comment_id(), 10u);
  retained.comment_id = 3;
  EXPECT_EQ(book.add(HostId{1}, retained), 3u);
  EXPECT_EQ(book.next_comment_id(), 10u);
  EXPECT_EQ(book.add(HostId{1}, retained), 0u) << "id 3 is taken";
  EXPECT_EQ(book.add(HostId{1}, note("new")), 10u);
  EXPECT_EQ(book.size(), 3u);
  EXPECT_TRUE(book.check_invariants());
}

TEST(CommentBook, NewIdsStepOverIdsInUse) {
  CommentBook book;
  state::Comment c = note("x");
  c.comment_id = 4;
  book.add(HostId{0}, c);
  book.set_next_comment_id(4);  // as a hand-edited retention.dat could leave it
  EXPECT_EQ(book.add(HostId{0}, note("y")), 5u);
  EXPECT_EQ(book.next_comment_id(), 6u);
}

TEST(CommentBook, FindAndRemove) {
  CommentBook book;
  const unsigned long id = book.add(HostId{2}, note("a"));
  EXPECT_TRUE(book.remove(id));
  EXPECT_FALSE(book.remove(id));
  EXPECT_EQ(book.find(id), nullptr);
  EXPECT_TRUE(book.ids_of(HostId{2}).empty());
  EXPECT_EQ(book.add(HostId{2}, note("b")), id + 1) << "ids are not reused";
  EXPECT_TRUE(book.check_invariants());
}

TEST(CommentBook, PerObjectListsAreNewestFirstAndSeparate) {
  CommentBook book;
  book.add(HostId{3}, note("h3 first"));   // 1
  book.add(ServiceId{3}, note("s3"));      // 2: same index, other kind of object
  book.add(HostId{3}, note("h3 second"));  // 3
  book.add(HostId{4}, note("h4"));         // 4
  EXPECT_EQ(book.ids_of(HostId{3}), (std::vector<unsigned long>{3, 1}));
  EXPECT_EQ(book.ids_of(ServiceId{3}), (std::vector<unsigned long>{2}));
  EXPECT_EQ(book.ids_of(HostId{4}), (std::vector<unsigned long>{4}));
  EXPECT_TRUE(book.ids_of(HostId{99}).empty());
  book.remove(3);
  EXPECT_EQ(book.ids_of(HostId{3}), (std::vector<unsigned long>{1}));
  EXPECT_TRUE(book.check_invariants());
}

TEST(CommentBook, RemoveAllOfAnObject) {
  CommentBook book;
  book.add(HostId{0}, note("user"));                                   // 1
  book.add(HostId{0}, note("downtime", k_downtime_comment, false));    // 2
  book.add(ServiceId{0}, note("service"));                             // 3
  book.add(HostId{1}, note("other host"));                             // 4
  book.add(HostId{0}, note("ack", k_acknowledgement_comment, false));  // 5
  EXPECT_EQ(book.remove_all_of(HostId{0}, k_downtime_comment), (std::vector<unsigned long>{2}));
  EXPECT_EQ(book.remove_all_of(HostId{0}), (std::vector<unsigned long>{5, 1}));
  EXPECT_TRUE(book.ids_of(HostId{0}).empty());
  EXPECT_EQ(book.size(), 2u);
  EXPECT_EQ(book.remove_all_of(ServiceId{0}), (std::vector<unsigned long>{3}));
  EXPECT_TRUE(book.remove_all_of(ServiceId{7}).empty());
  EXPECT_TRUE(book.check_invariants());
}

TEST(CommentBook, AcknowledgementRemovalKeepsPersistentOnes) {
  CommentBook book;
  book.add(ServiceId{5}, note("ack", k_acknowledgement_comment, false));                  // 1
  book.add(ServiceId{5}, note("sticky ack", k_acknowledgement_comment, true));            // 2
  book.add(ServiceId{5}, note("user, not persistent", k_user_comment, false));            // 3
  book.add(ServiceId{6}, note("other service's ack", k_acknowledgement_comment, false));  // 4
  EXPECT_EQ(book.remove_acknowledgement_comments(ServiceId{5}), (std::vector<unsigned long>{1}));
  EXPECT_EQ(book.ids_of(ServiceId{5}), (std::vector<unsigned long>{3, 2}));
  EXPECT_NE(book.find(4), nullptr);
  book.add(HostId{5}, note("host ack", k_acknowledgement_comment, false));  // 5
  EXPECT_EQ(book.remove_acknowledgement_comments(HostId{5}), (std::vector<unsigned long>{5}));
  EXPECT_TRUE(book.check_invariants());
}

TEST(CommentBook, SnapshotIsReusedUntilSomethingChanges) {
  CommentBook book;
  const auto empty = book.snapshot();
  ASSERT_NE(empty, nullptr);
  EXPECT_TRUE(empty->empty());
  EXPECT_EQ(book.snapshot(), empty);

  for (int i = 0; i < 4; ++i) book.add(HostId{0}, note("c"));
  const auto four = book.snapshot();
  EXPECT_NE(four, empty);
  EXPECT_EQ(ids_in(*four), (std::vector<unsigned long>{1, 2, 4, 3})) << "Naemon's status.dat order";
  EXPECT_EQ(book.snapshot(), four);
  EXPECT_FALSE(book.remove(42));
  EXPECT_EQ(book.snapshot(), four) << "a failed removal changes nothing";

  book.remove(2);
  const auto three = book.snapshot();
  EXPECT_NE(three, four);
  EXPECT_EQ(ids_in(*three), (std::vector<unsigned long>{1, 4, 3}));
  EXPECT_EQ(ids_in(*four), (std::vector<unsigned long>{1, 2, 4, 3})) << "a handed-out snapshot never changes";
}

TEST(CommentBook, SnapshotBuffersAreReusedOnlyWhenNobodyHoldsThem) {
  CommentBook book;
  book.add(HostId{0}, note("a"));
  const auto held = book.snapshot();
  book.add(HostId{0}, note("b"));
  const std::vector<state::Comment>* second = book.snapshot().get();  // dropped at once
  book.add(HostId{0}, note("c"));
  EXPECT_NE(book.snapshot().get(), held.get()) << "still held: not rewritten";
  book.add(HostId{0}, note("d"));
  const auto fourth = book.snapshot();
  EXPECT_EQ(fourth.get(), second) << "nobody held it: rewritten in place";
  EXPECT_EQ(ids_in(*fourth), (std::vector<unsigned long>{1, 2, 4, 3}));
  EXPECT_EQ(ids_in(*held), (std::vector<unsigned long>{1}));
}

TEST(CommentBook, RandomOperationsKeepTheInvariants) {
  std::mt19937_64 rng(11);
  CommentBook book;
  std::map<unsigned long, std::pair<bool, std::uint32_t>> model;  // id -> (is_service, object)
  for (int op = 0; op < 5000; ++op) {
    const auto object = static_cast<std::uint32_t>(rng() % 20);
    const bool service = rng() % 2 == 0;
    switch (rng() % 6) {
      case 0:
      case 1:
      case 2: {
        state::Comment c = note("x", 1 + static_cast<int>(rng() % 4), rng() % 2 == 0);
        const unsigned long id = service ? book.add(ServiceId{object}, c) : book.add(HostId{object}, c);
        model[id] = {service, object};
        break;
      }
      case 3:
        if (!model.empty()) {
          auto it = std::next(model.begin(), static_cast<long>(rng() % model.size()));
          ASSERT_TRUE(book.remove(it->first));
          model.erase(it);
        }
        break;
      case 4: {
        const auto removed =
            service ? book.remove_all_of(ServiceId{object}) : book.remove_all_of(HostId{object});
        for (const unsigned long id : removed) ASSERT_EQ(model.erase(id), 1u);
        break;
      }
      case 5: {
        const auto removed = service ? book.remove_acknowledgement_comments(ServiceId{object})
                                     : book.remove_acknowledgement_comments(HostId{object});
        for (const unsigned long id : removed) ASSERT_EQ(model.erase(id), 1u);
        break;
      }
    }
    ASSERT_TRUE(book.check_invariants()) << "op " << op;
    ASSERT_EQ(book.size(), model.size());
  }
  for (const auto& [id, where] : model) {
    const std::vector<unsigned long> ids =
        where.first ? book.ids_of(ServiceId{where.second}) : book.ids_of(HostId{where.second});
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end());
  }
}

}  // namespace
}  // namespace vedette::engine
