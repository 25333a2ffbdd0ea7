#pragma once
// The row-based SpMM shapes compiled for CUDA, as X(G, R, VEC): a group of G lanes per row,
// R of them splitting the row's non-zeros, G/R splitting the columns, VEC columns per lane.
// Host code (selector, config parser) and the CUDA dispatch share this one list.
#define SPK_SPMM_RB_SHAPES(X)                                                                                                         \
    /* column lanes 32: wide n */ X(32, 1, 1) X(32, 1, 2) X(32, 1, 4) /* column lanes 16 */ X(16, 1, 1) X(16, 1, 2) X(16, 1, 4)       \
        X(32, 2, 1) X(32, 2, 2) X(32, 2, 4) /* column lanes 8 */ X(8, 1, 1) X(8, 1, 2) X(8, 1, 4) X(16, 2, 4) X(32, 4, 1) X(32, 4, 2) \
            X(32, 4, 4) /* column lanes 4 */ X(4, 1, 1) X(4, 1, 4) X(8, 2, 4) X(16, 4, 4) X(32, 8, 1)                                 \
                X(32, 8, 4) /* column lanes 2 */ X(2, 1, 4) X(8, 4, 4) X(32, 16, 2)                                                   \
                    X(32, 16, 4) /* column lanes 1: narrow n, long rows */ X(1, 1, 4) X(4, 4, 4) X(8, 8, 4) X(16, 16, 4) X(32, 32, 4) \
                        X(1, 1, 1) X(4, 4, 1) X(8, 8, 1) X(16, 16, 1) X(32, 32, 1)

// The edge-based (non-zero split) shapes, as X(G, R, VEC): a group of G lanes walks a fixed chunk of
// consecutive non-zeros across row boundaries. R = 1 (EB+SR): the lanes split the columns, VEC
// each, and take the non-zeros in turn. R = G (EB+PR): each lane takes its own non-zero with VEC
// columns, and lanes holding the same row meet in a segmented reduction.
#define SPK_SPMM_EB_SHAPES(X)                                                                                 \
    X(1, 1, 4) X(2, 1, 4) X(4, 1, 4) X(8, 1, 4) X(16, 1, 4) X(32, 1, 4) X(8, 1, 1) X(32, 1, 1) /* EB+PR */ \
        X(8, 8, 1) X(8, 8, 4) X(32, 32, 1) X(32, 32, 4)

// The merge-path SpMM shapes (mp_kernel.cuh), as X(VEC, E): VEC columns a lane, E items (row ends
// and non-zeros) a lane.
#define SPK_SPMM_MP_SHAPES(X) X(1, 4) X(1, 8) X(2, 4) X(2, 8) X(4, 4) X(4, 8)
