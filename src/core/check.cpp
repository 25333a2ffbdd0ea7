#include "core/check.hpp"

namespace spk::detail {

std::string shape_string(index_t rows, index_t cols) { return std::to_string(rows) + " x " + std::to_string(cols); }

void check_space(MemorySpace space, const Executor& exec, std::string_view name) {
    if (space != exec.memory_space())
        invalid_argument(std::string(name) + ": lives in " + to_string(space) + " but the executor (" + exec.name() + ") runs in " +
                         to_string(exec.memory_space()));
}

}  // namespace spk::detail
