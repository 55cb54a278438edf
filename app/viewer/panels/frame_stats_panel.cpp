// The "Lab on the frame" panel: a reduction variant from the kernel lab summed over the frame on
// screen every frame (mean colour, coverage, its GPU time), and a check of its figures against
// the CPU's sums of the same frame.
#include <imgui.h>

#include <algorithm>

#include "app/viewer/panels/panels.h"
#include "app/viewer/panels/widgets.h"

namespace circles {

namespace {
void verdict(const std::string& text, bool ok) {
  if (text.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, ok ? ImVec4(.5f, .9f, .5f, 1) : ImVec4(1, .4f, .4f, 1));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}
}  // namespace

void frame_stats_panel(FrameStatsUi& f) {
  if (!f.unavailable.empty()) {
    panel_unavailable(f.unavailable);
    return;
  }
  if (f.variants.empty()) return;
  if (string_combo("reduction", f.variants, &f.selected, -ui_px(90))) {
    f.last.reset();
    f.check.clear();
  }
  ImGui::Checkbox("every frame", &f.every_frame);
  ImGui::SameLine();
  if (ImGui::Button("Check vs CPU")) f.check_requested = true;
  if (f.last) {
    const lab::FrameStats& s = *f.last;
    ImGui::ColorButton("##mean", ImVec4(std::clamp(float(s.mean[0]), 0.f, 1.f), std::clamp(float(s.mean[1]), 0.f, 1.f),
                                        std::clamp(float(s.mean[2]), 0.f, 1.f), 1.f),
                       ImGuiColorEditFlags_NoTooltip, ImVec2(ui_px(12), ui_px(12)));
    ImGui::SameLine();
    ImGui::Text("mean %.4f %.4f %.4f  alpha %.3f", s.mean[0], s.mean[1], s.mean[2], s.mean[3]);
    ImGui::Text("coverage %.1f%% (%.0f of %.0f px)  %.3f ms", s.pixels > 0 ? 100.0 * s.touched / s.pixels : 0.0,
                s.touched, s.pixels, s.ms);
  } else if (f.every_frame) {
    ImGui::TextDisabled("(waiting for the first result)");
  }
  verdict(f.check, f.check_ok);

  // The transpose view.
  ImGui::Separator();
  ImGui::TextDisabled("transpose view");
  if (!f.transpose_unavailable.empty()) {
    panel_unavailable(f.transpose_unavailable);
    return;
  }
  if (f.transposes.empty()) return;
  if (string_combo("transpose", f.transposes, &f.transpose_selected, -ui_px(90))) f.transpose_check.clear();
  ImGui::Checkbox("show mirrored", &f.transpose_view);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the frame's colour planes transposed by this variant every frame and shown in place of\n"
                      "the frame: the picture mirrored along its diagonal (bottom-left to top-right)");
  ImGui::SameLine();
  if (ImGui::Button("Check##t")) f.transpose_check_requested = true;
  if (f.transpose_view && f.transpose_ms > 0) ImGui::Text("4 planes transposed in %.3f ms", static_cast<double>(f.transpose_ms));
  verdict(f.transpose_check, f.transpose_check_ok);
}

}  // namespace circles
