#include "tools/commands/decode_blocks.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace tracewire::tools {
namespace {

// A block's text, handed from the thread that formatted it to the output.
class TextPayload : public reader::BlockPayload {
 public:
  explicit TextPayload(std::unique_ptr<std::string> text) : text(std::move(text)) {}
  size_t bytes() const override { return text->capacity(); }
  std::unique_ptr<std::string> text;
};

// Formats one block of copied events with a formatter of the pool.
class FormatBlock : public reader::GenerationWork {
 public:
  explicit FormatBlock(BlockFormatting* shared)
      : shared_(shared), formatter_(shared->TakeFormatter()), text_(shared->TakeText()) {}
  ~FormatBlock() override {
    shared_->GiveFormatter(std::move(formatter_));
    if (text_ != nullptr) shared_->GiveText(std::move(text_));
  }
  void Add(const reader::Event& event) override { formatter_->Write(event, text_.get()); }
  bool BlockFull() const override { return false; }  // one task, one block
  std::unique_ptr<reader::BlockPayload> TakeBlock() override {
    auto payload = std::make_unique<TextPayload>(std::move(text_));
    text_ = shared_->TakeText();
    return payload;
  }

 private:
  BlockFormatting* shared_;
  std::unique_ptr<targets::Formatter> formatter_;
  std::unique_ptr<std::string> text_;
};

// The context-free formats that write enough per event to pay for copying the events
// (NORMAL writes nothing for regions and data, so its threads would mostly copy events:
// it stays in stripes, whose threads pass over the others' events without decoding them
// in full).
constexpr absl::string_view kBlockFormats[] = {"event", "perf"};

// The last of `pool`'s objects, taken under `mu`; null if the pool is empty.
template <typename T>
std::unique_ptr<T> PopLocked(std::mutex& mu, std::vector<std::unique_ptr<T>>& pool) {
  std::lock_guard<std::mutex> lock(mu);
  if (pool.empty()) return nullptr;
  std::unique_ptr<T> object = std::move(pool.back());
  pool.pop_back();
  return object;
}

}  // namespace

bool DecodesInBlocks(const DecodeOptions& options, int jobs, const targets::Formatter& formatter) {
  const char* env = std::getenv("TRACEWIRE_DECODE_BLOCKS");
  if (env != nullptr && std::string(env) == "0") return false;
  if (jobs < 2 || options.follow || !formatter.context_free() || options.window.active()) {
    return false;
  }
  if (std::find(std::begin(kBlockFormats), std::end(kBlockFormats), options.format) ==
      std::end(kBlockFormats)) {
    return false;
  }
  std::error_code error;
  return options.input == "-" || !std::filesystem::is_directory(options.input, error);
}

BlockFormatting::BlockFormatting(const DecodeOptions& options, int jobs, Commit commit)
    : options_(options), commit_(std::move(commit)) {
  parallel_.jobs = jobs;
  // Formatting costs several times the decoding: the decoding worker only copies the
  // events, and every thread formats the copies.
  parallel_.work_on_copies = true;
  // One reader: it waits for (and helps) the workers rather than decoding a generation no
  // worker has started yet, which would format it on the reader's thread alone.
  parallel_.reader_decodes_unstarted = false;
  parallel_.make_work = [this] { return std::make_unique<FormatBlock>(this); };
  parallel_.commit = [this](reader::CommittedBlock block) {
    auto* payload = static_cast<TextPayload*>(block.payload.get());
    commit_(*payload->text, block.events);
    GiveText(std::move(payload->text));
  };
  // About as many buffers as blocks can be queued at once.
  keep_texts_ = 64 * static_cast<size_t>(jobs);
}

std::unique_ptr<targets::Formatter> BlockFormatting::TakeFormatter() {
  if (std::unique_ptr<targets::Formatter> formatter = PopLocked(mu_, formatters_)) {
    return formatter;
  }
  // The options were checked when the command's own formatter was made.
  return *targets::MakeFormatter(options_.format, options_.formatter);
}

void BlockFormatting::GiveFormatter(std::unique_ptr<targets::Formatter> formatter) {
  std::lock_guard<std::mutex> lock(mu_);
  formatters_.push_back(std::move(formatter));
}

std::unique_ptr<std::string> BlockFormatting::TakeText() {
  if (std::unique_ptr<std::string> text = PopLocked(mu_, texts_)) return text;
  return std::make_unique<std::string>();
}

void BlockFormatting::GiveText(std::unique_ptr<std::string> text) {
  text->clear();
  std::lock_guard<std::mutex> lock(mu_);
  if (texts_.size() < keep_texts_) texts_.push_back(std::move(text));
}

}  // namespace tracewire::tools
