#pragma once
// SpGEMM: C = A ⊕.⊗ B over a semiring, optionally masked (C<M> or C<!M>, structural mask).
// Two phases (second paper): symbolic (C's pattern) once, numeric (values) many times.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spk/executor.hpp"
#include "spk/matrix.hpp"

namespace spk {

// plus_times: ordinary product. plus_pair: each product counts 1 (counting paths).
// min_plus: shortest paths. max_times. lor_land: boolean (non-zero means true; results 0/1).
enum class Semiring { plus_times, plus_pair, min_plus, max_times, lor_land };
inline constexpr Semiring all_semirings[] = {Semiring::plus_times, Semiring::plus_pair, Semiring::min_plus, Semiring::max_times,
                                             Semiring::lor_land};
std::string_view to_string(Semiring s) noexcept;

// How a plan's later recomputes on CUDA place each scalar product A(i,k) B(k,j) in C. Whatever is
// kept is found at the first recompute and kept only where it takes at most a quarter of the
// device's memory and its allocation succeeds; otherwise later recomputes search.
enum class SpgemmReuse {
    automatic,  // entries where they apply and the rows of B that A reaches are short (32 entries
                // or fewer on average); else places
    search,     // keep nothing: search C's sorted columns for every product, every time
    places,     // each product's place in its row of C: 2 bytes a product (4 in rows too long for
                // shared memory) and 16 bytes an entry of A; rows combine in shared memory
    entries,    // the products grouped by their entry of C: 8 bytes a product, each entry summed by
                // one warp without atomics (a plan's recomputes all sum in one order); rows too long
                // for shared memory keep places. Needs nnz(A) < 2^32, nnz(B) <= 2^26 and fewer than
                // 2^31 products; falls back to places otherwise.
};
inline constexpr SpgemmReuse all_spgemm_reuses[] = {SpgemmReuse::automatic, SpgemmReuse::search, SpgemmReuse::places,
                                                   SpgemmReuse::entries};
std::string_view to_string(SpgemmReuse r) noexcept;

struct SpgemmOptions {
    Semiring semiring = Semiring::plus_times;
    bool complement_mask = false;   // C<!M>: keep only entries outside M's pattern
    bool sorted = true;             // sorted column indices in C (unsorted may be faster)
    // What SpgemmPlan::recompute on CUDA keeps at its first call so that later calls find each
    // scalar product's entry of C without searching C's columns (see SpgemmReuse). The host
    // backends recompute with their accumulators and ignore it.
    SpgemmReuse reuse = SpgemmReuse::automatic;
    // CUDA: where A's entries come in dense br x bk blocks and B's in bk x bc blocks (each group of
    // br rows shares its columns, which come in aligned runs of bk, strictly increasing; sizes 2,
    // 3, 4 or 6, at least 8 scalar products a block product; no mask), C is computed a block at a
    // time: elasticity and other systems of several unknowns a node. The same C up to the order of
    // the sums; false keeps the scalar kernels.
    bool detect_blocks = true;
    // spgemm_to_host only: bytes of exec's memory one chunk of rows may use for its part of C and
    // its workspaces (0: a quarter of the device's memory on CUDA, no chunking on the host).
    std::size_t memory_budget = 0;
};

// The plan runs the symbolic phase at construction. C's pattern holds every (i, j) that some
// product A(i,k) B(k,j) reaches (within the mask), even where the value sums to zero.
// The plan keeps views of A, B and the mask: their arrays must outlive it. On CUDA the plan's
// device arrays are freed on the executor's stream: the stream must outlive the plan too.
template <class V, class I>
class SpgemmPlan {
public:
    SpgemmPlan(const Executor& exec, CsrView<const V, I> a, CsrView<const V, I> b, SpgemmOptions options = {},
               std::optional<CsrView<const V, I>> mask = std::nullopt);
    ~SpgemmPlan();
    SpgemmPlan(SpgemmPlan&&) noexcept;
    SpgemmPlan& operator=(SpgemmPlan&&) noexcept;

    index_t nnz() const;  // of C, known after the symbolic phase
    // How the plan computes C: "scalar", or on CUDA "blocks 3x3x3" where A and B consist of dense
    // blocks (SpgemmOptions::detect_blocks; A's blocks 3 x 3, B's 3 x 3).
    std::string config() const;
    // C's row offsets (rows + 1), on the host: the symbolic phase's result.
    std::vector<index_t> row_offsets() const;
    // A new C (pattern from the symbolic phase, values from the numeric phase).
    Csr<V, I> compute() const;
    // Numeric phase only, with new values for A and B (same patterns), into C's values
    // (C as returned by compute()). On CUDA the first call also keeps a copy of C's column
    // indices in the plan (nnz() * sizeof(I) bytes of device memory), and what options.reuse
    // asks for (each product's place in C, or the products grouped by entry of C), which later
    // calls use to place each product without hashing.
    void recompute(const V* a_values, const V* b_values, V* c_values) const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

template <class V, class I>
Csr<V, I> spgemm(const Executor& exec, CsrView<const V, I> a, CsrView<const V, I> b, const SpgemmOptions& options = {},
                 std::optional<CsrView<const V, I>> mask = std::nullopt);

// C = A·B for products whose C does not fit in exec's memory: C's rows are computed on exec in
// chunks whose share of C (and workspaces) fits options.memory_budget, each chunk copied to host
// memory as it completes. A, B and the mask stay where they are; C comes back in host memory.
// Each chunk runs its own symbolic phase, after one over all rows that sizes the chunks.
template <class V, class I>
Csr<V, I> spgemm_to_host(const Executor& exec, CsrView<const V, I> a, CsrView<const V, I> b, const SpgemmOptions& options = {},
                         std::optional<CsrView<const V, I>> mask = std::nullopt);

// Triangles of the undirected simple graph under G: pattern of G + Gᵀ, diagonal dropped,
// each triangle counted once. G must be square; values are ignored.
template <class V, class I>
std::uint64_t triangle_count(const Executor& exec, CsrView<const V, I> g);

}  // namespace spk
