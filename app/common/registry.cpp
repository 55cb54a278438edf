// The renderer registry. Built into the circles_registry library, which links the CUDA kernels
// when the build has CUDA (CIRCLES_HAVE_CUDA) and otherwise lists them as unavailable.
#include "app/common/registry.h"

#include <algorithm>
#include <stdexcept>

#include "app/common/lab_registry.h"
#include "kernels/primitives/device_scan_names.h"
#include "render/cpu_renderers.h"
#if CIRCLES_HAVE_CUDA
#include "kernels/cuda/device.h"
#include "kernels/renderers/cuda_renderers.h"
#endif

namespace circles {

namespace {
#if !CIRCLES_HAVE_CUDA
std::unique_ptr<Renderer> no_cuda(const RendererSettings&) { throw std::runtime_error("this build has no CUDA support"); }
#define make_cuda_naive_renderer no_cuda
#define make_cuda_tile_scan_renderer no_cuda
#define make_cuda_tile_binned_renderer no_cuda
#endif

// cuda-tile-scan's in-block compaction scan: its own ballot, or the block-level scan inside one of
// the lab's scan rungs (kernels/primitives/block_scan.cuh), named after that rung. Over one 0/1 flag per
// thread of a 256- or 1024-thread block, so what matters is instructions and barriers per batch.
std::vector<std::string> block_scans() {
  return {"ballot", "scan-hillis-steele", "scan-blelloch-shared", "scan-blelloch-padded", "scan-warp-shuffle",
          "scan-cub"};
}
std::vector<std::string> block_scan_notes() {
  return {
      "the renderer's own: warp ballot + popcount, then each thread sums the warp totals: one barrier, "
      "fewest instructions (flags only)",
      "the lab's Hillis-Steele tile scan: log2(threads) steps of one add per thread, a barrier each",
      "the lab's Blelloch tree in shared memory: 2 log2(threads) levels, a barrier each, most threads idle "
      "and strided accesses conflicting on banks",
      "the same Blelloch tree with one pad word every 32: far fewer bank conflicts, the barriers stay",
      "the lab's warp-shuffle block scan: 5 __shfl_up_sync per warp, warp totals through shared memory, "
      "one barrier",
      "cub::BlockScan (raking): the library line",
  };
}

// cuda-tile-binned's scan of the per-circle tile counts (or of binning by counting's matrix): the
// device-wide exclusive scans (kernels/primitives/device_scan_names.h, the lab's scan ladder), the
// look-back first.
std::vector<std::string> device_scans() {
  std::vector<std::string> names;
  for (DeviceScan s : kDeviceScans) names.push_back(device_scan_name(s));
  return names;
}
// Their lines are the lab registry's descriptions.
std::vector<std::string> device_scan_notes() {
  std::vector<std::string> notes;
  for (const std::string& name : device_scans()) {
    const lab::Variant* v = find_lab_variant(name);
    notes.push_back(v ? v->description : std::string());
  }
  return notes;
}
}  // namespace

const std::vector<RendererInfo>& renderer_registry() {
  static const std::vector<RendererInfo> list = {
      {"cpu-ref", "sequential CPU: each circle in order, each pixel of its bounding box (defines the picture)",
       "render/cpu_renderers.cpp", false, {}, {}, {}, {}, make_cpu_ref_renderer},
      {"cpu-mt", "multithreaded CPU: circles binned into tiles in order, threads over tiles",
       "render/cpu_renderers.cpp", false, {32, 16, 64}, {}, {}, {}, make_cpu_mt_renderer},
      {"cuda-naive", "CUDA, one thread per pixel looping over all circles",
       "kernels/renderers/naive.cu", true, {}, {}, {}, {}, make_cuda_naive_renderer},
      {"cuda-tile-scan",
       "CUDA, a block per tile: cull a batch of circles, compact with an exclusive scan in "
       "shared memory, shade in order",
       "kernels/renderers/tile_scan.cu", true, {16, 32}, {32, 64, 128, 256, 512, 1024}, block_scans(),
       block_scan_notes(), make_cuda_tile_scan_renderer},
      {"cuda-tile-binned",
       "CUDA, circles binned into tiles first (count, scan, scatter by tile; a radix sort where "
       "counting does not fit), then each tile's warps shade only the circles that touch their 8x8 "
       "pixels (tiny circles: each marks the pixels it covers); few circles: one kernel, no binning; "
       "--early-exit: front to back, stopping settled pixels and tiles; --half-colour: R, G and B blended in "
       "half precision by the eight-pixel walk",
       "kernels/renderers/binned/", true, {32, 16}, {}, device_scans(), device_scan_notes(),
       make_cuda_tile_binned_renderer, true, true, true},
  };
  return list;
}

const RendererInfo* find_renderer(const std::string& name) {
  for (const RendererInfo& r : renderer_registry())
    if (r.name == name) return &r;
  return nullptr;
}

std::string gpu_unavailable_reason() {
#if CIRCLES_HAVE_CUDA
  const CudaDeviceInfo& d = cuda_device_info();
  return d.available ? "" : d.reason;
#else
  return "this build has no CUDA support (nvcc was not found at configure time)";
#endif
}

std::string unavailable_reason(const RendererInfo& info) { return info.needs_gpu ? gpu_unavailable_reason() : ""; }

std::string default_renderer_name() {
  const RendererInfo* gpu = find_renderer("cuda-tile-binned");
  return gpu && unavailable_reason(*gpu).empty() ? "cuda-tile-binned" : "cpu-mt";
}

namespace {
std::string join(const std::vector<int>& v) {
  std::string out;
  for (int x : v) out += (out.empty() ? "" : ", ") + std::to_string(x);
  return out;
}
std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}
}  // namespace

