// Times the scene format on 1,000,000 random circles with velocities: parse_scene of text held in
// memory, format_scene, and load_scene_file (read + parse) of the same text saved to a file.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <random>
#include <string>

#include "render/scene.h"
#include "render/scene_io.h"

namespace {

constexpr int kCircles = 1000000;

// The scene and its text, made once for every benchmark.
const circles::Scene& BenchScene() {
  static const circles::Scene scene = [] {
    std::mt19937 rng(2024);
    std::uniform_real_distribution<float> unit(0.f, 1.f);
    std::uniform_real_distribution<float> radius(0.001f, 0.05f);
    std::uniform_real_distribution<float> speed(-0.5f, 0.5f);
    circles::Scene s;
    s.has_velocity = true;
    s.animation = circles::Animation::BouncingBalls;
    s.circles.resize(kCircles);
    for (circles::Circle& c : s.circles.edit()) {
      c.x = unit(rng);
      c.y = unit(rng);
      c.z = unit(rng);
      c.radius = radius(rng);
      c.r = unit(rng);
      c.g = unit(rng);
      c.b = unit(rng);
      c.a = unit(rng);
      c.vx = speed(rng);
      c.vy = speed(rng);
    }
    return s;
  }();
  return scene;
}

const std::string& BenchText() {
  static const std::string text = circles::format_scene(BenchScene());
  return text;
}

void BM_ParseScene(benchmark::State& state) {
  const std::string& text = BenchText();
  for (auto _ : state) {
    circles::Scene s = circles::parse_scene(text, "bench.scene");
    benchmark::DoNotOptimize(s.circles.data());
  }
  state.SetItemsProcessed(state.iterations() * kCircles);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
  state.counters["text_MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_ParseScene)->Unit(benchmark::kMillisecond);

void BM_FormatScene(benchmark::State& state) {
  const circles::Scene& scene = BenchScene();
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string text = circles::format_scene(scene);
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.SetItemsProcessed(state.iterations() * kCircles);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes));
}
BENCHMARK(BM_FormatScene)->Unit(benchmark::kMillisecond);

void BM_LoadSceneFile(benchmark::State& state) {
  const std::string path =
      "/tmp/bench_scene_io." + std::to_string(std::random_device{}()) + ".scene";
  circles::save_scene_file(BenchScene(), path);
  for (auto _ : state) {
    circles::Scene s = circles::load_scene_file(path);
    benchmark::DoNotOptimize(s.circles.data());
  }
  std::remove(path.c_str());
  state.SetItemsProcessed(state.iterations() * kCircles);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(BenchText().size()));
}
BENCHMARK(BM_LoadSceneFile)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
