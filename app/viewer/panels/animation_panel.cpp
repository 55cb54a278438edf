// The Animation panel: play, step, speed, the frame.
#include "app/viewer/panels/panels.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "app/viewer/panels/widgets.h"

namespace circles {

void animation_panel(AnimationUi& a, std::vector<Action>& actions) {
  if (ImGui::Button(with_key(a.playing ? "Pause" : "Play", Action::TogglePlay).c_str()))
    actions.push_back(Action::TogglePlay);
  ImGui::SameLine();
  if (ImGui::Button(with_key("Step", Action::Step).c_str())) actions.push_back(Action::Step);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1);
  ImGui::SliderInt("##speed", &a.speed, 1, 16, "x%d");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("frames advanced per displayed frame while playing");
  ImGui::Text("frame %" PRId64 " (%" PRId64 " shown)", a.frame, a.displayed_frames);
  ImGui::SameLine();
  ImGui::Checkbox("re-render paused", &a.rerender_when_paused);
}

}  // namespace circles
