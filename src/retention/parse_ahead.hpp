// retention.dat parsed on a thread of its own while the caller applies the blocks: at start-up the file is
// ~1.2 GB at a million services, and finding its lines and keys costs about as much as putting the values
// into the hot state, so the two halves run on the two cores instead of one after the other.
//
// The caller's thread (the core, at start-up and for READ_STATE_INFORMATION) gets every block in file order,
// as parse() gives them; the parser thread only reads `text` and fills blocks it hands over in batches.
//
//   parse_ahead(file.text(), [&](const Block& b) { applier.apply(b); }, warnings);
#pragma once

#include "retention/reader.hpp"

#include <functional>
#include <string_view>
#include <vector>

namespace vedette::retention {

// parse() with the parsing on another thread: on_block runs on the caller's thread, in file order, and the
// reader's warnings are in `warnings` when it returns. If on_block throws, the parser stops and the
// exception reaches the caller.
void parse_ahead(std::string_view text, const std::function<void(const Block&)>& on_block,
                 std::vector<Warning>& warnings);

}  // namespace vedette::retention
