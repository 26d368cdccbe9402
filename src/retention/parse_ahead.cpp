#include "retention/parse_ahead.hpp"

#include <array>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

namespace vedette::retention {
namespace {

// A batch is ~0.5 ms of applying at a million services: the hand-over's lock is taken a few thousand times
// per file, and the blocks in flight weigh ~2 MB (a Block is ~1 KB of views), reused from batch to batch.
constexpr std::size_t k_blocks_per_batch = 256;
constexpr std::size_t k_batches = 4;

struct Batch {
  std::vector<Block> blocks = std::vector<Block>(k_blocks_per_batch);
  std::size_t size = 0;
};

// Batches go round: empty ones to the parser, filled ones back to the caller, in order.
class Handover {
 public:
  explicit Handover(std::array<Batch, k_batches>& batches) {
    for (Batch& b : batches) empty_.push_back(&b);
  }

  // Parser: an empty batch, or null when the caller stopped taking them.
  Batch* take_empty() {
    std::unique_lock lock(mutex_);
    has_empty_.wait(lock, [&] { return !empty_.empty() || abandoned_; });
    if (abandoned_) return nullptr;
    Batch* b = empty_.front();
    empty_.pop_front();
    return b;
  }

  void give_filled(Batch* b) {
    {
      std::lock_guard lock(mutex_);
      filled_.push_back(b);
    }
    has_filled_.notify_one();
  }

  void parser_done() {
    {
      std::lock_guard lock(mutex_);
      parser_done_ = true;
    }
    has_filled_.notify_one();
  }

  // Caller: the next filled batch, or null once the parser is done and every batch was taken.
  Batch* take_filled() {
    std::unique_lock lock(mutex_);
    has_filled_.wait(lock, [&] { return !filled_.empty() || parser_done_; });
    if (filled_.empty()) return nullptr;
    Batch* b = filled_.front();
    filled_.pop_front();
    return b;
  }

  void give_empty(Batch* b) {
    b->size = 0;
    {
      std::lock_guard lock(mutex_);
      empty_.push_back(b);
    }
    has_empty_.notify_one();
  }

  void abandon() {
    {
      std::lock_guard lock(mutex_);
      abandoned_ = true;
    }
    has_empty_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable has_empty_, has_filled_;
  std::deque<Batch*> empty_, filled_;
  bool parser_done_ = false;
  bool abandoned_ = false;
};

// Thrown inside the parser thread to leave parse() when the caller has stopped.
struct Abandoned {};

}  // namespace

void parse_ahead(std::string_view text, const std::function<void(const Block&)>& on_block,
                 std::vector<Warning>& warnings) {
  std::array<Batch, k_batches> batches;
  Handover handover(batches);
  std::vector<Warning> parser_warnings;
  std::exception_ptr parser_failed;  // what the parser threw (bad_alloc), rethrown here
  std::thread parser([&] {
    try {
      Batch* batch = handover.take_empty();
      if (batch == nullptr) throw Abandoned{};
      parse(
          text,
          [&](const Block& b) {
            batch->blocks[batch->size++] = b;  // copy-assignment keeps the custom variables' capacity
            if (batch->size < k_blocks_per_batch) return;
            handover.give_filled(batch);
            batch = handover.take_empty();
            if (batch == nullptr) throw Abandoned{};
          },
          parser_warnings);
      if (batch->size > 0) handover.give_filled(batch);
    } catch (const Abandoned&) {
    } catch (...) {
      parser_failed = std::current_exception();
    }
    handover.parser_done();
  });
  try {
    while (Batch* batch = handover.take_filled()) {
      for (std::size_t i = 0; i < batch->size; ++i) on_block(batch->blocks[i]);
      handover.give_empty(batch);
    }
  } catch (...) {
    handover.abandon();
    parser.join();
    throw;
  }
  parser.join();
  if (parser_failed) std::rethrow_exception(parser_failed);
  warnings.insert(warnings.end(), std::make_move_iterator(parser_warnings.begin()),
                  std::make_move_iterator(parser_warnings.end()));
}

}  // namespace vedette::retention
