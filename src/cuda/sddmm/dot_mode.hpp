#pragma once
// Which dot kernel the CUDA forward SDDMM runs (plain C++: the tests ask it too).
//   slices: a warp owns equal slices of consecutive entries (dot_kernel.cuh): balanced whatever the
//           row lengths, so right for skewed (power-law) rows.
//   rows:   the sub-groups of a warp own neighbouring rows and walk them in lockstep
//           (rows_kernel.cuh): neighbours with the same column pattern (a mesh's unknowns of one
//           node, rows 3i..3i+2 of elasticity) load each Y row once per instruction, the block's
//           rows are neighbours too (their Y rows meet in L1), and X's row stays in registers.
//           Right for short, even rows; its lanes idle past their row's end. On a matrix with too
//           few rows to fill the device that way, a few warps share each group of rows, each
//           walking a span of their positions.
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

// The compiled rows-mode shape for d features per head (wide: values per 16-byte load when X's
// and Y's rows allow such loads, else 1) and `lanes` lanes per row: 0, the narrowest of G = 4 or
// 8 lanes in one step, then G = 8 or 32 lanes in up to sddmm_rows_held(wide) steps (the most rows
// a warp); 4, 8 or 32, the shape of that G. g = 0 where none holds d.
SddmmRowsShape pick_rows_shape(long long d, int wide, int lanes = 0);

// The forward pass's kernel: the mode, and for the rows mode its shape and `split`, the number
// of warps that share a group of rows (each walks an equal span of the rows' positions; more than
// one where the groups alone would leave the device idle).
struct SddmmDotChoice {
    SddmmDotMode mode = SddmmDotMode::slices;
    SddmmRowsShape shape;
    int split = 1;
};

// The choice for the forward pass of A with d features per head; vector_ok: X's and Y's rows allow
// 16-byte loads. config is SddmmOptions::config:
//   "slices";
//   "rows", optionally with ".g<lanes>" (4, 8 or 32 lanes a row: pick_rows_shape) and ".s<split>"
//   (warps a group of rows): the rows mode, its shape and split chosen from A's size where not
//   given; slices where no rows-mode shape holds d or nnz >= 2^30 (run_dot also runs slices
//   where Y or the output span 2^31 elements or more);
//   empty: rows when its rows are even (few idle lanes, a few more where the groups of rows are
//   split) and neighbouring rows share columns (dot_mode.cu has the thresholds). The automatic
//   choice reads A's row_ptr and first columns in one small kernel and synchronises exec's
//   stream to read back its 32-byte result; the choice is then kept by A's arrays and size, so
//   later calls with the same A neither read nor wait.
// InvalidArgument for any other config.
template <class V, class I>
SddmmDotChoice sddmm_dot_choice(const Executor& exec, CsrView<const V, I> a, index_t d, bool vector_ok, std::string_view config);

// InvalidArgument unless config is one sddmm_dot_choice accepts (checked before any work).
void check_sddmm_config(std::string_view config);

}  // namespace spk::detail::cuda
