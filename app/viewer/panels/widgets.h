// What the panels share: status colours and buttons labelled with their shortcut key.
#pragma once
#include <imgui.h>

#include <string>

#include "app/viewer/viewer_state.h"

namespace circles {

inline const ImVec4 kWarn(1.f, 0.78f, 0.25f, 1.f);
inline const ImVec4 kError(1.f, 0.42f, 0.38f, 1.f);
inline const ImVec4 kGood(0.45f, 0.9f, 0.45f, 1.f);

// "Label (K)": the button's shortcut from the table (shortcuts()), so the two never disagree.
std::string with_key(const char* label, Action a);

// A size given in pixels at the default font (13 px), at the UI's font size: layouts follow
// --ui-scale and --font-size.
float ui_px(float px);

// Text cut at the right edge: how far (pixels) the items drawn in the current window so far reach
// past its content region, table cells past their column included (tables end through
// end_table()). The column measures it around each panel.
float items_overflow();
// ImGui::BeginTable with text unwrapped in its cells (a cell that should wrap pushes its own wrap
// position): fixed-width columns size to their content.
bool begin_table(const char* id, int columns, ImGuiTableFlags flags, const ImVec2& size = ImVec2(0, 0));
void end_table();  // ImGui::EndTable(), noting how far a cell's text reached past its column
void reset_table_overflow();

}  // namespace circles
