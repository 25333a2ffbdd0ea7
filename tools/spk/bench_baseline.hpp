#pragma once
// Vendor baselines that `spk bench` runs beside spk, in the same process on the same inputs.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "operation.hpp"

namespace spk::cli {

struct BaselineTime {
    std::string name;  // the fastest algorithm, e.g. "cusparse.alg2"
    double seconds = 0;
    std::string all;  // every algorithm tried: "cusparse.default=0.412ms alg1=... alg3=n/a(...)"
    // The issues' other goals, as ratios where more than 1 favours spk: ("vs cusparse-alg1", 2.1),
    // ("peak memory vs cusparse-alg1", 30), ("numeric reuse vs cusparse-reuse", 1.3), ...
    std::vector<std::pair<std::string, double>> ratios = {};
};

// The fastest vendor time for this operation and backend, or nothing where there is no baseline
// (CPU backends compare with SciPy and GraphBLAS outside the binary: scripts/bench-cpu.sh).
// spk_seconds: spk's median on the same case, for the ratios.
std::optional<BaselineTime> vendor_baseline(const Executor& exec, const OpConfig& config, const OpInputs& inputs, std::int64_t warmup,
                                            std::int64_t reps, double spk_seconds);

// spk's own figures that need no vendor library, for `spk bench --no-vendor` (vendor_baseline
// prints them beside cuSPARSE's): for SpGEMM on a device, the plan and compute() timed apart, C's
// allocation alone, the numeric reuse (the automatic choice, then each SpgemmReuse layout), and the
// peak ("spk.plan=... spk.compute=... spk.alloc=... spk.reuse=... spk.reuse_places=...
// spk.reuse_entries=... spk.reuse_search=... spk.peak=..."); empty for the other operations.
std::string own_figures(const Executor& exec, const OpConfig& config, const OpInputs& inputs, std::int64_t warmup, std::int64_t reps);

// Device-to-device copy bandwidth in bytes per second (read + write), the floor's denominator.
double device_copy_bandwidth(const Executor& exec);

// How short device calls are timed from here on, spk's and the baselines' alike: batches queued
// from the host (false) or replayed from a CUDA graph (true): spk bench --timing.
void set_device_graph_replay(bool on);
// A non-blocking stream on the executor's device, destroyed with the handle: graph replay cannot
// capture the legacy default stream that a plain cuda executor queues on.
std::shared_ptr<void> make_device_stream(const Executor& exec);

// Seconds of each of `reps` runs after `warmup`, timed with CUDA events on the executor's stream.
std::vector<double> device_seconds(const Executor& exec, Operation& op, std::int64_t warmup, std::int64_t reps);

}  // namespace spk::cli
