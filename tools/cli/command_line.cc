#include "tools/cli/command_line.h"

#include <algorithm>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tracewire::tools {

absl::StatusOr<CommandLine> ParseCommandLine(absl::Span<const std::string> args,
                                             absl::Span<const absl::string_view> allowed) {
  CommandLine result;
  auto is_allowed = [&](absl::string_view name) {
    return std::find(allowed.begin(), allowed.end(), name) != allowed.end();
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      result.positional.insert(result.positional.end(), args.begin() + i + 1, args.end());
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      result.positional.push_back(arg);
      continue;
    }
    absl::string_view body(arg);
    body.remove_prefix(absl::StartsWith(body, "--") ? 2 : 1);
    if (body == "help" || body == "h" || body == "helpfull" || body == "helpshort") {
      result.help = true;
      continue;
    }
    std::string name_buffer(body);
    absl::string_view value;
    bool has_value = false;
    if (const size_t eq = body.find('='); eq != absl::string_view::npos) {
      name_buffer.resize(eq);
      value = body.substr(eq + 1);
      has_value = true;
    }
    std::replace(name_buffer.begin(), name_buffer.end(), '-', '_');
    absl::string_view name = name_buffer;
    if (name.empty()) return absl::InvalidArgumentError(absl::StrCat("malformed flag '", arg, "'"));
    absl::CommandLineFlag* flag = is_allowed(name) ? absl::FindCommandLineFlag(name) : nullptr;
    std::string bool_value;
    if (flag == nullptr && !has_value && absl::StartsWith(name, "no")) {
      // --noNAME for a bool flag.
      absl::string_view positive = name.substr(2);
      absl::CommandLineFlag* negated =
          is_allowed(positive) ? absl::FindCommandLineFlag(positive) : nullptr;
      if (negated != nullptr && negated->IsOfType<bool>()) {
        flag = negated;
        name = positive;
        value = "false";
        has_value = true;
      }
    }
    if (flag == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '", arg, "'"));
    }
    if (!has_value) {
      if (flag->IsOfType<bool>()) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return absl::InvalidArgumentError(absl::StrCat("flag '", arg, "' needs a value"));
      }
    }
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid value '", value, "' for flag '--", name, "': ", error));
    }
    result.specified.insert(std::string(name));
    result.values.emplace_back(std::string(name), std::string(value));
  }
  return result;
}

std::vector<std::string> CommandLine::All(absl::string_view name) const {
  std::vector<std::string> all;
  for (const auto& [flag, value] : values) {
    if (flag == name) all.push_back(value);
  }
  return all;
}

}  // namespace tracewire::tools
