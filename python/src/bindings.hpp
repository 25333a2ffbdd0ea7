#pragma once
// One registration function per binding file, called from module.cpp.
#include <nanobind/nanobind.h>

#include <cstddef>
#include <string_view>

#include "spk/names.hpp"

namespace spk::python {

void bind_spmm(nanobind::module_& m);     // spmm, SpmmPlan
void bind_sddmm(nanobind::module_& m);    // sddmm, sddmm_backward
void bind_fusedmm(nanobind::module_& m);  // fusedmm_forward, fusedmm_backward
void bind_spgemm(nanobind::module_& m);   // spgemm, triangle_count
void bind_io(nanobind::module_& m);       // Matrix Market and FROSTT files
void bind_tensor(nanobind::module_& m);   // mttkrp, ttm

// An option word that names no known value: ValueError listing the accepted ones.
[[noreturn]] void unknown_option(std::string_view option, std::string_view value, std::string_view accepted);

// The value of `all` that `text` names (spk/names.hpp), else unknown_option.
template <class E, std::size_t N>
E parse_choice(std::string_view option, std::string_view text, const E (&all)[N]) {
    if (const auto e = from_string(text, all)) return *e;
    unknown_option(option, text, names_of(all));
}

}  // namespace spk::python
