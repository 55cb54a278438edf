// Tunables of the CUDA renderers, in one place.
#pragma once
#include <string>
#include <type_traits>

namespace circles {

// Tile renderers: a block owns TILE x TILE pixels (cuda-tile-scan a thread per pixel,
// cuda-tile-binned's shade kernels one to eight pixels a thread). Supported sizes are listed in
// the registry (app/common/registry.cpp); each is one template instantiation per shading.
constexpr int kSmallTile = 16;
constexpr int kLargeTile = 32;
constexpr int kNaiveBlockX = 16, kNaiveBlockY = 16;  // cuda-naive: 2D blocks of pixels

// cuda-tile-binned's choice per frame. Exact mode: `direct` (one kernel, every block walks all
// N circles, its warps culling them) when N x tiles is at most 2^24, small enough that walking
// them all costs less than the binning stages' fixed cost; else binned. Early exit also walks
// directly when the circles are flat, big (median radius >= 16 pixels: a pixel settles after a
// few of them) and at most 2^17: each block then stops after its last few dozen circles, without
// binning any, and a tile that never settles (pixels no circle covers) walks a bounded number.
// `reason` says why, in words.
struct BinnedStrategy {
  bool direct = false;
  std::string reason;
};
constexpr long long kDirectMaxCircleTiles = 1ll << 24;
constexpr long long kEarlyDirectMaxCircles = 1ll << 17;
constexpr float kEarlyDirectMinRadiusPixels = 16.f;
inline BinnedStrategy binned_strategy(long long circles, long long tiles, bool early = false, bool flat = true,
                                      float median_radius_pixels = 0.f) {
  const long long work = circles * tiles;
  const std::string what = std::to_string(circles) + " circles x " + std::to_string(tiles) + " tiles = " +
                           std::to_string(work) + (work <= kDirectMaxCircleTiles ? " <= " : " > ") +
                           std::to_string(kDirectMaxCircleTiles);
  if (work <= kDirectMaxCircleTiles) return {true, what + ": walking every circle in every tile is cheaper than binning"};
  if (early && flat && circles <= kEarlyDirectMaxCircles && median_radius_pixels >= kEarlyDirectMinRadiusPixels)
    return {true, "early exit, " + std::to_string(circles) + " flat circles of median radius " +
                      std::to_string(static_cast<int>(median_radius_pixels)) +
                      " px: each tile settles after its last few circles, so walking back from the end beats binning"};
  return {false, what + ": binning pays"};
}

// Calls f(std::integral_constant<int, TILE>{}) for a supported tile size.
template <class F>
void with_tile_size(int tile, F&& f) {
  if (tile == kLargeTile) f(std::integral_constant<int, kLargeTile>{});
  else f(std::integral_constant<int, kSmallTile>{});
}

}  // namespace circles
