// Factories for the CUDA renderers (plain C++ header, so the registry needs no CUDA headers).
#pragma once
#include <memory>
#include <string>

#include "render/renderer.h"

namespace circles {

struct RendererSettings;
std::unique_ptr<Renderer> make_cuda_naive_renderer(const RendererSettings& settings);
std::unique_ptr<Renderer> make_cuda_tile_scan_renderer(const RendererSettings& settings);
// settings.scan names its device-wide scan (kernels/primitives/device_scan.h); empty: the look-back.
std::unique_ptr<Renderer> make_cuda_tile_binned_renderer(const RendererSettings& settings);

}  // namespace circles
