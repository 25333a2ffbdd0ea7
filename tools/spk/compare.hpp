#pragma once
// Comparison of a backend's result with the reference's, for spk verify.
#include <string>

#include "operation.hpp"

namespace spk::cli {

struct Verdict {
    double max_abs = 0;  // max |got - want|
    double max_rel = 0;  // max |got - want| / |want| over entries with |want| >= 1e-3 max|want|
    bool pass = true;
    std::string note;  // why it failed, when it did
};

// Passes when shapes (and sparse patterns, and counts) agree and every value satisfies
// |got - want| <= rtol * (|want| + max|want|); NaN must meet NaN, inf the same inf.
Verdict compare(const OpOutput& got, const OpOutput& want, double rtol);

}  // namespace spk::cli
