#include "render/png.h"

#include "render/output_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#include <stb/stb_image_write.h>
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_PNG
#include <stb/stb_image.h>

namespace circles {

void write_png(const std::string& path, const Image& img) {
  if (img.width <= 0 || img.height <= 0) throw std::runtime_error("cannot write '" + path + "': empty image");
  const std::vector<std::uint8_t> rgba = to_rgba8(img);
  int len = 0;
  unsigned char* png = stbi_write_png_to_mem(rgba.data(), img.width * 4, img.width, img.height, 4, &len);
  if (!png) throw std::runtime_error("cannot write PNG '" + path + "': out of memory while encoding");
  const std::string bytes(reinterpret_cast<const char*>(png), static_cast<std::size_t>(len));
  STBIW_FREE(png);
  write_file_atomically(path, bytes, "PNG");
}

Image read_png(const std::string& path) {
  int w = 0, h = 0, n = 0;
  unsigned char* data = stbi_load(path.c_str(), &w, &h, &n, 4);
  if (!data) throw std::runtime_error("cannot read PNG '" + path + "': " + stbi_failure_reason());
  Image img(w, h);
  for (int row = 0; row < h; ++row) {
    const int j = h - 1 - row;
    for (int i = 0; i < w; ++i) {
      const unsigned char* p = data + (static_cast<std::size_t>(row) * w + i) * 4;
      img.at(i, j) = Float4{p[0] / 255.f, p[1] / 255.f, p[2] / 255.f, p[3] / 255.f};
    }
  }
  stbi_image_free(data);
  return img;
}

}  // namespace circles
