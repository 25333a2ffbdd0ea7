#pragma once
// Which dot kernel the CUDA forward SDDMM runs (plain C++: the tests ask it too).
//   slices: a warp owns equal slices of consecutive entries (dot_kernel.cuh): balanced whatever the
//           row lengths, so right for skewed (power-law) rows.
//   rows:   the sub-groups of a warp own neighbouring rows and walk them in lockstep
//           (rows_kernel.cuh): neighbours with the same column pattern (a mesh's unknowns of one
//           node, rows 3i..3i+2 of elasticity) load each Y row once per instruction, the block's
//           rows are neighbours too (their Y rows meet in L1), and X's row stays in registers.
//           Right for short, even rows; its lanes idle past their row's end.
#include <string_view>

#include "spk/executor.hpp"
#include "spk/matrix.hpp"

namespace spk::detail::cuda {

enum class SddmmDotMode { slices, rows };

// X row vectors one rows-mode lane keeps in registers when its kernel walks d in several steps:
// 16 registers' worth for 16-byte vectors, 8 single values otherwise.
constexpr int sddmm_rows_held(int vec) { return vec == 1 ? 8 : 4; }

// A rows-mode kernel shape: G lanes per row, VEC values per lane, `held` steps of G*VEC features
// (the most one head's d may need). g = 0: no compiled shape holds d features.
struct SddmmRowsShape {
    int g = 0, vec = 1, held = 1;
};

// The compiled rows-mode shape for d features per head (vec: values per 16-byte load when X's
// and Y's rows allow such loads, else 1): the narrowest of G = 4 or 8 lanes in one step, then
// G = 8 or 32 lanes in up to sddmm_rows_held(vec) steps.
SddmmRowsShape pick_rows_shape(long long d, int vec);

// The mode for the forward pass of A with d features per head; vector_ok: X's and Y's rows allow
// 16-byte loads. config is SddmmOptions::config: "slices", "rows" (slices where no rows-mode shape
// holds d or nnz >= 2^30; run_dot also runs slices where Y or the output span 2^31 elements or
// more), or empty: rows when A has enough rows to fill the device, its rows are
// even (few idle lanes) and neighbouring rows share columns (dot_mode.cu has the thresholds). The
// automatic choice reads A's row_ptr and first columns in one small kernel and synchronises exec's
// stream to read back its 32-byte result (only when the device-filling test passes); the choice
// is then kept by A's arrays and size, so later calls with the same A neither read nor wait.
// InvalidArgument for any other config.
template <class V, class I>
SddmmDotMode sddmm_dot_mode(const Executor& exec, CsrView<const V, I> a, index_t d, bool vector_ok, std::string_view config);

// InvalidArgument unless config is one sddmm_dot_mode accepts (checked before any work).
void check_sddmm_config(std::string_view config);

}  // namespace spk::detail::cuda
