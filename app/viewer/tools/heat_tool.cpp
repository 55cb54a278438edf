// The heat map (heat_tool.h).
#include "app/viewer/tools/heat_tool.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "app/viewer/viewer_layout.h"
#include "app/viewer/viewer_log.h"

namespace circles {

using viewer_detail::report;

void HeatTool::update(const ToolFrame& f, bool overlay_taken) {
  HeatUi& h = ui_.heat;
  const bool cuda = f.renderer.device_pixels() != nullptr;
  h.unavailable = !cuda ? (f.no_cuda_reason.empty() ? "the frame is drawn on the CPU: pick a CUDA renderer"
                                                     : "the frame is drawn on the CPU: no CUDA device here (" +
                                                           f.no_cuda_reason + ")")
                  : overlay_taken ? "the transpose view holds the overlay: turn it off first"
                                  : "";
  const bool want_time = cuda && h.mode == 3;
  if (want_time != timing_tiles_) timing_tiles_ = f.renderer.time_tiles(want_time) && want_time;
  const bool log = f.last_frame && !f.options.heat.empty();
  if (log && !h.unavailable.empty()) {
    report("heat: unavailable: %s", h.unavailable.c_str());
    f.fail();  // asked for on the command line and not shown
  }
  if (h.mode == 0 || !h.unavailable.empty()) {
    if (shown_) f.presenter.drop_overlay();
    shown_ = false;
    key_.clear();
    cycles_.clear();
    h.what.clear();
    return;
  }
  ui_.check.overlay = false;
  // Counts change only with the frame; the cycles are measured again on every rendered frame and
  // read behind it (the last frame of --heat waits for its own).
  const std::string key = std::to_string(h.mode) + "/" + std::to_string(f.renderer.frame()) + "/" +
                          std::to_string(f.width) + "x" + std::to_string(f.height) + "/" + f.renderer_name;
  if (h.mode != 3 && key == key_ && shown_ && !log) return;
  std::vector<float> values(static_cast<std::size_t>(f.width) * f.height);
  double sum = 0, lo = 0, hi = 0;
  std::size_t count = 0;
  auto spread = [&](const std::vector<double>& per_tile, int tile, int tx) {
    for (int j = 0; j < f.height; ++j)
      for (int i = 0; i < f.width; ++i)
        values[static_cast<std::size_t>(j) * f.width + i] =
            static_cast<float>(per_tile[static_cast<std::size_t>(j / tile) * tx + i / tile]);
  };
  auto stats = [&](const auto& v) {
    lo = v.empty() ? 0 : static_cast<double>(*std::min_element(v.begin(), v.end()));
    hi = v.empty() ? 0 : static_cast<double>(*std::max_element(v.begin(), v.end()));
    for (auto x : v) sum += static_cast<double>(x);
    count = v.size();
  };
  if (h.mode == 3) {
    int tile = 0, tx = 0, ty = 0;
    std::vector<double> cycles = f.renderer.tile_cycles(&tile, &tx, &ty, log);
    if (cycles.empty()) return;  // no copy of this size has finished yet
    if (cycles == cycles_ && shown_ && !log) return;  // no newer frame's copy has finished
    cycles_ = cycles;
    stats(cycles);
    spread(cycles, tile, tx);
    char what[96];
    std::snprintf(what, sizeof what, "shade cycles per %dx%d tile (clock64, one block each)", tile, tile);
    h.what = what;
    h.unit = "cycles";
  } else {
    Renderer::HeatCounts counts;
    f.renderer.heat_counts(16, &counts);
    if (h.mode == 1) {
      const std::vector<double> per_tile(counts.circles_per_tile.begin(), counts.circles_per_tile.end());
      stats(per_tile);
      spread(per_tile, counts.tile, counts.tiles_x);
      h.what = "circles per 16x16 tile (conservative box test)";
      h.unit = "circles";
    } else {
      stats(counts.blends_per_pixel);
      for (std::size_t k = 0; k < values.size(); ++k) values[k] = static_cast<float>(counts.blends_per_pixel[k]);
      h.what = "blends per pixel (circles covering it)";
      h.unit = "blends";
    }
  }
  h.lo = static_cast<float>(lo);
  h.hi = static_cast<float>(hi);
  h.mean = count ? static_cast<float>(sum / count) : 0.f;
  h.imbalance = h.mean > 0 ? h.hi / h.mean : 0.f;
  const std::vector<std::uint8_t> texels = heat_texels(values, f.width, f.height, h.lo, h.hi);
  f.presenter.upload_overlay(texels.data(), f.width, f.height);
  shown_ = true;
  key_ = key;
  if (log)
    report("heat: %s: min %.6g, max %.6g, mean %.6g %s, max/mean %.2f", h.what.c_str(), lo, hi,
           static_cast<double>(h.mean), h.unit.c_str(), static_cast<double>(h.imbalance));
}

}  // namespace circles
