#include "kernels/renderers/binned/plan.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace circles::binned {

std::size_t radius_sample_step(std::size_t n) { return std::max<std::size_t>(1, n / 1024); }

SceneFacts scene_facts(const Scene& scene, int width, int height) {
  const std::size_t n = scene.circles.size();
  std::vector<float> radii;
  for (std::size_t k = 0; k < n; k += radius_sample_step(n)) radii.push_back(scene.circles[k].radius);
  return scene_facts(scene, n, std::move(radii), mode_facts(scene), width, height);
}

SceneFacts scene_facts(const Scene& scene, std::size_t n, std::vector<float> radii, const ModeFacts& modes, int width,
                       int height) {
  SceneFacts f;
  f.circles = n;
  f.shading = scene.shading;
  const int side = std::min(width, height);
  for (float r : radii) f.mean_area_px += 3.14159265 * (r * side) * (r * side);  // r * side in float
  f.mean_area_px = radii.empty() ? 0.0 : f.mean_area_px / static_cast<double>(radii.size());
  std::nth_element(radii.begin(), radii.begin() + radii.size() / 2, radii.end());
  f.median_radius_px = radii.empty() ? 0.f : radii[radii.size() / 2] * static_cast<float>(side);
  f.depth = static_cast<double>(n) * f.mean_area_px / (static_cast<double>(width) * height);
  f.early_refusal = early_exit_refusal(scene, modes);
  f.half_refusal = half_colour_refusal(scene, modes);
  return f;
}

LoadPlan plan_load(const SceneFacts& f, int width, int height, const Asked& asked) {
  LoadPlan p;
  const BinnedChoices& forced = asked.forced;
  if (forced.rows) p.rows = forced.rows;
  p.half = asked.half && f.half_refusal.empty();
  p.half_refusal = f.half_refusal;
  const double depth_chunk =
      f.mean_area_px > 0 ? kFirstEarlyDepth * width * height / f.mean_area_px : static_cast<double>(f.circles);
  p.first_early_chunk = static_cast<int>(
      std::min<double>(static_cast<double>(f.circles), std::max<double>(kFirstEarlyChunk, depth_chunk)));
  // Early exit: never where its bound fails (early_exit_refusal); not where tiles would hardly
  // settle (snow's flakes fade out, tiny circles cover a pixel or two, shallow scenes stop few
  // tiles before their last circle), unless forced (tests). Exact frames keep its promise too.
  p.early = asked.early;
  std::string why_exact;
  if (!f.early_refusal.empty()) why_exact = f.early_refusal;
  else if (f.shading != Shading::Flat) why_exact = "snow shading fades, tiles do not settle";
  else if (f.median_radius_px < kEarlyMinRadiusPixels) why_exact = "median radius under 4 pixels, tiles do not settle";
  else if (f.depth < kEarlyMinDepth) {
    char d[120];
    std::snprintf(d, sizeof d, "a pixel lies under %.1f circles on average, under %.0f: few tiles settle", f.depth,
                  kEarlyMinDepth);
    why_exact = d;
  }
  if (asked.early && !why_exact.empty() && (!forced.force_early || !f.early_refusal.empty())) {
    p.early = false;
    p.early_note = "early exit not taken (" + why_exact + "): drawn exact, which meets its promise; ";
  }
  // Box runs from a radius of kComposeRadiusPixels, except in binned exact frames of flat circles
  // at four pixels a lane under a tile's radius, which walk per row group instead (smaller boxes
  // pay better there); tile runs from kTileRunsRadius tiles (two in early exit's direct frames,
  // whose kernels fold runs and spill more with tile runs).
  const int box = f.median_radius_px >= kComposeRadiusPixels ? 1 : 0;
  const bool four = asked.tile == kLargeTile && !p.early && p.rows >= 4;
  const bool row_groups = four && p.rows == 8 && f.shading == Shading::Flat;
  const int binned_box = row_groups && f.median_radius_px < static_cast<float>(asked.tile) ? 0 : box;
  const float direct_runs = p.early ? 2.f : kTileRunsRadius;
  p.compose_direct = f.median_radius_px >= direct_runs * static_cast<float>(asked.tile) ? 2 : box;
  p.compose_binned = f.median_radius_px >= kTileRunsRadius * static_cast<float>(asked.tile) ? 2 : binned_box;
  if (forced.compose >= 0) p.compose_direct = p.compose_binned = forced.compose;
  // Exact frames never compose tile runs: a run's composed map rounds differently from its
  // circles blended one by one, and exact frames are cpu-ref's bits. Box runs blend each circle,
  // untested, in order.
  if (!p.early) {
    p.compose_direct = std::min(p.compose_direct, 1);
    p.compose_binned = std::min(p.compose_binned, 1);
  }
  return p;
}

