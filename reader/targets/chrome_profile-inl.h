// The Chrome formatter's CPU samples: each thread's call tree and samples, written at the
// end as Profile and ProfileChunk events (chrome_formatter.h). Included by chrome_target.cc
// only: the formatter is one translation unit, so its helpers keep internal linkage.
#ifndef TRACEWIRE_READER_TARGETS_CHROME_PROFILE_INL_H_
#define TRACEWIRE_READER_TARGETS_CHROME_PROFILE_INL_H_
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "reader/event.h"
#include "reader/targets/chrome_formatter.h"
#include "reader/targets/json_writer.h"
#include "reader/targets/valid_utf8.h"
#include "reader/track_model.h"

namespace tracewire::targets::chrome_internal {
namespace {

void ChromeFormatter::OnSample(const Event& e, const reader::SampleContext& at) {
  if (profiles_.size() <= at.thread) profiles_.resize(at.thread + 1);
  ThreadProfile& profile = profiles_[at.thread];
  if (profile.nodes.empty()) profile.nodes.push_back(ProfileNode{0, "(root)", "", -1});
  int64_t node = 1;
  std::string key;
  // Outermost frame first: each node's parent is its caller's.
  for (auto frame = e.stack.rbegin(); frame != e.stack.rend(); ++frame) {
    const absl::string_view function = frame->func;
    key.clear();
    absl::StrAppend(
        &key, node, "|",
        function.empty() ? absl::StrCat("0x", absl::Hex(frame->pc)) : std::string(function));
    absl::StrAppend(&key, "|", frame->file);
    auto it = profile.ids.find(key);
    if (it != profile.ids.end()) {
      node = it->second;
      continue;
    }
    if (profile.nodes.size() >= kMaxProfileNodes) break;
    ProfileNode n;
    n.parent = node;
    n.function = function.empty() ? absl::StrCat("0x", absl::Hex(frame->pc))
                                  : std::string(ValidUtf8(function, &scratch_));
    n.url = std::string(ValidUtf8(frame->file, &scratch_));
    n.line = frame->line != 0 ? static_cast<int64_t>(frame->line) - 1 : -1;
    profile.nodes.push_back(std::move(n));
    node = static_cast<int64_t>(profile.nodes.size());
    profile.ids.emplace(key, node);
  }
  const int64_t ns =
      profile.times_ns.empty() ? now_ns_ : std::max(now_ns_, profile.times_ns.back());
  profile.samples.push_back(node);
  profile.times_ns.push_back(ns);
}

void ChromeFormatter::WriteProfiles(std::string* out) {
  for (uint32_t thread = 0; thread < profiles_.size(); ++thread) {
    const ThreadProfile& profile = profiles_[thread];
    if (profile.samples.empty()) continue;
    const Process& p = processes_[model_.thread(thread).process];
    const int64_t tid = threads_[thread].tid;
    const std::string id = absl::StrCat("0x", absl::Hex(thread + 1));
    // Microseconds, whole: the profile starts at its first sample, and each time delta
    // is the difference of two whole-microsecond times (never negative).
    auto micros = [](int64_t ns) { return ns >= 0 ? ns / 1000 : -((-ns + 999) / 1000); };
    const int64_t start_us = micros(profile.times_ns.front());
    {
      StartObject(out);
      JsonWriter jw(out);
      Begin(jw, "P", "Profile", kProfileCategory, p.pid, tid, start_us * 1000);
      jw.ObjectString("id", id);
      jw.ObjectBeginObject("args");
      jw.ObjectBeginObject("data");
      jw.ObjectInt("startTime", start_us);
      jw.End();
      jw.End();
      jw.End();
    }
    size_t next_node = 0;  // nodes written so far
    int64_t previous_us = start_us;
    for (size_t first = 0; first < profile.samples.size(); first += kSamplesPerChunk) {
      const size_t last = std::min(profile.samples.size(), first + kSamplesPerChunk);
      // The nodes the chunk's samples are the first to use (ids grow along the samples).
      int64_t max_node = 0;
      for (size_t i = first; i < last; ++i) max_node = std::max(max_node, profile.samples[i]);
      StartObject(out);
      JsonWriter jw(out);
      Begin(jw, "P", "ProfileChunk", kProfileCategory, p.pid, tid,
            micros(profile.times_ns[first]) * 1000);
      jw.ObjectString("id", id);
      jw.ObjectBeginObject("args");
      jw.ObjectBeginObject("data");
      jw.ObjectBeginObject("cpuProfile");
      jw.ObjectBeginArray("nodes");
      for (; next_node < static_cast<size_t>(max_node); ++next_node) {
        const ProfileNode& node = profile.nodes[next_node];
        jw.ArrayBeginObject();
        jw.ObjectInt("id", static_cast<int64_t>(next_node + 1));
        if (node.parent != 0) jw.ObjectInt("parent", node.parent);
        jw.ObjectBeginObject("callFrame");
        jw.ObjectString("functionName", node.function);
        jw.ObjectString("url", node.url);
        jw.ObjectInt("scriptId", 0);
        jw.ObjectInt("lineNumber", node.line);
        jw.ObjectInt("columnNumber", -1);
        jw.End();
        jw.End();
      }
      jw.End();
      jw.ObjectBeginArray("samples");
      for (size_t i = first; i < last; ++i) jw.ArrayInt(profile.samples[i]);
      jw.End();
      jw.End();
      jw.ObjectBeginArray("timeDeltas");
      for (size_t i = first; i < last; ++i) {
        const int64_t us = micros(profile.times_ns[i]);
        jw.ArrayInt(us - previous_us);
        previous_us = us;
      }
      jw.End();
      jw.End();
      jw.End();
      jw.End();
    }
  }
}

}  // namespace
}  // namespace tracewire::targets::chrome_internal

#endif  // TRACEWIRE_READER_TARGETS_CHROME_PROFILE_INL_H_
