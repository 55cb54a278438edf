// Frames out as one video file through the ffmpeg program (Debian's ffmpeg): H.264 in yuv420p
// (.mp4) or VP9 (.webm), 8-bit RGBA frames piped to it as they are drawn, the file written
// through a temporary and renamed into place (render/output_file.h), so an interrupted or failed
// encode leaves no partial video.
#pragma once
#include <memory>
#include <string>

#include "render/image.h"

namespace circles {

// Whether `path` names a video container circles writes (.mp4, .webm).
bool is_video_path(const std::string& path);

// Throws std::invalid_argument (exit 2) for what the encoder cannot take before any work: an odd
// width or height (yuv420p halves the chroma: circles does not pad or resize silently), a frame
// rate outside 1..240.
void check_video(const std::string& path, int width, int height, double fps);

class VideoWriter {
 public:
  // Starts ffmpeg; std::runtime_error where it cannot (no ffmpeg program on PATH).
  VideoWriter(const std::string& path, int width, int height, double fps);
  ~VideoWriter();  // not finished: ffmpeg is stopped and the temporary removed
  VideoWriter(const VideoWriter&) = delete;
  VideoWriter& operator=(const VideoWriter&) = delete;

  void add(const Image& frame);  // std::runtime_error if the encoder has failed
  void finish();                 // waits for ffmpeg, then renames the file into place

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace circles
