// The heat map (heat_tool.h).
#include "app/viewer/tools/heat_tool.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
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
  double sum = 0, lo = 0, hi = 0;
  std::size_t count = 0;
  std::vector<float> values;  // per pixel (blends), or per tile
  int tile = 1, tiles_x = f.width;  // values' grid: pixels, or tiles of `tile` pixels
  auto per_tile = [&](const std::vector<double>& v, int t, int tx) {
    values.assign(v.begin(), v.end());
    tile = t;
    tiles_x = tx;
  };
  auto stats = [&](const auto& v) {
    lo = v.empty() ? 0 : static_cast<double>(*std::min_element(v.begin(), v.end()));
    hi = v.empty() ? 0 : static_cast<double>(*std::max_element(v.begin(), v.end()));
    for (auto x : v) sum += static_cast<double>(x);
    count = v.size();
  };
  if (h.mode == 3) {
    int t = 0, tx = 0, ty = 0;
    std::vector<double> cycles = f.renderer.tile_cycles(&t, &tx, &ty, log);
    if (cycles.empty()) return;  // no copy of this size has finished yet
    if (cycles == cycles_ && shown_ && !log) return;  // no newer frame's copy has finished
    cycles_ = cycles;
    stats(cycles);
    per_tile(cycles, t, tx);
    char what[96];
    std::snprintf(what, sizeof what, "shade cycles per %dx%d tile (clock64, one block each)", t, t);
    h.what = what;
    h.unit = "cycles";
  } else {
    Renderer::HeatCounts counts;
    f.renderer.heat_counts(16, &counts);
    if (h.mode == 1) {
      const std::vector<double> circles(counts.circles_per_tile.begin(), counts.circles_per_tile.end());
      stats(circles);
      per_tile(circles, counts.tile, counts.tiles_x);
      h.what = "circles per 16x16 tile (conservative box test)";
      h.unit = "circles";
    } else {
      stats(counts.blends_per_pixel);
      values.assign(counts.blends_per_pixel.begin(), counts.blends_per_pixel.end());
      h.what = "blends per pixel (circles covering it)";
      h.unit = "blends";
    }
  }
  h.lo = static_cast<float>(lo);
  h.hi = static_cast<float>(hi);
  h.mean = count ? static_cast<float>(sum / count) : 0.f;
  h.imbalance = h.mean > 0 ? h.hi / h.mean : 0.f;
  // Colours per value, then (per tile) each tile's colour copied over its pixels a row at a time:
  // a frame-sized map costs a few memcpy's, not a colour lookup per pixel.
  const int grid_h = static_cast<int>(values.size() / static_cast<std::size_t>(tiles_x));
  const std::vector<std::uint8_t> colours = heat_texels(values, tiles_x, grid_h, h.lo, h.hi);
  const std::uint8_t* texels = colours.data();
  std::vector<std::uint8_t> expanded;
  if (tile > 1) {
    const std::size_t row_bytes = static_cast<std::size_t>(f.width) * 4;
    expanded.resize(row_bytes * f.height);
    for (int j = 0; j < f.height; ++j) {
      std::uint8_t* row = &expanded[row_bytes * j];
      if (j % tile) {  // the same tile row as the row below it
        std::memcpy(row, row - row_bytes, row_bytes);
        continue;
      }
      const std::uint8_t* src = &colours[static_cast<std::size_t>(j / tile) * tiles_x * 4];
      for (int i = 0; i < f.width; ++i) std::memcpy(row + 4 * i, src + 4 * (i / tile), 4);
    }
    texels = expanded.data();
  }
  f.presenter.upload_overlay(texels, f.width, f.height);
  shown_ = true;
  key_ = key;
  if (log)
    report("heat: %s: min %.6g, max %.6g, mean %.6g %s, max/mean %.2f", h.what.c_str(), lo, hi,
           static_cast<double>(h.mean), h.unit.c_str(), static_cast<double>(h.imbalance));
}

}  // namespace circles
