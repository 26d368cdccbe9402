// CommentBook: every host and service comment the engine holds (Naemon's comments.c), with O(1) lookup by
// id, per-object lists, the id counter and an immutable snapshot for the status.dat / retention.dat writers.
// Owned by the core; core thread only, except that a snapshot() result may be read by any thread.
//
//   CommentBook comments;
//   unsigned long id = comments.add(host, {.host_name = "web01", .author = "me", .comment_data = "disk"});
//   comments.remove_acknowledgement_comments(service);    // the acknowledgement was removed
//   writer.post(comments.snapshot());                      // rebuilt only when something changed
//
// NaemonIdTable is the id index of both books: it lays ids out exactly as GLib's GHashTable does, so its
// iteration order is the order in which Naemon writes comments (see below).
#pragma once

#include "model/ids.hpp"
#include "state/comments.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace vedette::engine {

using state::Time;

// Naemon's entry_type and source numbers (comments.h).
inline constexpr int k_user_comment = 1;
inline constexpr int k_downtime_comment = 2;
inline constexpr int k_flapping_comment = 3;
inline constexpr int k_acknowledgement_comment = 4;
inline constexpr int k_comment_source_internal = 0;
inline constexpr int k_comment_source_external = 1;

// A map from id to a 32-bit value that reproduces the memory layout of GLib's
// g_hash_table_new(g_direct_hash, g_direct_equal) with GINT_TO_POINTER(id) keys: the same bucket for every
// key, the same quadratic probing, tombstones, and the same resize points and in-place rehash. Naemon keeps
// its comments in such a table and writes status.dat and retention.dat by iterating it, so for_each() visits
// ids in Naemon's order for the same history of inserts and removals. That layout holds from GLib 2.59 to
// 2.86; checked against GLib 2.74 (the reference Naemon's) over random histories. GLib 2.87 sizes a resize
// as n + n/3 instead of n * 1.333, which moves some ids. Lookup, insert and erase are O(1) on average.
class NaemonIdTable {
 public:
  NaemonIdTable() { reset(); }

  [[nodiscard]] const std::uint32_t* find(unsigned long id) const;
  [[nodiscard]] bool contains(unsigned long id) const { return find(id) != nullptr; }
  bool insert(unsigned long id, std::uint32_t value);  // false (and no change) when id is present
  bool erase(unsigned long id);                        // false when absent
  void clear() { reset(); }
  [[nodiscard]] std::size_t size() const { return nodes_; }

  // Calls visit(id, value) in GHashTableIter order. visit must not modify the table.
  template <class Visit>
  void for_each(Visit&& visit) const {
    for (std::uint32_t i = 0; i < size_; ++i)
      if (hashes_[i] >= k_first_real_hash) visit(keys_[i], values_[i]);
  }

  // Bucket count and load bookkeeping add up; every key is found where a lookup probes for it.
  [[nodiscard]] bool check_invariants() const;

 private:
  static constexpr std::uint32_t k_unused_hash = 0, k_tombstone_hash = 1, k_first_real_hash = 2;
  static constexpr std::uint32_t k_none_bucket = UINT32_MAX;

  void reset();
  void set_shift(unsigned shift);
  // The bucket holding id, else the first tombstone on its probe path, else the empty bucket ending it.
  [[nodiscard]] std::uint32_t lookup_bucket(unsigned long id, std::uint32_t hash) const;
  void maybe_resize();
  void resize();
  [[nodiscard]] std::uint32_t home_bucket(std::uint32_t hash) const { return (hash * 11u) % mod_; }
  [[nodiscard]] static std::uint32_t hash_of(unsigned long id) {
    const auto hash = static_cast<std::uint32_t>(id);  // g_direct_hash: the pointer's low 32 bits
    return hash < k_first_real_hash ? k_first_real_hash : hash;
  }

  std::uint32_t size_ = 0, mod_ = 0, mask_ = 0;
  std::uint32_t nodes_ = 0;     // live keys
  std::uint32_t occupied_ = 0;  // live keys + tombstones
  std::vector<std::uint32_t> hashes_;
  std::vector<unsigned long> keys_;
  std::vector<std::uint32_t> values_;
};

// What a book hands to the status.dat and retention.dat writers: an immutable vector, rebuilt only when the
// book's version moved. Two buffers take turns: a rebuild rewrites the older one in place once no reader
// holds it any more, so records and their strings reuse memory already allocated and faulted in: 0.10-0.17 s
// of CPU instead of 0.52-0.58 s for a fresh vector at 300k downtimes + 300k comments (bench/downtimes,
// BM_Snapshot). While a reader still holds it, a fresh vector is built. Core thread only; the vectors it
// returns, any thread.
template <class Record>
class SnapshotBuffers {
 public:
  // fill(std::vector<Record>& out) makes `out` the list; `out` holds an older list to overwrite.
  template <class Fill>
  std::shared_ptr<const std::vector<Record>> get(std::uint64_t version, Fill&& fill) {
    if (current_ != nullptr && version_ == version) return current_;
    std::shared_ptr<std::vector<Record>> buffer;
    if (spare_ != nullptr && spare_.use_count() == 1) {
      // The last reader's release of its reference happens-before our writes into the buffer.
      std::atomic_thread_fence(std::memory_order_acquire);
      buffer = std::move(spare_);
    } else {
      buffer = std::make_shared<std::vector<Record>>();
    }
    fill(*buffer);
    spare_ = std::move(current_);
    current_ = std::move(buffer);
    version_ = version;
    return current_;
  }

