#pragma once
// Number formatting shared by the sub-commands' tables and summaries.
#include <cstdint>
#include <string>

namespace spk::cli {

// "%.<digits>f"; NaN and inf print as "nan" / "inf".
std::string fixed(double x, int digits);
// Three significant digits in scientific form, for errors ("1.23e-07").
std::string sci(double x);
// "%.<digits>g"
std::string general(double x, int digits = 6);
// Milliseconds with a precision that suits the magnitude ("0.0123", "12.3", "1234").
std::string millis(double seconds);
// 1234567 -> "1234567" (plain, so that scripts can parse it)
std::string count(std::int64_t n);
// Bytes with a binary unit ("3.2 MiB").
std::string bytes(double n);

}  // namespace spk::cli