FramePlan plan_frame(const LoadPlan& load, const SceneFacts& f, const Asked& asked, unsigned long long tiles,
                     bool counting, Animation animation) {
  FramePlan p;
  const BinnedChoices& forced = asked.forced;
  const bool flat = f.shading == Shading::Flat;
  if (forced.strategy == BinnedChoices::Strategy::Direct) {
    p.direct = true;
    p.why = "--binned-strategy direct";
  } else if (forced.strategy == BinnedChoices::Strategy::Binned) {
    p.direct = false;
    p.why = "--binned-strategy binned";
  } else {
    const BinnedStrategy s = binned_strategy(static_cast<long long>(f.circles), static_cast<long long>(tiles), load.early,
                                             flat, f.median_radius_px);
    p.direct = s.direct;
    p.why = s.reason;
  }
  p.compose = p.direct ? load.compose_direct : load.compose_binned;
  p.tiny = !p.direct && !load.early && flat &&
           (forced.tiny >= 0 ? forced.tiny == 1 : f.median_radius_px <= kTinyRadiusPixels);
  if (p.tiny) p.compose = 0;
  // Exact frames at tile 32 walk four pixels a lane: direct ones, and binned ones of flat circles
  // (eight where they compose no runs: the eight-pixel walk, unless --binned-rows 4); the others two.
  const bool four = asked.tile == kLargeTile && !load.early && load.rows >= 4;
  if (p.direct) p.rows = four ? 4 : 2;
  else if (p.tiny) p.rows = 0;
  else p.rows = four && flat ? (p.compose == 0 && load.rows == 8 ? 8 : 4) : 2;
  p.fused_step = p.direct && four && !counting && flat && animation != Animation::Snow;
  p.mode = load.early ? Mode::EarlyExit : p.rows == 8 && load.half ? Mode::HalfColour : Mode::Exact;
  return p;
}

std::string FramePlan::kernels_text(const LoadPlan& load, const Asked& asked) const {
  std::string out = tiny           ? "; tiny circles: each pixel's covering circles marked in a mask, a thread a circle"
                    : compose == 2 ? "; runs covering a whole tile or warp box composed"
                    : compose == 1 ? "; runs covering a whole warp box composed"
                                   : "";
  if (rows == 8) out += "; eight pixels a lane";
  else if (rows == 4) out += "; four pixels a lane";
  if (asked.half && !load.early) {
    if (rows != 8) out += "; colour in float (half colour not taken: only the eight-pixel walk's frames take it)";
    else if (load.half) out += "; colour in half precision (--half-colour: within 2^-10 of cpu-ref)";
    else out += "; colour in float (half colour not taken: " + load.half_refusal + ")";
  }
  return out;
}

bool ShadeVariant::operator==(const ShadeVariant& o) const {
  return walk == o.walk && tile == o.tile && count == o.count && shading == o.shading && early == o.early &&
         compose == o.compose && rows == o.rows && step == o.step && groups == o.groups && half == o.half;
}

std::string ShadeVariant::name() const {
  std::string s = walk == ShadeWalk::Tiny ? "tiny" : walk == ShadeWalk::Rows8 ? "rows8" : "warps";
  s += " tile " + std::to_string(tile);
  if (walk == ShadeWalk::Warps) {
    s += shading == Shading::Snow ? ", snow" : ", flat";
    s += early ? ", early exit" : ", exact";
    s += ", compose " + std::to_string(compose) + ", " + std::to_string(rows) + " rows";
    if (step) s += ", step";
    if (groups) s += ", groups";
  }
  if (half) s += ", half";
  if (count) s += ", counting";
  return s;
}

ShadeVariant shade_variant(const FramePlan& frame, const LoadPlan& load, Shading shading, int tile, bool count,
                           bool binned, bool step) {
  ShadeVariant v;
  v.tile = tile;
  v.count = count;
  if (binned && frame.tiny) {  // binned exact frames of tiny flat circles: coverage masks
    v.walk = ShadeWalk::Tiny;
    return v;
  }
  // Four pixels a lane in exact frames at tile 32 where the plan says four or eight; else two.
  const int rows = tile == kLargeTile && !load.early && frame.rows >= 4 ? 4 : 2;
  if (!step && binned && frame.rows == 8 && rows == 4 && shading == Shading::Flat && frame.compose == 0) {
    v.walk = ShadeWalk::Rows8;  // the eight-pixel walk of binned flat frames
    v.half = load.half;
    return v;
  }
  v.shading = shading;
  v.early = load.early;
  v.rows = rows;
  v.step = step;
  // Snow's alpha differs per pixel: nothing composes. Tile runs only in early exit (an exact
  // frame asking for them has no kernel, and the table lookup says so).
  v.compose = shading == Shading::Snow ? 0 : frame.compose;
  v.groups = !binned && walks_row_groups(shading, rows, load.early, v.compose);
  return v;
}

}  // namespace circles::binned
