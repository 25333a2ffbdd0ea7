// spk: inspect, generate, run, verify and benchmark sparse kernels.
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "command.hpp"
#include "spk/error.hpp"

namespace {

void print_usage(FILE* out) {
    std::fprintf(out, "usage: spk <command> [options]   (spk <command> --help for its options)\n\ncommands:\n");
    for (const auto& c : spk::cli::commands())
        std::fprintf(out, "  %-8.*s %.*s\n", static_cast<int>(c.name.size()), c.name.data(), static_cast<int>(c.summary.size()),
                     c.summary.data());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        print_usage(stderr);
        return 2;
    }
    const std::string name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        print_usage(stdout);
        return 0;
    }
    std::vector<std::string> args(argv + 2, argv + argc);
    for (const auto& c : spk::cli::commands()) {
        if (c.name != name) continue;
        try {
            return c.run(args);
        } catch (const spk::cli::UsageError& e) {
            std::fprintf(stderr, "spk %s: %s (spk %s --help shows the options)\n", name.c_str(), e.what(), name.c_str());
            return 2;
        } catch (const spk::Error& e) {
            std::fprintf(stderr, "spk: error: %s\n", e.what());
            return 1;
        } catch (const std::bad_alloc&) {
            std::fprintf(stderr, "spk: error: out of host memory (an allocation the input's sizes asked for failed)\n");
            return 1;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "spk: error: %s\n", e.what());
            return 1;
        }
    }
    std::fprintf(stderr, "spk: error: unknown command '%s'\n", name.c_str());
    print_usage(stderr);
    return 2;
}
