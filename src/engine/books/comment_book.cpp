#include "engine/books/comment_book.hpp"

#include <algorithm>
#include <cassert>

namespace vedette::engine {

// ---- NaemonIdTable: GLib 2.74 ghash.c's layout, re-derived (g_hash_table_lookup_node, _insert_node,
// _remove_internal, _maybe_resize, _resize and its in-place rehash with a "placed" bitmap).

namespace {

constexpr unsigned k_min_shift = 3;  // GLib's HASH_TABLE_MIN_SHIFT: 8 buckets

// GLib's prime_mod[]: the largest prime below 1 << shift picks the home bucket; probing is modulo 1 << shift.
constexpr std::uint32_t k_prime_mod[] = {
    1,        2,        3,        7,         13,        31,        61,         127,
    251,      509,      1021,     2039,      4093,      8191,      16381,      32749,
    65521,    131071,   262139,   524287,    1048573,   2097143,   4194301,    8388593,
    16777213, 33554393, 67108859, 134217689, 268435399, 536870909, 1073741789, 2147483647};

unsigned closest_shift(std::uint32_t n) {
  unsigned shift = 0;
  for (; n != 0; n >>= 1) ++shift;
  return shift;
}

}  // namespace

void NaemonIdTable::reset() {
  set_shift(k_min_shift);
  nodes_ = occupied_ = 0;
  hashes_.assign(size_, k_unused_hash);
  keys_.assign(size_, 0);
  values_.assign(size_, 0);
}

void NaemonIdTable::set_shift(unsigned shift) {
  assert(shift < std::size(k_prime_mod) && "NaemonIdTable grew past 2^31 buckets");
  size_ = 1u << shift;
  mod_ = k_prime_mod[shift];
  mask_ = size_ - 1;
}

std::uint32_t NaemonIdTable::lookup_bucket(unsigned long id, std::uint32_t hash) const {
  std::uint32_t bucket = home_bucket(hash);
  std::uint32_t first_tombstone = k_none_bucket;
  for (std::uint32_t step = 1; hashes_[bucket] != k_unused_hash; ++step) {
    if (hashes_[bucket] == hash && keys_[bucket] == id) return bucket;
    if (hashes_[bucket] == k_tombstone_hash && first_tombstone == k_none_bucket) first_tombstone = bucket;
    bucket = (bucket + step) & mask_;
  }
  return first_tombstone != k_none_bucket ? first_tombstone : bucket;
}

const std::uint32_t* NaemonIdTable::find(unsigned long id) const {
  const std::uint32_t hash = hash_of(id);
  const std::uint32_t bucket = lookup_bucket(id, hash);
  return hashes_[bucket] >= k_first_real_hash ? &values_[bucket] : nullptr;
}

bool NaemonIdTable::insert(unsigned long id, std::uint32_t value) {
  const std::uint32_t hash = hash_of(id);
  const std::uint32_t bucket = lookup_bucket(id, hash);
  const std::uint32_t old_hash = hashes_[bucket];
  if (old_hash >= k_first_real_hash) return false;
  hashes_[bucket] = hash;
  keys_[bucket] = id;
  values_[bucket] = value;
  ++nodes_;
  // Reusing a tombstone does not change the occupancy, so GLib does not consider a resize then.
  if (old_hash == k_unused_hash) {
    ++occupied_;
    maybe_resize();
  }
  return true;
}

bool NaemonIdTable::erase(unsigned long id) {
  const std::uint32_t bucket = lookup_bucket(id, hash_of(id));
  if (hashes_[bucket] < k_first_real_hash) return false;
  hashes_[bucket] = k_tombstone_hash;
  keys_[bucket] = 0;
  values_[bucket] = 0;
  --nodes_;
  maybe_resize();
  return true;
}

void NaemonIdTable::maybe_resize() {
  // Shrink below 1/4 load (tombstones not counted), rehash at 15/16 occupancy (tombstones counted).
  if ((size_ > nodes_ * 4ull && size_ > (1u << k_min_shift)) || size_ <= occupied_ + occupied_ / 16) resize();
}

void NaemonIdTable::resize() {
  const std::uint32_t old_size = size_;
  // GLib 2.74 sizes by (gint)(nnodes * 1.333), in double arithmetic.
  set_shift(std::max(closest_shift(static_cast<std::uint32_t>(nodes_ * 1.333)), k_min_shift));
  if (size_ > old_size) {
    hashes_.resize(size_, k_unused_hash);
    keys_.resize(size_, 0);
    values_.resize(size_, 0);
  }
  std::vector<bool> placed(std::max(size_, old_size), false);
  for (std::uint32_t i = 0; i < old_size; ++i) {
    std::uint32_t hash = hashes_[i];
    if (hash < k_first_real_hash) {
      hashes_[i] = k_unused_hash;  // tombstones go
      continue;
    }
    if (placed[i]) continue;
    hashes_[i] = k_unused_hash;
    unsigned long key = keys_[i];
    std::uint32_t value = values_[i];
    // Carry the entry to its new home; an unplaced entry found there is evicted and carried on in turn.
    for (;;) {
      std::uint32_t bucket = home_bucket(hash);
      for (std::uint32_t step = 1; placed[bucket]; ++step) bucket = (bucket + step) & mask_;
      placed[bucket] = true;
      const std::uint32_t evicted_hash = hashes_[bucket];
      hashes_[bucket] = hash;
      if (evicted_hash < k_first_real_hash) {
        keys_[bucket] = key;
        values_[bucket] = value;
        break;
      }
      hash = evicted_hash;
      std::swap(key, keys_[bucket]);
      std::swap(value, values_[bucket]);
    }
  }
  if (size_ < old_size) {
    hashes_.resize(size_);
    keys_.resize(size_);
    values_.resize(size_);
  }
  occupied_ = nodes_;
}

bool NaemonIdTable::check_invariants() const {
  if (hashes_.size() != size_ || keys_.size() != size_ || values_.size() != size_) return false;
  if (size_ != (1u << closest_shift(size_ - 1)) || mask_ != size_ - 1) return false;
  std::uint32_t live = 0, occupied = 0;
  for (std::uint32_t i = 0; i < size_; ++i) {
    if (hashes_[i] != k_unused_hash) ++occupied;
    if (hashes_[i] < k_first_real_hash) continue;
    ++live;
    if (hashes_[i] != hash_of(keys_[i])) return false;
    if (lookup_bucket(keys_[i], hashes_[i]) != i) return false;
  }
  return live == nodes_ && occupied == occupied_ && occupied_ < size_;
}

// ---- CommentBook

unsigned long CommentBook::add(model::HostId host, state::Comment comment) {
  comment.is_service = false;
  return add_to(host_heads_, model::index(host), std::move(comment));
}

unsigned long CommentBook::add(model::ServiceId service, state::Comment comment) {
  comment.is_service = true;
  return add_to(service_heads_, model::index(service), std::move(comment));
}

unsigned long CommentBook::add_to(std::vector<std::uint32_t>& heads, std::uint32_t object,
                                  state::Comment&& comment) {
  if (comment.comment_id == 0) {
    // Naemon's get_next_comment_id: the counter, stepped past ids already taken.
    while (by_id_.contains(next_comment_id_)) ++next_comment_id_;
    comment.comment_id = next_comment_id_;
  } else if (by_id_.contains(comment.comment_id)) {
    return 0;
  }
  const unsigned long id = comment.comment_id;
  next_comment_id_ = std::max(next_comment_id_, id + 1);

  std::uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  if (object >= heads.size()) heads.resize(static_cast<std::size_t>(object) + 1, k_none);
  Slot& s = slots_[slot];
  s.comment = std::move(comment);
  s.object = object;
  s.prev = k_none;
  s.next = heads[object];
  if (s.next != k_none) slots_[s.next].prev = slot;
  heads[object] = slot;
  by_id_.insert(id, slot);
  changed();
  return id;
}

void CommentBook::unlink_and_free(std::uint32_t slot) {
  Slot& s = slots_[slot];
  std::vector<std::uint32_t>& heads = s.comment.is_service ? service_heads_ : host_heads_;
  if (s.prev != k_none)
    slots_[s.prev].next = s.next;
  else
    heads[s.object] = s.next;
  if (s.next != k_none) slots_[s.next].prev = s.prev;
  by_id_.erase(s.comment.comment_id);
  s = Slot{};
  free_slots_.push_back(slot);
  changed();
}

bool CommentBook::remove(unsigned long comment_id) {
  const std::uint32_t* slot = by_id_.find(comment_id);
  if (slot == nullptr) return false;
  unlink_and_free(*slot);
  return true;
}

const state::Comment* CommentBook::find(unsigned long comment_id) const {
  const std::uint32_t* slot = by_id_.find(comment_id);
  return slot != nullptr ? &slots_[*slot].comment : nullptr;
}

std::vector<unsigned long> CommentBook::ids_in(const std::vector<std::uint32_t>& heads,
                                               std::uint32_t object) const {
  std::vector<unsigned long> ids;
  if (object >= heads.size()) return ids;
  for (std::uint32_t slot = heads[object]; slot != k_none; slot = slots_[slot].next)
    ids.push_back(slots_[slot].comment.comment_id);
  return ids;
}

std::vector<unsigned long> CommentBook::ids_of(model::HostId host) const {
  return ids_in(host_heads_, model::index(host));
}

std::vector<unsigned long> CommentBook::ids_of(model::ServiceId service) const {
  return ids_in(service_heads_, model::index(service));
}

template <class Remove>
std::vector<unsigned long> CommentBook::remove_from(const std::vector<std::uint32_t>& heads,
                                                    std::uint32_t object, Remove&& should_remove) {
  std::vector<unsigned long> removed;
  if (object >= heads.size()) return removed;
  for (std::uint32_t slot = heads[object]; slot != k_none;) {
    const std::uint32_t next = slots_[slot].next;  // read before the slot is freed
    if (should_remove(slots_[slot].comment)) {
      removed.push_back(slots_[slot].comment.comment_id);
      unlink_and_free(slot);
    }
    slot = next;
  }
  return removed;
}

std::vector<unsigned long> CommentBook::remove_all_of(model::HostId host, std::optional<int> entry_type) {
  return remove_from(host_heads_, model::index(host),
                     [&](const state::Comment& c) { return !entry_type || c.entry_type == *entry_type; });
}

std::vector<unsigned long> CommentBook::remove_all_of(model::ServiceId service,
                                                      std::optional<int> entry_type) {
  return remove_from(service_heads_, model::index(service),
                     [&](const state::Comment& c) { return !entry_type || c.entry_type == *entry_type; });
}

namespace {
bool is_transient_acknowledgement(const state::Comment& c) {
  return c.entry_type == k_acknowledgement_comment && !c.persistent;
}
}  // namespace

std::vector<unsigned long> CommentBook::remove_acknowledgement_comments(model::HostId host) {
  return remove_from(host_heads_, model::index(host), is_transient_acknowledgement);
}

std::vector<unsigned long> CommentBook::remove_acknowledgement_comments(model::ServiceId service) {
  return remove_from(service_heads_, model::index(service), is_transient_acknowledgement);
}

void CommentBook::clear() {
  slots_.clear();
  free_slots_.clear();
  host_heads_.clear();
  service_heads_.clear();
  by_id_.clear();
  changed();
}

std::shared_ptr<const std::vector<state::Comment>> CommentBook::snapshot() const {
  return snapshots_.get(version_, [&](std::vector<state::Comment>& out) {
    out.resize(by_id_.size());
    std::size_t i = 0;
    by_id_.for_each([&](unsigned long, std::uint32_t slot) { out[i++] = slots_[slot].comment; });
  });
}

void CommentBook::reserve(std::size_t comments) {
  slots_.reserve(comments);
}

bool CommentBook::check_invariants() const {
  if (!by_id_.check_invariants()) return false;
  std::size_t live = 0;
  for (std::uint32_t slot = 0; slot < slots_.size(); ++slot) {
    const Slot& s = slots_[slot];
    if (s.object == k_none) continue;
    ++live;
    const std::uint32_t* indexed = by_id_.find(s.comment.comment_id);
    if (indexed == nullptr || *indexed != slot) return false;
    if (s.comment.comment_id >= next_comment_id_) return false;
  }
  if (live != by_id_.size()) return false;
  if (live + free_slots_.size() != slots_.size()) return false;
  // Every live slot sits in exactly its object's list, and the links run both ways.
  std::size_t listed = 0;
  for (const bool services : {false, true}) {
    const std::vector<std::uint32_t>& heads = services ? service_heads_ : host_heads_;
    for (std::uint32_t object = 0; object < heads.size(); ++object) {
      std::uint32_t prev = k_none;
      for (std::uint32_t slot = heads[object]; slot != k_none; slot = slots_[slot].next) {
        const Slot& s = slots_[slot];
        if (s.object != object || s.comment.is_service != services || s.prev != prev) return false;
        prev = slot;
        ++listed;
      }
    }
  }
  return listed == live;
}

}  // namespace vedette::engine
