#pragma once
// Umbrella header: the whole public API.
#include "spk/array.hpp"
#include "spk/error.hpp"
#include "spk/executor.hpp"
#include "spk/matrix.hpp"
#include "spk/spmm.hpp"
#include "spk/types.hpp"
#include "spk/tensor.hpp"
#include "spk/fusedmm.hpp"
#include "spk/spgemm.hpp"
#include "spk/io.hpp"
#include "spk/generate.hpp"
#include "spk/sddmm.hpp"
