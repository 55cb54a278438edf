// Tunables of the CUDA renderers, in one place.
#pragma once

namespace circles {

constexpr int kTileSize = 16;                         // cuda-tile-scan: a block owns 16x16 pixels
constexpr int kTileThreads = kTileSize * kTileSize;   // one thread per pixel = one circle per thread per batch
constexpr int kNaiveBlockX = 16, kNaiveBlockY = 16;   // cuda-naive: 2D blocks of pixels

}  // namespace circles
