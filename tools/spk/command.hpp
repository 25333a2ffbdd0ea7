#pragma once
// The spk command: one file per sub-command, each exposing one entry point.
// Entry points return the process exit code: 0 success, 1 failure, 2 usage error.
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace spk::cli {

struct Command {
    std::string_view name;
    std::string_view summary;
    int (*run)(std::span<const std::string> args);  // args exclude the sub-command's name
};

// A malformed command line (unknown option, missing value): exit code 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Every sub-command, in the order `spk --help` lists them.
std::span<const Command> commands();

}  // namespace spk::cli
