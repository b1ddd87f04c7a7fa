// The `tracewire` command. Subcommands: dump (raw, spec-driven listing of a trace).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "tools/dump.h"

namespace {

constexpr char kUsage[] =
    "tracewire <command> [flags] FILE\n"
    "\n"
    "Commands:\n"
    "  dump FILE   list every frame and record of a trace with byte offsets\n"
    "\n"
    "Exit codes: 0 success, 1 invalid trace, 2 usage or I/O error.\n";

bool ReadInput(const std::string& path, std::string* contents) {
  std::ostringstream buffer;
  if (path == "-") {
    buffer << std::cin.rdbuf();
  } else {
    std::ifstream file(path, std::ios::binary);
    if (!file) return false;
    buffer << file.rdbuf();
  }
  *contents = buffer.str();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(kUsage);
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string command = args[1];
  if (command == "dump") {
    if (args.size() != 3) {
      std::cerr << "usage: tracewire dump FILE\n";
      return 2;
    }
    std::string trace;
    if (!ReadInput(args[2], &trace)) {
      std::cerr << "tracewire: cannot read " << args[2] << "\n";
      return 2;
    }
    const absl::Status status = tracewire::tools::DumpTrace(trace, std::cout);
    if (!status.ok()) {
      std::cerr << "tracewire: " << status.message() << "\n";
      return 1;
    }
    return 0;
  }
  std::cerr << "tracewire: unknown command '" << command << "'\n" << kUsage;
  return 2;
}
