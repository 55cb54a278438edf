// The one registry of renderer variants: it joins the CPU renderers (render/) and the CUDA
// kernels (kernels/), so it lives above both, in app/. The CLI, the viewer, the tests and the benchmark all
// read this list: adding a renderer is one entry here and it is listed, tested and timed.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "render/renderer.h"

namespace circles {

struct RendererInfo {
  std::string name;         // what users type: "cuda-tile-scan"
  std::string description;  // one line
  std::string source;       // the file that implements it
  bool needs_gpu = false;
  std::vector<int> tile_sizes;   // supported tile sizes, the default first; empty: no tiles
  std::vector<int> batch_sizes;  // supported batch sizes (each <= tile_size^2); empty: none
  // Supported scans by name, the default first; empty: no scan setting. cuda-tile-scan's are
  // block-level scans (kernels/primitives/block_scan.cuh), cuda-tile-binned's the lab's device-wide
  // exclusive_scan variants; scan_notes has one line on each, in the same order.
  std::vector<std::string> scans;
  std::vector<std::string> scan_notes;
  std::unique_ptr<Renderer> (*make)(const RendererSettings& settings) = nullptr;
  bool early_exit = false;  // takes RendererSettings::early_exit (`--early-exit`)
  bool half_colour = false;  // takes RendererSettings::half_colour (`--half-colour`)
  bool binned_choices = false;  // takes RendererSettings::binned (the `--binned-*` options)
};

const std::vector<RendererInfo>& renderer_registry();
// nullptr if no renderer has that name.
const RendererInfo* find_renderer(const std::string& name);
// Why CUDA cannot be used here (no CUDA in this build, no usable GPU), or "" when it can.
std::string gpu_unavailable_reason();
// Why `info` cannot run on this machine, or "" when it can.
std::string unavailable_reason(const RendererInfo& info);
// The best renderer that runs here: cuda-tile-binned with a GPU, cpu-mt without.
std::string default_renderer_name();
// Fills in defaults and checks `s` against what `info` supports (tile size, batch size, scan);
// throws std::invalid_argument naming the supported values.
RendererSettings resolve_settings(const RendererInfo& info, RendererSettings s);
// Creates the named renderer; throws std::invalid_argument (unknown or unavailable, with the
// reason; unsupported settings): all command-line mistakes (exit 2).
std::unique_ptr<Renderer> make_renderer(const std::string& name, const RendererSettings& settings = {});
// "tile 16, batch 256, scan ballot" (what the settings resolve to), or "" for a renderer without
// knobs.
std::string describe_settings(const RendererInfo& info, const RendererSettings& settings);

}  // namespace circles
