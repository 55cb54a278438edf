// Presents finished frames: owns the GL_RGBA8 frame texture (the one CUDA writes through interop,
// or glTexSubImage2D fills from the host or from the pixel buffer), the pixel buffer CUDA writes
// on the `--present pbo` path, the diff-overlay texture, and the present program
// (shaders/present.*.glsl: a fullscreen triangle over the scene area). GL only draws here; the
// image itself is always made by the renderer.
#pragma once
#include <cstdint>

#include "app/gl/gl_util.h"
#include "app/gl/placement.h"

namespace circles {

// A GL buffer object, owned like app/gl/gl_util.h's GL objects.
struct GlBufferDeleter { void operator()(GLuint n) const { glDeleteBuffers(1, &n); } };
using GlBuffer = GlName<GlBufferDeleter>;

enum class OverlayMode { None = 0, Replace = 1, Blend = 2 };

class Presenter {
 public:
  Presenter();  // compiles the program; needs a current GL 3.3 context
  // Makes the frame texture w x h; true when it was (re)created (interop must re-register it).
  bool ensure_size(int w, int h);
  GLuint frame_texture() const { return frame_.get(); }
  int width() const { return width_; }
  int height() const { return height_; }

  // The host copy's streaming upload: begin_frame_upload() maps a pixel buffer of the frame's size
  // (a fresh one each frame: the old storage is orphaned, so nothing waits for the last upload) and
  // returns where to write width * height * 4 bytes, bottom row first; end_frame_upload() unmaps it
  // and copies it into the frame texture on the GPU. The bytes go straight into GL's memory: no
  // copy inside glTexSubImage2D.
  std::uint8_t* begin_frame_upload();
  void end_frame_upload();
  // The pixel buffer (GL_PIXEL_UNPACK_BUFFER, width * height * 4 bytes, GL_STREAM_DRAW) of the
  // current size, created on first use; a new name per size, like the texture (interop must
  // re-register it after ensure_size returns true).
  GLuint pixel_buffer();
  // Fills the frame texture from the pixel buffer (glTexSubImage2D from the bound buffer, offset
  // 0: RGBA8, bottom row first). GPU time in upload_timer().
  void upload_from_pixel_buffer();
  GlTimer& upload_timer() { return upload_timer_; }
  // The diff overlay (same size as the frame, else it is dropped).
  void upload_overlay(const std::uint8_t* rgba, int w, int h);
  void drop_overlay() { overlay_w_ = overlay_h_ = 0; }
  bool has_overlay() const { return overlay_w_ == width_ && overlay_h_ == height_ && width_ > 0; }

  // Draws into `area`: the frame at `where`, the letterbox colour around it. GPU time in timer().
  void draw(const PixelRect& area, const Placement& where, OverlayMode mode, float overlay_alpha);
  GlTimer& timer() { return timer_; }

  static constexpr float kLetterbox[3] = {0.09f, 0.09f, 0.10f};

 private:
  static void define_texture(GLuint tex, int w, int h);
  GlProgram program_;
  GlVertexArray vao_;  // empty: the triangle comes from gl_VertexID, but core GL needs a VAO
  GlTexture frame_, overlay_;
  GlBuffer pixel_buffer_;
  GlBuffer upload_buffer_;  // begin/end_frame_upload's
  std::size_t upload_bytes_ = 0;
  int width_ = 0, height_ = 0;
  int overlay_w_ = 0, overlay_h_ = 0;
  GLint u_frame_ = -1, u_overlay_ = -1, u_origin_ = -1, u_scale_ = -1, u_size_ = -1, u_mode_ = -1,
        u_alpha_ = -1, u_letterbox_ = -1;
  GlTimer timer_;
  GlTimer upload_timer_;
};

}  // namespace circles
