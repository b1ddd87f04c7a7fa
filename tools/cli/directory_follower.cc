#include "tools/cli/directory_follower.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "reader/follow.h"
#include "reader/reader.h"

namespace tracewire::tools {

DirectoryFollower::DirectoryFollower(DirectoryFollowerOptions options,
                                     std::function<void(absl::string_view)> sink)
    : options_(std::move(options)), sink_(std::move(sink)) {}

DirectoryFollower::~DirectoryFollower() { Finish().IgnoreError(); }

void DirectoryFollower::Scan() {
  if (finished_) return;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(options_.dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code type_ec;
    if (name.empty() || name[0] == '.' || !it->is_regular_file(type_ec)) continue;
    std::string path = it->path().string();
    if (!seen_.insert(path).second) continue;
    Follower& follower = followers_.emplace_back();
    follower.done = std::make_shared<std::atomic<bool>>(false);
    follower.thread = std::thread(&DirectoryFollower::Follow, this, std::move(path), follower.done);
  }
  // Join the threads of the processes that ended (a long run may start thousands).
  for (Follower& follower : followers_) {
    if (follower.thread.joinable() && follower.done->load()) follower.thread.join();
  }
  followers_.erase(std::remove_if(followers_.begin(), followers_.end(),
                                  [](const Follower& f) { return !f.thread.joinable(); }),
                   followers_.end());
  Release(absl::Now() - options_.delay);
}

absl::Status DirectoryFollower::Finish() {
  if (!finished_) {
    finished_ = true;
    stop_.store(true);
    for (Follower& follower : followers_) {
      if (follower.thread.joinable()) follower.thread.join();
    }
    followers_.clear();
    Release(absl::InfiniteFuture());
  }
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

size_t DirectoryFollower::files() const { return seen_.size(); }

size_t DirectoryFollower::active() const { return followers_.size(); }

void DirectoryFollower::Hold(absl::Time time, std::string text) {
  std::lock_guard<std::mutex> lock(mu_);
  held_.emplace(std::make_pair(time, arrivals_++), std::move(text));
}

void DirectoryFollower::Release(absl::Time until) {
  std::string text;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto end = held_.begin();
    for (; end != held_.end() && end->first.first < until; ++end) text += end->second;
    held_.erase(held_.begin(), end);
  }
  if (!text.empty()) sink_(text);
}

void DirectoryFollower::RecordError(const absl::Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (error_.ok()) error_ = status;
}

void DirectoryFollower::Follow(std::string path, std::shared_ptr<std::atomic<bool>> done) {
  absl::StatusOr<std::unique_ptr<targets::Formatter>> formatter =
      targets::MakeFormatter(options_.format, options_.formatter);
  if (!formatter.ok()) {
    RecordError(formatter.status());
    done->store(true);
    return;
  }
  std::string text;
  bool ended = false;  // the process wrote its last event (atexit or signal)
  absl::Time last_time = absl::InfinitePast();
  reader::FollowOptions follow;
  follow.poll_interval = options_.poll_interval;
  follow.wait_for_file = false;
  follow.stop = [this, &ended] { return ended || stop_.load(); };
  absl::StatusOr<std::unique_ptr<reader::Reader>> reader = reader::OpenFollowReader(path, follow);
  absl::Status status = reader.status();
  while (status.ok()) {
    absl::StatusOr<const reader::Event*> event = (*reader)->Next();
    if (!event.ok()) {
      status = event.status();
      break;
    }
    if (*event == nullptr) break;
    (*formatter)->Write(**event, &text);
    // Held by time; never before an earlier event of the same process.
    last_time = std::max(last_time, (*event)->time);
    if (!text.empty()) Hold(last_time, std::exchange(text, std::string()));
    const reader::EventKind kind = (*event)->kind;
    ended = ended || kind == reader::EventKind::kAtexit || kind == reader::EventKind::kSignal;
  }
  // A process stopped inside a generation (killed, or still running at Finish()): its
  // complete generations were decoded.
  if (!status.ok() && !absl::IsOutOfRange(status)) RecordError(status);
  (*formatter)->Finish(&text);
  if (!text.empty()) Hold(last_time, std::move(text));
  done->store(true);
}

}  // namespace tracewire::tools