 private:
  std::shared_ptr<std::vector<Record>> current_;
  std::shared_ptr<std::vector<Record>> spare_;
  std::uint64_t version_ = 0;
};

// The comments of hosts and services. A host comment is filed under its HostId, a service comment under its
// ServiceId; the record keeps host_name/service_description for the file writers.
class CommentBook {
 public:
  CommentBook() = default;
  CommentBook(const CommentBook&) = delete;
  CommentBook& operator=(const CommentBook&) = delete;

  // Naemon's add_new_comment / add_comment. With comment_id 0 the comment gets the lowest id >=
  // next_comment_id() not in use, and the counter moves past it; a nonzero id (retention.dat) is kept and
  // the counter moves past it too. Sets is_service. Returns the id, or 0 when the given id is in use.
  unsigned long add(model::HostId host, state::Comment comment);
  unsigned long add(model::ServiceId service, state::Comment comment);

  bool remove(unsigned long comment_id);  // false when there is no such comment
  [[nodiscard]] const state::Comment* find(unsigned long comment_id) const;
  [[nodiscard]] std::size_t size() const { return by_id_.size(); }

  // One object's comments, newest first, as Naemon's per-object comments_list (it prepends). Cost: that
  // object's comments only.
  [[nodiscard]] std::vector<unsigned long> ids_of(model::HostId host) const;
  [[nodiscard]] std::vector<unsigned long> ids_of(model::ServiceId service) const;

  // DEL_ALL_HOST_COMMENTS / DEL_ALL_SVC_COMMENTS (every entry type, downtime comments included), or only
  // those of one entry_type. Return the removed ids, newest first.
  std::vector<unsigned long> remove_all_of(model::HostId host, std::optional<int> entry_type = {});
  std::vector<unsigned long> remove_all_of(model::ServiceId service, std::optional<int> entry_type = {});
  // Naemon's delete_*_acknowledgement_comments, when an acknowledgement ends: the non-persistent
  // acknowledgement comments only; persistent ones stay.
  std::vector<unsigned long> remove_acknowledgement_comments(model::HostId host);
  std::vector<unsigned long> remove_acknowledgement_comments(model::ServiceId service);

  // The counter Naemon writes as next_comment_id. set_next_comment_id() takes retention.dat's value as
  // is (Naemon reads it before any comment), so call it before loading the retained comments.
  [[nodiscard]] unsigned long next_comment_id() const { return next_comment_id_; }
  void set_next_comment_id(unsigned long id) { next_comment_id_ = id; }

  void clear();                        // every comment; the counter stays
  void reserve(std::size_t comments);  // e.g. before loading retention.dat's comments (no reallocation)

  // Every comment in the order Naemon's status.dat and retention.dat list them: its comment hash table's
  // iteration order (xsddefault.c/xrddefault.c iterate comment_hashtable), reproduced by NaemonIdTable.
  // Rebuilt only when a comment was added or removed since the last call; otherwise the same pointer.
  // The vector is immutable and may be read on any thread.
  [[nodiscard]] std::shared_ptr<const std::vector<state::Comment>> snapshot() const;
  // Grows by one with every change: lets the core tell whether a snapshot it holds is current.
  [[nodiscard]] std::uint64_t version() const { return version_; }

  // Per-object lists and the id index agree with the records.
  [[nodiscard]] bool check_invariants() const;

 private:
  static constexpr std::uint32_t k_none = UINT32_MAX;

  struct Slot {
    state::Comment comment;
    std::uint32_t object = k_none;  // HostId or ServiceId index, by comment.is_service; k_none when free
    std::uint32_t prev = k_none;    // the object's list, newest first
    std::uint32_t next = k_none;
  };

  unsigned long add_to(std::vector<std::uint32_t>& heads, std::uint32_t object, state::Comment&& comment);
  void unlink_and_free(std::uint32_t slot);
  [[nodiscard]] std::vector<unsigned long> ids_in(const std::vector<std::uint32_t>& heads,
                                                  std::uint32_t object) const;
  template <class Remove>
  std::vector<unsigned long> remove_from(const std::vector<std::uint32_t>& heads, std::uint32_t object,
                                         Remove&& should_remove);
  void changed() { ++version_; }

  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::uint32_t> host_heads_;     // HostId index -> newest comment's slot
  std::vector<std::uint32_t> service_heads_;  // ServiceId index -> newest comment's slot
  NaemonIdTable by_id_;                       // comment_id -> slot
  unsigned long next_comment_id_ = 1;
  std::uint64_t version_ = 0;
  mutable SnapshotBuffers<state::Comment> snapshots_;
};

}  // namespace vedette::engine
