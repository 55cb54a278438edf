// The kernel lab's vocabulary: families, tasks, element types, shapes and the description of one
// variant. Plain C++ (no CUDA headers), so the registry (app/common/lab_registry.cpp) can list the lab
// in a build without CUDA. The kernels live beside this file, one .cu per family.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "render/hd.h"

namespace circles::lab {

// The ladders. A family is what `circles kernels FAMILY` runs and one table per task in it.
enum class Family { reduce, scan, transpose, banks, conv };
// What a variant computes, which decides its input, its CPU check and the bytes it must move.
enum class Task {
  reduce_sum,      // out[0] = sum of in[0..n)
  exclusive_scan,  // out[i] = sum of in[0..i)
  find_repeats,    // out[0..count) = every i with in[i] == in[i+1], ascending; *count
  compact,         // out[0..count) = the in[i] > 0, in order; *count
  segmented_scan,  // out[i] = sum of in[s..i), s = the last j <= i with flags[j] != 0 (or 0)
  transpose,       // out (width rows of height) = in (height rows of width) mirrored
  bank_read,       // out[t] = sum over kBankIters loads of shared word (t%32)*stride + (it%32);
                   //   see bank_word() for what a word holds
  convolve,        // out[i] = sum over |j| <= R of in[i+j] / (2R+1), zero outside [0, n)
};
enum class Elem { i32, f32 };

// Loads per thread in the bank-conflict kernels (every thread of every block does this many).
constexpr int kBankIters = 1024;
// Threads per block of the bank-conflict kernels.
constexpr int kBankBlock = 256;

// bank_read's shared array: 32*stride + 32 words of the variant's width W (1, 2, 4, 8 or 16
// bytes). Component c (0 .. W/4-1; one component for W < 4) of word k holds bank_word(k, c),
// truncated to W bytes when W < 4. A thread sums, with uint32 wrap-around, every component of
// every word it loads (narrow words zero-extended).
CIRCLES_HD unsigned bank_word(unsigned k, unsigned c) { return (k * 4u + c) * 2654435761u; }

// The size of one problem: n elements (1D tasks; for bank_read, n threads), or width x height
// (transpose; n = width * height).
struct Shape {
  std::size_t n = 0;
  int width = 0, height = 0;
  bool is_2d() const { return width > 0; }
  std::string text() const;  // "67108864" or "8192x8192"
};

struct LaunchArgs;                          // defined in kernels/lab/lab_launch.h (CUDA types)
using LaunchFn = void (*)(const LaunchArgs&);

struct Variant {
  Family family;
  Task task;
  std::string name;         // what users type: "reduce-shuffle"
  std::string description;  // one line: what this rung changed and why that moves the number
  std::string source;       // the file with its kernel(s)
  std::vector<Elem> types;  // element types it runs on
  // A knob swept by default (every value runs; the first is the default): "block" (threads per
  // block), "stride" (words between lanes) or "radius" (filter radius). Empty: none.
  std::string param_name;
  std::vector<int> params;
  bool reference = false;  // a library line (CUB) drawn across the ladder, not a rung
  bool host = false;       // runs on the CPU (pointers are host memory, stream unused)
  int word_bytes = 4;      // bank_read: the width of one shared word (1, 2, 4, 8 or 16)
  LaunchFn launch = nullptr;  // nullptr in a build without CUDA
  int default_param() const { return params.empty() ? 0 : params.front(); }  // the knob's default (0: none)
};

const char* family_name(Family f);
const char* task_name(Task t);
const char* elem_name(Elem e);
std::size_t elem_size(Elem e);  // 4 for both today; kept so the bytes are declared in one place

}  // namespace circles::lab
