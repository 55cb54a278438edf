// Tunables of the CUDA renderers, in one place.
#pragma once
#include <type_traits>

namespace circles {

// Tile renderers: a block owns TILE x TILE pixels, one thread per pixel. Supported sizes are
// listed in the registry (app/registry.cpp); each is one template instantiation per shading.
constexpr int kSmallTile = 16;
constexpr int kLargeTile = 32;
constexpr int kNaiveBlockX = 16, kNaiveBlockY = 16;  // cuda-naive: 2D blocks of pixels

// Calls f(std::integral_constant<int, TILE>{}) for a supported tile size.
template <class F>
void with_tile_size(int tile, F&& f) {
  if (tile == kLargeTile) f(std::integral_constant<int, kLargeTile>{});
  else f(std::integral_constant<int, kSmallTile>{});
}

}  // namespace circles
