// The comment and downtime blocks status.dat and retention.dat both write, from one definition: the same
// keys, in the same order but for downtime_id and comment_id, which the two files list the other way round;
// status.dat indents its keys by a tab and ends a block with a blank line. Writer threads (status,
// retention); one thread at a time per NaemonLines.
//
//   files::write_comment_block<files::BlockStyle::status>(lines, comment);
//   files::write_downtime_block<files::BlockStyle::retention>(lines, downtime);
#pragma once

#include "files/naemon_lines.hpp"
#include "state/comments.hpp"

#include <array>
#include <cstddef>
#include <string_view>

namespace vedette::files {

enum class BlockStyle { status, retention };

namespace internal {

template <std::size_t N>
struct KeyName {
  char text[N]{};
  constexpr KeyName(const char (&s)[N]) {  // NOLINT: implicit, so a literal names a key
    for (std::size_t i = 0; i < N; ++i) text[i] = s[i];
  }
};

// `Name` with status.dat's tab before it, built at compile time: NaemonLines copies a key of a size it knows,
// as it would a literal.
template <BlockStyle Style, KeyName Name>
inline constexpr auto k_key = [] {
  constexpr std::size_t tab = Style == BlockStyle::status ? 1 : 0;
  std::array<char, sizeof(Name.text) - 1 + tab> out{};
  if (tab != 0) out[0] = '\t';
  for (std::size_t i = 0; i + 1 < sizeof(Name.text); ++i) out[tab + i] = Name.text[i];
  return out;
}();

template <BlockStyle Style, KeyName Name>
constexpr std::string_view key() {
  return {k_key<Style, Name>.data(), k_key<Style, Name>.size()};
}

template <BlockStyle Style>
constexpr std::string_view k_block_end = Style == BlockStyle::status ? "\t}\n\n" : "}\n";

}  // namespace internal

template <BlockStyle Style>
[[gnu::always_inline]] inline void write_comment_block(NaemonLines& o, const state::Comment& c) {
  using internal::key;
  o.raw(c.is_service ? "servicecomment {\n" : "hostcomment {\n");
  o.str(key<Style, "host_name=">(), c.host_name);
  if (c.is_service) o.str(key<Style, "service_description=">(), c.service_description);
  o.num(key<Style, "entry_type=">(), c.entry_type);
  o.unum(key<Style, "comment_id=">(), c.comment_id);
  o.num(key<Style, "source=">(), c.source);
  o.flag(key<Style, "persistent=">(), c.persistent);
  o.time(key<Style, "entry_time=">(), c.entry_time);
  o.flag(key<Style, "expires=">(), c.expires);
  o.time(key<Style, "expire_time=">(), c.expire_time);
  o.str(key<Style, "author=">(), c.author);
  o.str(key<Style, "comment_data=">(), c.comment_data);
  o.raw(internal::k_block_end<Style>);
}

template <BlockStyle Style>
[[gnu::always_inline]] inline void write_downtime_block(NaemonLines& o, const state::Downtime& d) {
  using internal::key;
  o.raw(d.is_service ? "servicedowntime {\n" : "hostdowntime {\n");
  o.str(key<Style, "host_name=">(), d.host_name);
  if (d.is_service) o.str(key<Style, "service_description=">(), d.service_description);
  if constexpr (Style == BlockStyle::status) {
    o.unum(key<Style, "downtime_id=">(), d.downtime_id);
    o.unum(key<Style, "comment_id=">(), d.comment_id);
  } else {
    o.unum(key<Style, "comment_id=">(), d.comment_id);
    o.unum(key<Style, "downtime_id=">(), d.downtime_id);
  }
  o.time(key<Style, "entry_time=">(), d.entry_time);
  o.time(key<Style, "start_time=">(), d.start_time);
  o.time(key<Style, "flex_downtime_start=">(), d.flex_downtime_start);
  o.time(key<Style, "end_time=">(), d.end_time);
  o.unum(key<Style, "triggered_by=">(), d.triggered_by);
  o.flag(key<Style, "fixed=">(), d.fixed);
  o.unum(key<Style, "duration=">(), d.duration);
  o.flag(key<Style, "is_in_effect=">(), d.is_in_effect);
  o.flag(key<Style, "start_notification_sent=">(), d.start_notification_sent);
  o.str(key<Style, "author=">(), d.author);
  o.str(key<Style, "comment=">(), d.comment);
  o.raw(internal::k_block_end<Style>);
}

}  // namespace vedette::files
