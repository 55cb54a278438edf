// The one registry of kernel-lab variants, read by `circles kernels`, the tests, the benchmark and
// the viewer. Adding a rung is one entry in app/common/lab_registry.cpp: it is then listed, checked on
// the awkward sizes and timed beside its family with no other edit.
#pragma once
#include <string>
#include <vector>

#include "kernels/lab/lab.h"

namespace circles {

const std::vector<lab::Variant>& lab_registry();
// nullptr if no variant has that name.
const lab::Variant* find_lab_variant(const std::string& name);
// The families in ladder order, and a family by its name ("reduce"); false if unknown.
const std::vector<lab::Family>& lab_families();
bool parse_lab_family(const std::string& name, lab::Family* out);
// Why the lab cannot run here (no CUDA in this build, no GPU), or "" when it can.
std::string lab_unavailable_reason();

}  // namespace circles