RendererSettings resolve_settings(const RendererInfo& info, RendererSettings s) {
  if (info.tile_sizes.empty()) {
    if (s.tile_size != 0)
      throw std::invalid_argument("renderer '" + info.name + "' has no tile size setting");
  } else if (s.tile_size == 0) {
    s.tile_size = info.tile_sizes.front();
  } else if (std::find(info.tile_sizes.begin(), info.tile_sizes.end(), s.tile_size) == info.tile_sizes.end()) {
    throw std::invalid_argument("renderer '" + info.name + "' supports tile sizes " + join(info.tile_sizes) +
                                ", not " + std::to_string(s.tile_size));
  }
  if (info.batch_sizes.empty()) {
    if (s.batch_size != 0)
      throw std::invalid_argument("renderer '" + info.name + "' has no batch size setting");
  } else {
    const int full = s.tile_size * s.tile_size;
    if (s.batch_size == 0) s.batch_size = full;
    std::vector<int> allowed;
    for (int b : info.batch_sizes)
      if (b <= full) allowed.push_back(b);
    if (std::find(allowed.begin(), allowed.end(), s.batch_size) == allowed.end())
      throw std::invalid_argument("renderer '" + info.name + "' with tile size " + std::to_string(s.tile_size) +
                                  " supports batch sizes " + join(allowed) + ", not " +
                                  std::to_string(s.batch_size));
  }
  if (info.scans.empty()) {
    if (!s.scan.empty()) throw std::invalid_argument("renderer '" + info.name + "' has no scan setting");
  } else if (s.scan.empty()) {
    s.scan = info.scans.front();
  } else if (std::find(info.scans.begin(), info.scans.end(), s.scan) == info.scans.end()) {
    throw std::invalid_argument("renderer '" + info.name + "' supports scans " + join(info.scans) +
                                ", not '" + s.scan + "'");
  }
  if (s.early_exit && !info.early_exit) {
    std::vector<std::string> have;
    for (const RendererInfo& r : renderer_registry())
      if (r.early_exit) have.push_back(r.name);
    throw std::invalid_argument("renderer '" + info.name + "' has no early-exit mode (renderers with one: " +
                                join(have) + ")");
  }
  if (s.binned.any() && !info.binned_choices)
    throw std::invalid_argument("renderer '" + info.name + "' takes no --binned-* option (cuda-tile-binned's own choices)");
  const BinnedChoices& b = s.binned;
  if (b.rows != 0 && b.rows != 2 && b.rows != 4 && b.rows != 8)
    throw std::invalid_argument("--binned-rows takes 2, 4 or 8, not " + std::to_string(b.rows));
  if (b.block != 0 && (b.block < 32 || b.block > 1024))
    throw std::invalid_argument("--binned-block takes 32 to 1024 circles, not " + std::to_string(b.block));
  if (b.compose < -1 || b.compose > 2)
    throw std::invalid_argument("--binned-compose takes 0, 1 or 2, not " + std::to_string(b.compose));
  if (b.tiny < -1 || b.tiny > 1) throw std::invalid_argument("--binned-tiny takes 0 or 1, not " + std::to_string(b.tiny));
  if (s.half_colour && !info.half_colour) {
    std::vector<std::string> have;
    for (const RendererInfo& r : renderer_registry())
      if (r.half_colour) have.push_back(r.name);
    throw std::invalid_argument("renderer '" + info.name + "' has no half-colour mode (renderers with one: " +
                                join(have) + ")");
  }
  return s;
}

std::string describe_settings(const RendererInfo& info, const RendererSettings& settings) {
  const RendererSettings s = resolve_settings(info, settings);
  std::string out;
  if (s.tile_size) out += "tile " + std::to_string(s.tile_size);
  if (s.batch_size) out += (out.empty() ? "" : ", ") + std::string("batch ") + std::to_string(s.batch_size);
  if (!s.scan.empty()) out += (out.empty() ? "" : ", ") + std::string("scan ") + s.scan;
  if (s.early_exit) out += (out.empty() ? "" : ", ") + std::string("early exit");
  if (s.half_colour) out += (out.empty() ? "" : ", ") + std::string("half colour");
  const BinnedChoices& b = s.binned;
  auto add = [&out](const std::string& what) { out += (out.empty() ? "" : ", ") + what; };
  if (b.strategy != BinnedChoices::Strategy::Choose)
    add(b.strategy == BinnedChoices::Strategy::Direct ? "strategy direct" : "strategy binned");
  if (b.max_pairs) add("max pairs " + std::to_string(b.max_pairs));
  if (b.rows) add(std::to_string(b.rows) + " rows");
  if (b.force_early) add("early exit forced");
  if (b.sort) add("binned by sorting");
  if (b.block) add("blocks of " + std::to_string(b.block));
  if (b.compose >= 0) add("compose " + std::to_string(b.compose));
  if (b.tiny >= 0) add(b.tiny ? "tiny kernel" : "no tiny kernel");
  if (b.few_scatter) add("few-slot scatter");
  return out;
}

std::unique_ptr<Renderer> make_renderer(const std::string& name, const RendererSettings& settings) {
  const RendererInfo* info = find_renderer(name);
  if (!info) {
    std::string names;
    for (const RendererInfo& r : renderer_registry()) names += (names.empty() ? "" : ", ") + r.name;
    throw std::invalid_argument("unknown renderer '" + name + "' (renderers: " + names + ")");
  }
  const std::string why = unavailable_reason(*info);
  if (!why.empty()) throw std::invalid_argument("renderer '" + name + "' is unavailable: " + why);
  return info->make(resolve_settings(*info, settings));
}

}  // namespace circles
