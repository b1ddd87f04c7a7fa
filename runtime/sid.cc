#include "runtime/sid.h"

#include <algorithm>
#include <cstdint>

#include "runtime/sha1.h"
#include "runtime/text.h"

namespace tracewire::runtime {
namespace {

struct CivilTime {
  int64_t year;
  int month, day, hour, minute, second;
};

// UTC calendar time of a Unix time (proleptic Gregorian; Howard Hinnant's
// civil_from_days). Not gmtime_r: glibc reads /etc/localtime at its first call, which would
// delay the first event of a traced program.
CivilTime UtcFromUnixSeconds(int64_t seconds) {
  int64_t days = seconds / 86400;
  int64_t rest = seconds % 86400;
  if (rest < 0) {
    rest += 86400;
    --days;
  }
  CivilTime t;
  t.hour = static_cast<int>(rest / 3600);
  t.minute = static_cast<int>(rest % 3600 / 60);
  t.second = static_cast<int>(rest % 60);
  days += 719468;  // days from 0000-03-01 to 1970-01-01
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t day_of_era = days - era * 146097;
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t month_index = (5 * day_of_year + 2) / 153;  // 0 = March
  t.day = static_cast<int>(day_of_year - (153 * month_index + 2) / 5 + 1);
  t.month = static_cast<int>(month_index < 10 ? month_index + 3 : month_index - 9);
  t.year = year_of_era + era * 400 + (t.month <= 2 ? 1 : 0);
  return t;
}

}  // namespace

std::string Sha1Hex(absl::string_view data) {
  std::string hex;
  for (uint8_t byte : Sha1(std::string_view(data.data(), data.size()))) AppendHexByte(&hex, byte);
  return hex;
}

std::string OwnSidComponent(const timespec& now, absl::string_view hostname, unsigned pid) {
  // "yyyymmddThhmmss.uuuuuuZ": git's form has no separator other than the dot.
  const CivilTime utc = UtcFromUnixSeconds(now.tv_sec);
  std::string sid;
  sid.reserve(48);
  AppendDec(&sid, static_cast<uint64_t>(utc.year), 4);
  AppendDec(&sid, static_cast<uint64_t>(utc.month), 2);
  AppendDec(&sid, static_cast<uint64_t>(utc.day), 2);
  sid.push_back('T');
  AppendDec(&sid, static_cast<uint64_t>(utc.hour), 2);
  AppendDec(&sid, static_cast<uint64_t>(utc.minute), 2);
  AppendDec(&sid, static_cast<uint64_t>(utc.second), 2);
  sid.push_back('.');
  AppendDec(&sid, static_cast<uint64_t>(now.tv_nsec / 1000), 6);
  sid += "Z-";
  if (hostname.empty()) {
    sid += "Localhost";
  } else {
    sid.push_back('H');
    sid += Sha1Hex(hostname).substr(0, 8);
  }
  sid += "-P";
  AppendHex(&sid, pid, 8);
  return sid;
}

std::string FullSid(absl::string_view parent_sid, absl::string_view own) {
  if (parent_sid.empty()) return std::string(own);
  return Cat({parent_sid, "/", own});
}

int SidDepth(absl::string_view full_sid) {
  return static_cast<int>(std::count(full_sid.begin(), full_sid.end(), '/'));
}

}  // namespace tracewire::runtime
