// The viewer's ImGui panels. Each is one function drawing from / writing to a plain state struct
// (app/viewer/viewer_state.h); what they ask for goes into `actions` or a request field, and the viewer
// carries it out. They read only static tables (scene_registry, renderer_registry) besides.
#pragma once
#include <string>
#include <vector>

#include "app/viewer/viewer_state.h"

namespace circles {

// The fixed column on the left (kPanelWidth wide, full height, never moves): notices, then the
// Scene, Renderer, Animation, Timings, Export, Check and View panels. Returns how many pixels of
// the column do not fit its height (0: nothing needs scrolling).
float draw_panel_column(UiState& ui, float display_w, float display_h);

void scene_panel(SceneUi& scene, std::vector<Action>& actions);
void inspector_panel(const InspectorUi& inspector);  // app/viewer/panels/inspector_panel.cpp
void frame_stats_panel(FrameStatsUi& frame_stats);   // app/viewer/panels/frame_stats_panel.cpp
void kernels_panel(KernelsUi& kernels);               // app/viewer/panels/kernels_panel.cpp
void counters_panel(CountersUi& counters);            // app/viewer/panels/counters_panel.cpp
void heat_panel(HeatUi& heat);                        // app/viewer/panels/heat_panel.cpp
void renderer_panel(RendererUi& renderer);
void animation_panel(AnimationUi& animation, std::vector<Action>& actions);
void timings_panel(const TimingsUi& timings);
void export_panel(ExportUi& export_png, std::vector<Action>& actions);
void check_panel(CheckUi& check, std::vector<Action>& actions);
void view_panel(const ViewUi& view, std::vector<Action>& actions);
// A combo over `items` (index clamped first) `width` wide; true when the user picked another one.
bool string_combo(const char* label, const std::vector<std::string>& items, int* index, float width);
// "unavailable: WHY", greyed and wrapped: what a panel shows instead of what it cannot do here.
void panel_unavailable(const std::string& why);
// The Help window (over the scene area, only while open): every shortcut from shortcuts().
void help_window(bool* open, float display_w, float display_h, float scale);  // scale: the column's

}  // namespace circles
