// The table of sub-commands; each is implemented in its own file.
#include <array>

#include "command.hpp"

namespace spk::cli {

int run_info(std::span<const std::string> args);
int run_gen(std::span<const std::string> args);
int run_run(std::span<const std::string> args);
int run_verify(std::span<const std::string> args);
int run_bench(std::span<const std::string> args);
int run_tc(std::span<const std::string> args);
int run_tune(std::span<const std::string> args);

std::span<const Command> commands() {
    static const std::array<Command, 7> table{{
        {"info", "shape, nnz, row-length statistics and histogram, symmetry, bandwidth of a matrix", run_info},
        {"gen", "generate a matrix (random, rmat, powerlaw, banded, blockdiag, AMG problems) into a file", run_gen},
        {"run", "compute an operation on one backend and write or summarise the result", run_run},
        {"verify", "check every available backend against the reference", run_verify},
        {"bench", "time operations over matrices and widths: median time, GFLOP/s, GB/s, geometric means", run_bench},
        {"tune", "measure CUDA SpMM configurations and record the fastest in the tuning cache", run_tune},
        {"tc", "count the triangles of the undirected graph under a matrix", run_tc},
    }};
    return table;
}

}  // namespace spk::cli
