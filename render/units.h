// Amounts as a person reads them, one definition for the CLI, the benchmark and the renderers'
// messages.
#pragma once
#include <string>

namespace circles {

// "1.5 GiB", or "12 MiB" under a GiB, rounded up, at least "1 MiB" (never "0.0 GiB" or
// "0.02 GiB").
std::string memory_text(double bytes);

}  // namespace circles
