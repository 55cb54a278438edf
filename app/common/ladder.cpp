#include "app/common/ladder.h"

#include <stdexcept>

#include "app/common/registry.h"
#include "kernels/renderers/config.h"

namespace circles {

namespace {

// cuda-tile-binned at tile 32 with its choices forced: every optimisation off (the direct walk at
// two pixels a lane, no runs, no tiny-circle kernel), for the rungs to turn on one at a time.
RendererSettings binned_base() {
  RendererSettings s;
  s.tile_size = kLargeTile;
  s.binned.strategy = BinnedChoices::Strategy::Direct;
  s.binned.rows = 2;
  s.binned.compose = 0;
  s.binned.tiny = 0;
  return s;
}

std::vector<Rung> make_ladder() {
  std::vector<Rung> l;
  auto add = [&](std::string name, std::string renderer, RendererSettings s, std::string adds, std::string source,
                 std::string base = "") {
    if (base.empty() && !l.empty()) base = l.back().name;
    l.push_back({std::move(name), std::move(renderer), std::move(s), std::move(adds), std::move(source), std::move(base)});
  };
  add("naive", "cuda-naive", {}, "one thread a pixel tests every circle, in order", "kernels/renderers/naive.cu");
  add("tile-scan", "cuda-tile-scan", {},
      "a block a 16x16 tile culls the circles in batches against its tile and compacts the ones that touch it "
      "with a block-wide exclusive scan in shared memory; its threads test only those",
      "kernels/renderers/tile_scan.cu");
  RendererSettings s = binned_base();
  add("warp-cull", "cuda-tile-binned", s,
      "32x32 tiles; each warp culls the circles against its own 8-pixel-wide box with one ballot, so no "
      "scan, no shared list and no block-wide barrier a batch",
      "kernels/renderers/binned/shade_walk.cuh");
  s.binned.strategy = BinnedChoices::Strategy::Binned;
  s.binned.sort = true;
  s.scan = "scan-blelloch-global";
  add("sorted", "cuda-tile-binned", s,
      "circles binned into tiles before the shade: each circle's tiles counted and scanned, its (tile, circle) "
      "pairs written and sorted by tile (CUB's radix sort), so a tile reads only its own circles",
      "kernels/renderers/binned/sort_path.cuh");
  s.scan = "";
  add("look-back", "cuda-tile-binned", s,
      "the counts' exclusive scan in one pass (the decoupled look-back) instead of Blelloch's tree in global "
      "memory, launched dependent on the count it follows",
      "kernels/primitives/device_scan.cu");
  s.binned.sort = false;
  add("counted", "cuda-tile-binned", s,
      "binning by counting where the tiles fit a block's histogram: a tile x block matrix of counts, scanned, "
      "each block's ids scattered sorted by tile; no global sort, and a frame's first chunk shaded without "
      "waiting for its count",
      "kernels/renderers/binned/count_path.cuh");
  s.binned.strategy = BinnedChoices::Strategy::Choose;
  add("choose", "cuda-tile-binned", s,
      "each frame chooses: the direct walk where circles x tiles <= 2^24 (binning's fixed cost would dominate), "
      "binned otherwise",
      "kernels/renderers/config.h");
  s.binned.rows = 4;
  add("four-rows", "cuda-tile-binned", s,
      "four pixels a lane (a column of four): half the threads, so twice the blocks an SM and half the warps "
      "culling each batch",
      "kernels/renderers/binned/shade_walk.cuh");
  s.binned.rows = 0;
  add("eight-rows", "cuda-tile-binned", s,
      "the eight-pixel walk of binned flat frames: each batch culled once a block as it is staged, into a mask "
      "of circles per 8x4 box, and a visit's loads and test serving eight pixels",
      "kernels/renderers/binned/shade_rows8.cuh");
  s.binned.compose = -1;
  add("composed", "cuda-tile-binned", s,
      "runs of circles covering a warp's whole box composed: blended with no coverage test (big circles)",
      "kernels/renderers/binned/shade_walk.cuh");
  s.binned.tiny = -1;
  add("tiny", "cuda-tile-binned", s,
      "tiny circles (median radius <= 2 px) mark the pixels they cover in a mask, a thread a circle, so work "
      "follows covered pixels; this rung is cuda-tile-binned's exact default",
      "kernels/renderers/binned/shade_tiny.cuh");
  RendererSettings half = s;
  half.half_colour = true;
  add("half-colour", "cuda-tile-binned", half,
      "R, G and B blended in half precision (two HFMA2 a blend) in the eight-pixel walk, within 2^-10 of "
      "cpu-ref, where the scene allows it",
      "kernels/renderers/binned/shade_rows8.cuh", "tiny");
  RendererSettings early = s;
  early.early_exit = true;
  add("early-exit", "cuda-tile-binned", early,
      "front to back from the last circle, each pixel stopped once what lies below can move no 8-bit channel "
      "and each tile once its pixels have; later chunks binned only into open tiles (within one 8-bit step)",
      "kernels/renderers/binned/renderer.cu", "tiny");
  return l;
}

}  // namespace

const std::vector<Rung>& renderer_ladder() {
  static const std::vector<Rung> ladder = make_ladder();
  return ladder;
}

const Rung* find_rung(const std::string& name) {
  for (const Rung& r : renderer_ladder())
    if (r.name == name) return &r;
  return nullptr;
}

std::vector<const Rung*> select_rungs(const std::vector<std::string>& names) {
  std::vector<const Rung*> out;
  for (const std::string& n : names) {
    if (!find_rung(n)) {
      std::string all;
      for (const Rung& r : renderer_ladder()) all += (all.empty() ? "" : ", ") + r.name;
      throw std::invalid_argument("ladder: no rung '" + n + "' (rungs: " + all + ")");
    }
  }
  for (const Rung& r : renderer_ladder()) {
    bool named = names.empty();
    for (const std::string& n : names) named = named || n == r.name;
    if (named) out.push_back(&r);
  }
  return out;
}

const Rung* rung_of(const std::string& renderer, const RendererSettings& s) {
  const RendererInfo* info = find_renderer(renderer);
  if (!info) return nullptr;
  for (const Rung& r : renderer_ladder()) {
    if (r.renderer != renderer) continue;
    if (resolve_settings(*info, r.settings) == s) return &r;
  }
  return nullptr;
}

std::string rung_options(const Rung& rung) {
  const RendererSettings& s = rung.settings;
  const BinnedChoices& b = s.binned;
  std::string o = "-r " + rung.renderer;
  if (s.tile_size) o += " --tile-size " + std::to_string(s.tile_size);
  if (!s.scan.empty()) o += " --scan " + s.scan;
  if (s.half_colour) o += " --half-colour";
  if (s.early_exit) o += " --early-exit";
  if (b.strategy != BinnedChoices::Strategy::Choose)
    o += std::string(" --binned-strategy ") + (b.strategy == BinnedChoices::Strategy::Direct ? "direct" : "binned");
  if (b.sort) o += " --binned-sort";
  if (b.rows) o += " --binned-rows " + std::to_string(b.rows);
  if (b.compose >= 0) o += " --binned-compose " + std::to_string(b.compose);
  if (b.tiny >= 0) o += " --binned-tiny " + std::to_string(b.tiny);
  return o;
}

}  // namespace circles
