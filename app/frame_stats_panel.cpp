// The "Lab on the frame" panel: a reduction variant from the kernel lab summed over the frame on
// screen every frame (mean colour, coverage, its GPU time), and a check of its figures against
// the CPU's sums of the same frame.
#include <imgui.h>

#include <algorithm>

#include "app/panels.h"

namespace circles {

void frame_stats_panel(FrameStatsUi& f) {
  if (!f.unavailable.empty()) {
    ImGui::PushTextWrapPos(0.f);
    ImGui::TextDisabled("unavailable: %s", f.unavailable.c_str());
    ImGui::PopTextWrapPos();
    return;
  }
  if (f.variants.empty()) return;
  f.selected = std::clamp(f.selected, 0, static_cast<int>(f.variants.size()) - 1);
  ImGui::SetNextItemWidth(-90);
  if (ImGui::BeginCombo("reduction", f.variants[static_cast<std::size_t>(f.selected)].c_str())) {
    for (int i = 0; i < static_cast<int>(f.variants.size()); ++i)
      if (ImGui::Selectable(f.variants[static_cast<std::size_t>(i)].c_str(), i == f.selected)) {
        f.selected = i;
        f.last.reset();
        f.check.clear();
      }
    ImGui::EndCombo();
  }
  ImGui::Checkbox("every frame", &f.every_frame);
  ImGui::SameLine();
  if (ImGui::Button("Check vs CPU")) f.check_requested = true;
  if (f.last) {
    const lab::FrameStats& s = *f.last;
    ImGui::ColorButton("##mean", ImVec4(std::clamp(float(s.mean[0]), 0.f, 1.f), std::clamp(float(s.mean[1]), 0.f, 1.f),
                                        std::clamp(float(s.mean[2]), 0.f, 1.f), 1.f),
                       ImGuiColorEditFlags_NoTooltip, ImVec2(12, 12));
    ImGui::SameLine();
    ImGui::Text("mean %.4f %.4f %.4f  alpha %.3f", s.mean[0], s.mean[1], s.mean[2], s.mean[3]);
    ImGui::Text("coverage %.1f%% (%.0f of %.0f px)  %.3f ms", s.pixels > 0 ? 100.0 * s.touched / s.pixels : 0.0,
                s.touched, s.pixels, s.ms);
  } else if (f.every_frame) {
    ImGui::TextDisabled("(waiting for the first result)");
  }
  if (!f.check.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, f.check_ok ? ImVec4(.5f, .9f, .5f, 1) : ImVec4(1, .4f, .4f, 1));
    ImGui::TextWrapped("%s", f.check.c_str());
    ImGui::PopStyleColor();
  }
}

}  // namespace circles
