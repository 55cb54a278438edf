// The kernel-lab registry. Built into circles_registry, which links the lab's kernels when the
// build has CUDA (CIRCLES_HAVE_CUDA); without CUDA every variant is listed with no launcher and
// the lab reports why it cannot run.
#include "app/common/lab_registry.h"

#include "app/common/registry.h"

#if CIRCLES_HAVE_CUDA
#include "kernels/lab/lab_launch.h"
#define LAB_FN(f) &::circles::lab::f
#else
#define LAB_FN(f) nullptr
#endif

namespace circles {

using lab::Elem;
using lab::Family;
using lab::Task;

namespace {

const std::vector<Elem> kBoth = {Elem::i32, Elem::f32};
const std::vector<Elem> kInt = {Elem::i32};
const std::vector<Elem> kFloat = {Elem::f32};

std::vector<int> strides() {
  std::vector<int> s;
  for (int k = 1; k <= 33; ++k) s.push_back(k);
  return s;
}

std::vector<int> radii() {
  std::vector<int> r = {8};
  for (int k = 1; k <= 16; ++k)
    if (k != 8) r.push_back(k);
  return r;
}

lab::Variant rung(Family f, Task t, const char* name, const char* source, std::vector<Elem> types,
                  lab::LaunchFn fn, const char* description) {
  lab::Variant v;
  v.family = f;
  v.task = t;
  v.name = name;
  v.description = description;
  v.source = source;
  v.types = std::move(types);
  v.launch = fn;
  return v;
}

lab::Variant with_param(lab::Variant v, const char* param, std::vector<int> values) {
  v.param_name = param;
  v.params = std::move(values);
  return v;
}

lab::Variant with_words(lab::Variant v, int bytes) {
  v.word_bytes = bytes;
  return v;
}

lab::Variant as_reference(lab::Variant v) {
  v.reference = true;
  return v;
}

lab::Variant on_host(lab::Variant v) {
  v.host = true;
  return v;
}

}  // namespace

const std::vector<lab::Variant>& lab_registry() {
  static const char* kReduce = "kernels/lab/reduce.cu";
  static const char* kScan = "kernels/primitives/device_scan.cu";  // the ladder; its applications: kScanApps
  static const char* kScanApps = "kernels/lab/scan.cu";
  static const char* kTranspose = "kernels/lab/transpose.cu";
  static const char* kBanks = "kernels/lab/banks.cu";
  static const char* kConv = "kernels/lab/conv.cu";
  const Family R = Family::reduce, S = Family::scan, T = Family::transpose, B = Family::banks,
               C = Family::conv;
  static const std::vector<lab::Variant> list = {
      // --- reduction: sum of n elements; bytes = n * 4 read ---
      rung(R, Task::reduce_sum, "reduce-atomic", kReduce, kBoth, LAB_FN(reduce_atomic),
           "every thread atomicAdds its element into one address: the L2 serializes them all"),
      rung(R, Task::reduce_sum, "reduce-serial-chunk", kReduce, kBoth, LAB_FN(reduce_serial_chunk),
           "one thread per contiguous chunk, summed in a loop: few atomics, but a warp's 32 loads hit "
           "32 cache lines (uncoalesced)"),
      rung(R, Task::reduce_sum, "reduce-local-array", kReduce, kBoth, LAB_FN(reduce_local_array),
           "coalesced loads into a per-thread array reduced in halves: indexed dynamically, so the "
           "array lives in local memory (a stack frame in -Xptxas -v) and every step is a memory trip"),
      rung(R, Task::reduce_sum, "reduce-global-divergent", kReduce, kBoth, LAB_FN(reduce_global_divergent),
           "a block tree in global memory, a __syncthreads per level, tid % (2s): every level "
           "rereads global memory and half the lanes of each warp idle (divergence)"),
      rung(R, Task::reduce_sum, "reduce-global-strided", kReduce, kBoth, LAB_FN(reduce_global_strided),
           "the same tree with index = 2*s*tid: active threads are contiguous, so whole warps retire "
           "instead of diverging"),
      rung(R, Task::reduce_sum, "reduce-shared-sequential", kReduce, kBoth, LAB_FN(reduce_shared_sequential),
           "the tree moves to shared memory with sequential addressing (tid < s adds tid + s): one "
           "global read per element, conflict-free shared traffic"),
      rung(R, Task::reduce_sum, "reduce-first-add", kReduce, kBoth, LAB_FN(reduce_first_add),
           "each thread adds two elements while loading: half the blocks, no idle threads at the "
           "first level"),
      rung(R, Task::reduce_sum, "reduce-warp-unrolled", kReduce, kBoth, LAB_FN(reduce_warp_unrolled),
           "the last warp unrolled without __syncthreads, with __syncwarp between steps (the "
           "volatile-only listing races since Volta's independent thread scheduling)"),
      rung(R, Task::reduce_sum, "reduce-complete-unroll", kReduce, kBoth, LAB_FN(reduce_complete_unroll),
           "block size as a template parameter: every level unrolled at compile time, no loop "
           "overhead or dead comparisons"),
      rung(R, Task::reduce_sum, "reduce-multi-per-thread", kReduce, kBoth, LAB_FN(reduce_multi_per_thread),
           "each thread sums several blocks' worth of elements before the tree: more loads in "
           "flight per thread and the tree's cost amortized"),
      rung(R, Task::reduce_sum, "reduce-dynamic-shared", kReduce, kBoth, LAB_FN(reduce_dynamic_shared),
           "the same with the shared array sized at launch (extern __shared__): one kernel serves "
           "any block size; the speed should not change"),
      with_param(rung(R, Task::reduce_sum, "reduce-shuffle", kReduce, kBoth, LAB_FN(reduce_shuffle),
                      "warp shuffles instead of a shared tree, a grid-stride loop of 16-byte vector "
                      "loads, one partial per block: near the HBM read rate"),
                 "block", {256, 32, 64, 128, 512, 1024}),
      as_reference(rung(R, Task::reduce_sum, "reduce-cub", kReduce, kBoth, LAB_FN(reduce_cub),
                        "cub::DeviceReduce::Sum: the library line")),

      // --- scan: exclusive prefix sum; bytes = n * 4 read + n * 4 written ---
      rung(S, Task::exclusive_scan, "scan-blelloch-global", kScan, kBoth, LAB_FN(scan_blelloch_global),
           "Blelloch up-sweep and down-sweep in global memory, one launch per level: 2 log2(n) "
           "passes, the later ones strided"),
      rung(S, Task::exclusive_scan, "scan-hillis-steele", kScan, kBoth, LAB_FN(scan_hillis_steele),
           "a block scans its tile in shared memory (Hillis-Steele: log2(B) steps, n log n adds), "
           "then a scan of block sums and a uniform add"),
      rung(S, Task::exclusive_scan, "scan-blelloch-shared", kScan, kBoth, LAB_FN(scan_blelloch_shared),
           "the work-efficient Blelloch tree in shared memory instead: 2n adds, but strided shared "
           "accesses conflict more at every level"),
      rung(S, Task::exclusive_scan, "scan-blelloch-padded", kScan, kBoth, LAB_FN(scan_blelloch_padded),
           "the same tree with one pad word every 32 (GPU Gems 3, 39): the strided accesses spread "
           "over all banks"),
      rung(S, Task::exclusive_scan, "scan-warp-shuffle", kScan, kBoth, LAB_FN(scan_warp_shuffle),
           "16 items per thread from 16-byte vector loads, warp scans in registers with __shfl_up_sync, "
           "one barrier per 4096 elements: far fewer instructions and barriers per element"),
      rung(S, Task::exclusive_scan, "scan-lookback", kScan, kBoth, LAB_FN(scan_lookback),
           "one pass: each tile publishes its sum and looks back at its predecessors' (decoupled "
           "look-back), so every element is read once and written once"),
      as_reference(rung(S, Task::exclusive_scan, "scan-cub", kScan, kBoth, LAB_FN(scan_cub),
                        "cub::DeviceScan::ExclusiveSum: the library line")),
      rung(S, Task::find_repeats, "find-repeats", kScanApps, kInt, LAB_FN(find_repeats),
           "every i with a[i] == a[i+1], in order: flag, scan the flags, scatter the indices"),
      rung(S, Task::compact, "compact-scan", kScanApps, kInt, LAB_FN(compact_scan),
           "keep the elements > 0 in order (the renderer's culling step): flag, scan, scatter"),
      as_reference(rung(S, Task::compact, "compact-cub", kScanApps, kInt, LAB_FN(compact_cub),
                        "cub::DeviceSelect::If with the same predicate: the library line")),
      rung(S, Task::segmented_scan, "segmented-scan", kScanApps, kBoth, LAB_FN(segmented_scan),
           "exclusive scan restarted at every head flag: the scan operator on (flag, value) pairs"),

      // --- transpose: float, height x width in, width x height out; bytes = 2 * w * h * 4 ---
      rung(T, Task::transpose, "transpose-naive-read", kTranspose, kFloat, LAB_FN(transpose_naive_read),
           "a thread per element, reads coalesced, writes a column: every write its own 32-byte sector"),
      rung(T, Task::transpose, "transpose-naive-write", kTranspose, kFloat, LAB_FN(transpose_naive_write),
           "reads a column, writes coalesced: scattered reads cost less than scattered writes "
           "(no read-modify-write of partial sectors, and L1/L2 catch the reuse)"),
      rung(T, Task::transpose, "transpose-permuted", kTranspose, kFloat, LAB_FN(transpose_permuted),
           "naive-read with each warp's 128-byte segment read in the order (lane*7+5)%32: since "
           "GT200 the coalescer takes any permutation within a segment, so nothing changes"),
      rung(T, Task::transpose, "transpose-shared16", kTranspose, kFloat, LAB_FN(transpose_shared16),
           "a 16x16 tile staged in shared memory: both global reads and writes coalesced; half-warp "
           "rows, and the column read conflicts"),
      rung(T, Task::transpose, "transpose-shared32", kTranspose, kFloat, LAB_FN(transpose_shared32),
           "a 32x32 tile, 1024 threads: full 128-byte rows, but reading a tile column is a 32-way "
           "bank conflict"),
      rung(T, Task::transpose, "transpose-shared32-padded", kTranspose, kFloat, LAB_FN(transpose_shared32_padded),
           "the tile padded to 32x33 floats: a column's words fall in 32 different banks"),
      rung(T, Task::transpose, "transpose-best", kTranspose, kFloat, LAB_FN(transpose_best),
           "tall padded tiles (128x32), 32x16 threads with 8 elements each, checks only in edge tiles, "
           "blocks ordered down the columns: each warp writes 512 contiguous bytes of an output row and "
           "neighbouring blocks finish the 32-byte sectors they share, so unaligned sizes stay near copy"),
      on_host(rung(T, Task::transpose, "transpose-cpu-mt", "kernels/lab/transpose_host.cpp", kFloat,
                   LAB_FN(transpose_cpu_mt),
                   "the CPU floor: blocked transpose, one thread per hardware thread over rows of blocks")),

      // --- shared-memory bank conflicts: time per warp-wide shared load ---
      with_param(rung(B, Task::bank_read, "banks-32bit", kBanks, kInt, LAB_FN(banks_32),
                      "32-bit words `stride` apart: bank = word mod 32, so lanes collide gcd(stride, 32) "
                      "ways and the load replays that many times"),
                 "stride", strides()),
      with_param(rung(B, Task::bank_read, "banks-broadcast", kBanks, kInt, LAB_FN(banks_32),
                      "every lane reads the same 32-bit word: one wavefront, broadcast to the warp"),
                 "stride", {0}),
      with_words(with_param(rung(B, Task::bank_read, "banks-8bit", kBanks, kInt, LAB_FN(banks_8),
                      "8-bit words: four share a bank word, and lanes reading the same 32-bit word "
                      "are served together, so small strides are free"),
                 "stride", strides()), 1),
      with_words(with_param(rung(B, Task::bank_read, "banks-16bit", kBanks, kInt, LAB_FN(banks_16),
                      "16-bit words: two per bank word; conflicts start at strides that map lanes to "
                      "different words of one bank"),
                 "stride", strides()), 2),
      with_words(with_param(rung(B, Task::bank_read, "banks-64bit", kBanks, kInt, LAB_FN(banks_64),
                      "64-bit words: a warp needs 256 bytes, two wavefronts at best; odd strides are "
                      "conflict-free per half warp"),
                 "stride", strides()), 8),
      with_words(with_param(rung(B, Task::bank_read, "banks-128bit", kBanks, kInt, LAB_FN(banks_128),
                      "128-bit words: 512 bytes a warp, four wavefronts at best (one per quarter warp)"),
                 "stride", strides()), 16),

      // --- 1D convolution: box filter of radius R; bytes = n * 4 read + n * 4 written ---
      with_param(rung(C, Task::convolve, "conv-global", kConv, kFloat, LAB_FN(conv_global),
                      "each output reads its 2R+1 inputs from global memory, weights in constant "
                      "memory: the reuse is left to L1/L2"),
                 "radius", radii()),
      with_param(rung(C, Task::convolve, "conv-shared", kConv, kFloat, LAB_FN(conv_shared),
                      "a block stages its tile plus 2R halo cells in shared memory (the halo loaded by "
                      "the first 2R threads): one global read per element"),
                 "radius", radii()),
      with_param(rung(C, Task::convolve, "conv-shared-regs", kConv, kFloat, LAB_FN(conv_shared_regs),
                      "the radius a template parameter and the weights in registers, several outputs "
                      "per thread: the loop unrolls and the halo is amortized"),
                 "radius", radii()),
  };
  return list;
}

const lab::Variant* find_lab_variant(const std::string& name) {
  for (const lab::Variant& v : lab_registry())
    if (v.name == name) return &v;
  return nullptr;
}

const std::vector<Family>& lab_families() {
  static const std::vector<Family> f = {Family::reduce, Family::scan, Family::transpose, Family::banks,
                                        Family::conv};
  return f;
}

bool parse_lab_family(const std::string& name, Family* out) {
  for (Family f : lab_families())
    if (name == lab::family_name(f)) {
      *out = f;
      return true;
    }
  return false;
}

std::string lab_unavailable_reason() { return gpu_unavailable_reason(); }

}  // namespace circles
