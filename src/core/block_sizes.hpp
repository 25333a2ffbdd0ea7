#pragma once
// The sizes of the dense blocks that SpGEMM multiplies a block at a time (cuda/spgemm/blocks.cuh)
// and that `spk info` reports, in increasing order.
#include <array>

namespace spk::detail {

inline constexpr std::array<int, 4> kDenseBlockSizes{2, 3, 4, 6};

}  // namespace spk::detail
