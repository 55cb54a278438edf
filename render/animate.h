// Animation steps, one circle at a time, shared by the CPU renderers and the CUDA kernels.
// Randomness comes from an integer hash of (seed, circle index, frame), so every renderer moves
// every circle identically. dt = 1/60 s per frame.
#pragma once
#include <cstdint>

#include "render/hd.h"
#include "render/scene.h"

namespace circles {

constexpr float kFrameDt = 1.f / 60.f;
constexpr int kFireworkBursts = 15;         // fireworks: circles [0, 15) are the bursts,
constexpr int kFireworkSparks = 20;         // then 20 sparks per burst, burst-major.
constexpr float kFireworkMaxDist = 0.25f;   // a spark beyond this respawns on its burst's rim
constexpr float kFireworkSpeed = 0.2f;      // spark speed, units per second

// The part of a circle that animations change.
struct Motion {
  float x, y, z, radius, vx, vy;
};

CIRCLES_HD std::uint32_t hash32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// A float in [-1, 1) from 24 hash bits: exact on every platform.
CIRCLES_HD float signed_unit(std::uint32_t h) {
  return static_cast<float>(h >> 8) * (2.f / 16777216.f) - 1.f;
}

// Two noise values in [-1, 1) for circle `index` at `frame`.
CIRCLES_HD void frame_noise(std::uint64_t seed, std::uint32_t index, std::int64_t frame, float* n0,
                            float* n1) {
  const std::uint32_t s = hash32(static_cast<std::uint32_t>(seed) ^
                                 hash32(static_cast<std::uint32_t>(seed >> 32) + 0x9E3779B9U));
  const std::uint32_t f = hash32(s ^ static_cast<std::uint32_t>(frame) * 0x85EBCA6BU);
  const std::uint32_t h0 = hash32(f ^ index * 0xC2B2AE35U);
  const std::uint32_t h1 = hash32(h0 + 0x27D4EB2FU);
  *n0 = signed_unit(h0);
  *n1 = signed_unit(h1);
}

// bouncingballs: gravity along -y; a ball below the floor moving down bounces, losing 20%.
CIRCLES_HD void step_bouncing_ball(Motion* m) {
  const float kGravity = -2.8f;
  if (m->y - m->radius < 0.f && m->vy < 0.f) {
    m->vy *= -0.8f;
    if (m->vy < 0.05f) {  // too slow to bounce again: rest on the floor
      m->vy = 0.f;
      m->y = m->radius;
      return;
    }
  }
  if (m->vy == 0.f && m->y == m->radius) return;  // at rest
  m->vy += kGravity * kFrameDt;
  m->y += m->vy * kFrameDt;
}

// hypnosis: every ring grows .01 a frame and wraps back to .02 once past .5.
CIRCLES_HD void step_hypnosis_ring(Motion* m) {
  m->radius += 0.01f;
  if (m->radius > 0.5f) m->radius = 0.02f;
}

// fireworks: a spark flies in a straight line; past kFireworkMaxDist from its burst's centre it
// respawns on the burst's rim in its own direction (its velocity never changes).
CIRCLES_HD void step_firework_spark(Motion* m, float cx, float cy, float burst_radius) {
  m->x += m->vx * kFrameDt;
  m->y += m->vy * kFrameDt;
  const float dx = m->x - cx;
  const float dy = m->y - cy;
  if (dx * dx + dy * dy > kFireworkMaxDist * kFireworkMaxDist) {
    const float k = burst_radius / kFireworkSpeed;  // unit direction times the rim radius
    m->x = cx + m->vx * k;
    m->y = cy + m->vy * k;
  }
}

// snow: gravity, drag and per-frame noise; a flake leaving left, right or bottom respawns above
// the top at a noise-chosen x with a noise-chosen sideways velocity.
CIRCLES_HD void step_snowflake(Motion* m, std::uint64_t seed, std::uint32_t index,
                               std::int64_t frame) {
  const float kGravity = -1.8f;
  const float kDrag = 2.f;
  float n0, n1;
  frame_noise(seed, index, frame, &n0, &n1);
  const float fx = 7.5f * n0 - kDrag * m->vx;
  const float fy = kGravity + 5.f * n1 - kDrag * m->vy;
  m->x += m->vx * kFrameDt;
  m->y += m->vy * kFrameDt;
  m->vx += fx * kFrameDt;
  m->vy += fy * kFrameDt;
  if (m->y + m->radius < 0.f || m->x + m->radius < 0.f || m->x - m->radius > 1.f) {
    m->x = .5f + .5f * n1;
    m->y = 1.f + m->radius + .35f * (.5f + .5f * n0);
    m->vx = 0.5f * n0;
    m->vy = 0.f;
  }
}

// Moves circle `index` from `frame` to frame + 1. `burst(k)` returns circle k's Motion (only
// called for fireworks, whose bursts never move, so reading them while sparks move is safe).
template <class BurstFn>
CIRCLES_HD void step_circle(Animation kind, std::uint64_t seed, std::int64_t frame,
                            std::uint32_t index, Motion* m, BurstFn burst) {
  switch (kind) {
    case Animation::BouncingBalls: step_bouncing_ball(m); break;
    case Animation::Hypnosis: step_hypnosis_ring(m); break;
    case Animation::Fireworks:
      if (index >= static_cast<std::uint32_t>(kFireworkBursts)) {
        const std::uint32_t k = (index - kFireworkBursts) / kFireworkSparks;
        if (k < static_cast<std::uint32_t>(kFireworkBursts)) {
          const Motion c = burst(k);
          step_firework_spark(m, c.x, c.y, c.radius);
        }
      }
      break;
    case Animation::Snow: step_snowflake(m, seed, index, frame); break;
    case Animation::None: break;
  }
}

}  // namespace circles
