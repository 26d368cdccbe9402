// One write that finishes: retries short writes and EINTR. Any thread.
#pragma once

#include <cstddef>
#include <string_view>

namespace vedette::files {

// Writes all of `data` to `fd`. False on an error, with errno set (EIO when write(2) returned 0).
[[nodiscard]] bool write_all(int fd, std::string_view data);

}  // namespace vedette::files
