#pragma once
// How a plan chooses its kernel configuration (DESIGN.md §4). An explicit configuration string
// in the operation's options always wins over all three.
#include <string>

namespace spk {

enum class Tune {
    select,   // the fast selector: rules over the matrix's features (the default)
    cache,    // the configuration recorded in the tuning cache for this device, operation, types, n and
              // matrix fingerprint; the selector when there is none
    measure,  // time the candidate configurations now, keep the fastest and record it in the cache
};

// The tuning cache file: $SPK_TUNING_CACHE, else $XDG_CACHE_HOME/spk/tuning.json, else
// $HOME/.cache/spk/tuning.json.
std::string tuning_cache_path();

}  // namespace spk
