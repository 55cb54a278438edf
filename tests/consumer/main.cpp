// A user's program on the installed circles package: a scene from arrays, drawn into its own
// buffer, checked against cpu-ref, saved and loaded as .npz, and a bad array refused.
#include <circles/circles.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {
int failures = 0;
void expect(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAIL", what.c_str());
  if (!ok) ++failures;
}
}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  // Two circles: an opaque red one at the top left, a half-transparent blue one over the centre.
  const float xy[] = {0.25f, 0.75f, 0.5f, 0.5f};
  const float radius[] = {0.1f, 0.2f};
  const float color[] = {1, 0, 0, 1, 0, 0, 1, 0.5f};
  circles::CircleArrays arrays;
  arrays.xy = circles::ArrayView::contiguous(xy, circles::DType::F32, 2, 2);
  arrays.radius = circles::ArrayView::contiguous(radius, circles::DType::F32, 2);
  arrays.color = circles::ArrayView::contiguous(color, circles::DType::F32, 2, 4);
  circles::Scene settings;
  settings.width = 64;
  settings.height = 64;
  const circles::Scene scene = circles::scene_from_arrays(arrays, settings);
  expect(scene.circles.size() == 2, "scene_from_arrays keeps 2 circles");

  circles::RenderOptions options;
  options.renderer = "cpu-mt";
  std::vector<std::uint8_t> rgba(64 * 64 * 4);
  circles::render_rgba8(scene, options, rgba.data());
  // Row 0 is the top: the red circle's centre (0.25, 0.75) is pixel (16, 16) from the top left.
  const std::uint8_t* red = &rgba[(16 * 64 + 16) * 4];
  expect(red[0] == 255 && red[1] == 0 && red[2] == 0 && red[3] == 255, "red circle at the top left, opaque red");
  // The centre: blue at half alpha over a white background: (0.5, 0.5, 1) -> 128, 128, 255.
  const std::uint8_t* mid = &rgba[(32 * 64 + 32) * 4];
  expect(mid[0] == 128 && mid[1] == 128 && mid[2] == 255, "blue over white at the centre");

  const circles::CheckResult c = circles::check(scene, options);
  expect(c.ok && c.bytes_differ == 0, "cpu-mt keeps exact mode's promise: " + c.summary);

  const std::string path = dir + "/consumer.npz";
  circles::save_scene_file(scene, path);
  const circles::Scene back = circles::load_scene(path, 1);
  const circles::Image a = circles::render(scene, options), b = circles::render(back, options);
  expect(a.pixels.size() == b.pixels.size() &&
             std::equal(a.pixels.begin(), a.pixels.end(), b.pixels.begin(),
                        [](const circles::Float4& p, const circles::Float4& q) {
                          return p.x == q.x && p.y == q.y && p.z == q.z && p.w == q.w;
                        }),
         "the .npz round trip draws the same floats");

  const float bad_radius[] = {0.1f, -1.f};
  arrays.radius = circles::ArrayView::contiguous(bad_radius, circles::DType::F32, 2);
  try {
    circles::scene_from_arrays(arrays, settings);
    expect(false, "a negative radius is refused");
  } catch (const std::invalid_argument& e) {
    expect(std::string(e.what()) == "radius[1]: must be greater than 0, found -1",
           std::string("a negative radius is refused: ") + e.what());
  }
  std::printf("circles %s: %s\n", circles::version(), failures ? "FAILED" : "all passed");
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
