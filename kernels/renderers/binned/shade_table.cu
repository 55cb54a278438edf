// The shade table's entries: each an instantiation of one of the three walks, with the variant
// it answers to and its block size. A frame's plan picks the variant (shade_variant in
// plan.cpp); tests/gpu/cuda/shade_table_test.cpp checks that every variant a plan can ask for is
// here. The kernels' own comments say why each is fast.
#include "kernels/renderers/binned/shade_table.cuh"

#include <stdexcept>

#include "kernels/renderers/binned/shade_rows8.cuh"
#include "kernels/renderers/binned/shade_tiny.cuh"
#include "kernels/renderers/binned/shade_walk.cuh"

namespace circles::binned {

namespace {

// The warps' walk, shade_kernel<S, T, kEarly, kCount, kCompose, kRows, kStep, kGroups>.
template <Shading S, int T, bool E, bool C, int K, int R, bool St = false, bool G = walks_row_groups(S, R, E, K)>
ShadeKernel warps() {
  ShadeVariant v;
  v.tile = T;
  v.count = C;
  v.shading = S;
  v.early = E;
  v.compose = K;
  v.rows = R;
  v.step = St;
  v.groups = G;
  return {v, shade_kernel<S, T, E, C, K, R, St, G>, T * T / R};
}
template <bool C, bool H>
ShadeKernel rows8() {
  ShadeVariant v;
  v.walk = ShadeWalk::Rows8;
  v.count = C;
  v.half = H;
  return {v, shade_rows8_kernel<C, H>, kRows8Threads};
}
template <int T, bool C>
ShadeKernel tiny() {
  ShadeVariant v;
  v.walk = ShadeWalk::Tiny;
  v.tile = T;
  v.count = C;
  return {v, tiny_shade_kernel<T, C>, kTinyThreads};
}

// The warps' walk at R pixels a lane: snow, and flat circles with and without runs composed.
template <int T, bool C, bool E, int R>
void add_walks(std::vector<ShadeKernel>& t) {
  t.push_back(warps<Shading::Snow, T, E, C, 0, R>());
  t.push_back(warps<Shading::Flat, T, E, C, 1, R>());
  t.push_back(warps<Shading::Flat, T, E, C, 0, R>());
  if constexpr (walks_row_groups(Shading::Flat, R, E, 0))  // and binned frames' walk at four: the warp's box
    t.push_back(warps<Shading::Flat, T, E, C, 0, R, false, false>());
}

// Every kernel at tile T, counting or not. Exact frames at tile 32 take four pixels a lane (and
// the eight-pixel walk); early exit and tile 16 two, early exit also tile runs (compose 2).
template <int T, bool C>
void add_tile(std::vector<ShadeKernel>& t) {
  t.push_back(tiny<T, C>());
  add_walks<T, C, false, 2>(t);
  add_walks<T, C, true, 2>(t);
  t.push_back(warps<Shading::Flat, T, true, C, 2, 2>());
  if constexpr (T == kLargeTile) {
    add_walks<T, C, false, 4>(t);
    t.push_back(rows8<C, false>());
    t.push_back(rows8<C, true>());
    if constexpr (!C) {  // the animation step fused into direct exact frames (never counted)
      t.push_back(warps<Shading::Flat, T, false, false, 0, 4, true>());
      t.push_back(warps<Shading::Flat, T, false, false, 1, 4, true>());
    }
  }
}

std::vector<ShadeKernel> make_table() {
  std::vector<ShadeKernel> t;
  add_tile<kSmallTile, false>(t);
  add_tile<kSmallTile, true>(t);
  add_tile<kLargeTile, false>(t);
  add_tile<kLargeTile, true>(t);
  return t;
}

}  // namespace

const std::vector<ShadeKernel>& shade_table() {
  static const std::vector<ShadeKernel> table = make_table();
  return table;
}

const ShadeKernel& shade_kernel_for(const ShadeVariant& v) {
  for (const ShadeKernel& k : shade_table())
    if (k.variant == v) return k;
  throw std::logic_error("cuda-tile-binned: no shade kernel for " + v.name());
}

std::vector<ShadeVariant> shade_table_variants() {
  std::vector<ShadeVariant> out;
  for (const ShadeKernel& k : shade_table()) out.push_back(k.variant);
  return out;
}

}  // namespace circles::binned
