// The Kernels panel's runner (see live_lab.h). Two owners take turns with the LabBench: the worker
// thread while it builds the input and checks variants (it may wait on the bench's stream there),
// and the render thread, which only enqueues timed runs and polls their events. The render thread
// starts the worker only when no timed run is in flight, and enqueues runs only when the worker is
// done, so the two never touch the bench at once.
#include "app/viewer/tools/live_lab.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <future>
#include <stdexcept>
#include <utility>

#include "app/common/lab_registry.h"
#include "kernels/lab/reference.h"
#if CIRCLES_HAVE_CUDA
#include "kernels/lab/lab_run.h"
#endif

namespace circles {

using lab::Elem;
using lab::Family;
using lab::Shape;
using lab::Task;
using lab::Variant;

lab::Shape kernels_preset_shape(int preset, Task task) {
  if (task == Task::bank_read) return Shape{std::size_t{1} << 20, 0, 0};
  if (task == Task::transpose) {
    const int side = preset == 1 ? 1024 : 8192;
    return Shape{static_cast<std::size_t>(side) * side, side, side};
  }
  return Shape{std::size_t{1} << (preset == 1 ? 20 : 26), 0, 0};
}

namespace {

const char* kTypeNames[] = {"i32", "f32"};

Elem elem_of(const std::string& name) { return name == "f32" ? Elem::f32 : Elem::i32; }

bool takes(const Variant& v, Elem e) { return std::find(v.types.begin(), v.types.end(), e) != v.types.end(); }

// The family's tasks in registry order.
std::vector<Task> family_tasks(Family f) {
  std::vector<Task> out;
  for (const Variant& v : lab_registry())
    if (v.family == f && std::find(out.begin(), out.end(), v.task) == out.end()) out.push_back(v.task);
  return out;
}

Family family_at(const KernelsUi& ui) {
  Family f = Family::reduce;
  if (ui.family >= 0 && ui.family < static_cast<int>(ui.families.size()))
    parse_lab_family(ui.families[static_cast<std::size_t>(ui.family)], &f);
  return f;
}

Task task_at(const KernelsUi& ui) {
  const std::vector<Task> tasks = family_tasks(family_at(ui));
  return tasks.at(static_cast<std::size_t>(std::clamp(ui.task, 0, static_cast<int>(tasks.size()) - 1)));
}

// Fills families, tasks, types and rows for the chosen family and task; every variant that can
// run live is ticked, at its default knob value.
void build_rows(KernelsUi& ui) {
  if (ui.families.empty())
    for (Family f : lab_families()) ui.families.push_back(lab::family_name(f));
  ui.family = std::clamp(ui.family, 0, static_cast<int>(ui.families.size()) - 1);
  const std::vector<Task> tasks = family_tasks(family_at(ui));
  ui.tasks.clear();
  for (Task t : tasks) ui.tasks.push_back(lab::task_name(t));
  ui.task = std::clamp(ui.task, 0, static_cast<int>(tasks.size()) - 1);
  const Task task = tasks[static_cast<std::size_t>(ui.task)];
  const std::string old_type = ui.type >= 0 && ui.type < static_cast<int>(ui.types.size())
                                   ? ui.types[static_cast<std::size_t>(ui.type)]
                                   : "";
  ui.types.clear();
  for (const char* t : kTypeNames)
    for (const Variant& v : lab_registry())
      if (v.task == task && takes(v, elem_of(t))) {
        ui.types.push_back(t);
        break;
      }
  ui.type = 0;
  for (std::size_t i = 0; i < ui.types.size(); ++i)
    if (ui.types[i] == old_type) ui.type = static_cast<int>(i);
  ui.rows.clear();
  for (const Variant& v : lab_registry()) {
    if (v.task != task) continue;
    KernelRow r;
    r.name = v.name;
    r.description = v.description;
    r.param_name = v.param_name;
    r.params = v.params;
    r.reference = v.reference;
    ui.rows.push_back(std::move(r));
  }
}

// Greys out the rows that cannot run live with the chosen type, saying why; ticks the rest on a
// fresh table.
void mark_unavailable(KernelsUi& ui, bool fresh) {
  const Elem type = elem_of(ui.types.empty() ? "i32" : ui.types[static_cast<std::size_t>(ui.type)]);
  for (KernelRow& r : ui.rows) {
    const Variant& v = *find_lab_variant(r.name);
    r.unavailable = v.host ? "runs on the CPU and would stall the frame: `circles kernels` times it"
                    : !takes(v, type) ? std::string("takes ") + lab::elem_name(v.types.front()) + " only"
                                      : "";
    if (fresh) r.ticked = r.unavailable.empty();
    if (!r.unavailable.empty()) r.ticked = false;
  }
}

std::string mib(double bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, bytes >= 1 << 20 ? "%.0f MiB" : "%.0f KiB", bytes / (bytes >= 1 << 20 ? 1 << 20 : 1 << 10));
  return buf;
}

}  // namespace

std::vector<KernelBar> kernel_bars(const std::vector<KernelRow>& rows, float copy_gbps) {
  std::vector<KernelBar> bars;
  float top = copy_gbps;
  for (const KernelRow& r : rows) {
    if (!r.ticked || r.ms.count() == 0) continue;
    KernelBar b;
    b.name = r.name;
    b.gbps = r.gbps;
    b.ok = r.check == "ok";
    b.reference = r.reference;
    top = std::max(top, b.gbps);
    bars.push_back(std::move(b));
  }
  for (KernelBar& b : bars) b.fraction = top > 0 ? 0.95f * b.gbps / top : 0.f;
  return bars;
}

float kernel_bar_fraction(float gbps, const std::vector<KernelBar>& bars) {
  // Recover the scale from a bar with a non-zero width; with none, the value alone sets it.
  for (const KernelBar& b : bars)
    if (b.gbps > 0 && b.fraction > 0) return b.fraction / b.gbps * gbps;
  return gbps > 0 ? 0.95f : 0.f;
}

void kernels_ui_from_spec(const std::string& spec, const std::string& size, KernelsUi* ui) {
  const std::size_t colon = spec.find(':');
  const std::string family = spec.substr(0, colon);
  Family f;
  if (!parse_lab_family(family, &f)) {
    std::string names;
    for (Family g : lab_families()) names += (names.empty() ? "" : ", ") + std::string(lab::family_name(g));
    throw std::invalid_argument("--kernels '" + spec + "': unknown family '" + family + "' (families: " + names + ")");
  }
  std::vector<std::string> wanted;
  if (colon != std::string::npos) {
    std::string rest = spec.substr(colon + 1);
    for (std::size_t p = 0; p <= rest.size();) {
      const std::size_t q = std::min(rest.find(',', p), rest.size());
      if (q > p) wanted.push_back(rest.substr(p, q - p));
      p = q + 1;
    }
    if (wanted.empty()) throw std::invalid_argument("--kernels '" + spec + "': no variant after ':'");
  }
  if (size != "hbm" && size != "l2")
    throw std::invalid_argument("--kernels-size '" + size + "': expected hbm (256 MiB inputs) or l2 (4 MiB)");
  KernelsUi k;
  build_rows(k);
  k.family = static_cast<int>(std::find(k.families.begin(), k.families.end(), family) - k.families.begin());
  k.task = 0;
  if (!wanted.empty()) {
    // The task of the first named variant; every named variant must compute it.
    const Variant* first = find_lab_variant(wanted.front());
    if (!first || first->family != f)
      throw std::invalid_argument("--kernels '" + spec + "': '" + wanted.front() + "' is not a " + family +
                                  " variant (see circles kernels --list)");
    const std::vector<Task> tasks = family_tasks(f);
    k.task = static_cast<int>(std::find(tasks.begin(), tasks.end(), first->task) - tasks.begin());
  }
  build_rows(k);
  k.size = size == "l2" ? 1 : 0;
  mark_unavailable(k, true);
  if (!wanted.empty()) {
    for (KernelRow& r : k.rows) r.ticked = false;
    for (const std::string& w : wanted) {
      auto it = std::find_if(k.rows.begin(), k.rows.end(), [&](const KernelRow& r) { return r.name == w; });
      if (it == k.rows.end())
        throw std::invalid_argument("--kernels '" + spec + "': '" + w + "' does not compute " +
                                    k.tasks[static_cast<std::size_t>(k.task)] + " like the first one named");
      if (!it->unavailable.empty())
        throw std::invalid_argument("--kernels '" + spec + "': '" + w + "' cannot run live: " + it->unavailable);
      it->ticked = true;
    }
  }
  k.every_frame = true;
  k.reveal = 2;
  k.changed = true;
  *ui = std::move(k);
}

std::string LiveLab::ncu_command(const KernelsUi& ui, int row) {
  if (row < 0 || row >= static_cast<int>(ui.rows.size()) || ui.families.empty()) return "";
  const KernelRow& r = ui.rows[static_cast<std::size_t>(row)];
  std::string metrics;
  for (const CounterSpec& m : counter_metrics()) metrics += (metrics.empty() ? "" : ",") + m.metric;
  const Shape shape = kernels_preset_shape(ui.size, task_at(ui));
  std::string cmd = "ncu --metrics " + metrics + " circles kernels " + ui.families[static_cast<std::size_t>(ui.family)] +
                    " --variant " + r.name;
  if (!r.params.empty())
    cmd += " --param " + std::to_string(r.param());
  cmd += " --size " + shape.text();
  if (!ui.types.empty()) cmd += " --type " + ui.types[static_cast<std::size_t>(ui.type)];
  return cmd + " --repeat 1 --warmup 0";
}

#if CIRCLES_HAVE_CUDA

namespace {

constexpr std::uint64_t kLiveSeed = 1;

struct Config {
  Task task = Task::reduce_sum;
  Elem type = Elem::i32;
  Shape shape;
  bool operator==(const Config& o) const {
    return task == o.task && type == o.type && shape.n == o.shape.n && shape.width == o.shape.width &&
           shape.height == o.shape.height;
  }
};

struct CheckJob {
  int row;
  const Variant* variant;
  int param;
};

struct CheckDone {
  int row;
  int param;
  lab::Measurement m;
};

// What the worker hands back: the bench (new or the one it was given), the checks, the copy line.
struct WorkResult {
  std::unique_ptr<lab::LabBench> bench;
  std::vector<CheckDone> checks;
  std::optional<lab::Measurement> copy;
  std::string error;
};

WorkResult work(std::unique_ptr<lab::LabBench> bench, Config cfg, std::vector<CheckJob> jobs) {
  WorkResult r;
  try {
    if (!bench) {
      bench = std::make_unique<lab::LabBench>(cfg.task, cfg.type, cfg.shape, kLiveSeed);
      if (lab::copy_bytes(bench->problem()) > 0) r.copy = bench->device_copy(lab::Timing{10, 2});
    }
  } catch (const std::exception& e) {
    r.error = e.what();
    return r;
  }
  for (const CheckJob& j : jobs) {
    CheckDone d{j.row, j.param, {}};
    try {
      d.m = bench->run(*j.variant, j.param, nullptr);
    } catch (const std::exception& e) {  // e.g. a size the variant does not take: not timed
      d.m.check = std::string("cannot run: ") + e.what();
    }
    r.checks.push_back(std::move(d));
  }
  r.bench = std::move(bench);
  return r;
}

struct RowState {
  int checked_param = INT_MIN;  // the knob value its check ran with (INT_MIN: none yet)
  double bytes = 0;             // bytes per run (from the check: compact's depend on its count)
  bool runnable = false;        // its check ran (ok or WRONG: both are timed)
  bool in_flight = false;
};

}  // namespace

struct LiveLab::Impl {
  int family = -1, task = -1;
  Config cfg;
  bool have_cfg = false;
  bool cfg_failed = false;  // the last build failed; wait for another choice
  std::unique_ptr<lab::LabBench> bench;
  std::future<WorkResult> worker;
  bool worker_builds = false;
  std::vector<RowState> rows;
  double round_ms = 0;
  int round_left = 0;
  std::size_t next_row = 0;  // every frame: the row whose turn is next

  bool worker_busy() const { return worker.valid(); }
  bool in_flight() const {
    return std::any_of(rows.begin(), rows.end(), [](const RowState& r) { return r.in_flight; });
  }

  void collect_worker(KernelsUi& ui, bool wait) {
    if (!worker.valid()) return;
    if (!wait && worker.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
    WorkResult r = worker.get();
    bench = std::move(r.bench);
    if (!r.error.empty()) {
      ui.error = r.error;
      if (worker_builds) {
        bench.reset();
        cfg_failed = true;
      }
    }
    if (r.copy) {
      ui.copy_ms = static_cast<float>(r.copy->median_ms);
      ui.copy_gbps = static_cast<float>(r.copy->gbps);
    }
    for (const CheckDone& c : r.checks) {
      if (c.row >= static_cast<int>(ui.rows.size())) continue;
      ui.rows[static_cast<std::size_t>(c.row)].check = c.m.check;
      rows[static_cast<std::size_t>(c.row)].checked_param = c.param;
      rows[static_cast<std::size_t>(c.row)].bytes = c.m.bytes;
      rows[static_cast<std::size_t>(c.row)].runnable = c.m.check.rfind("cannot run", 0) != 0;
    }
  }

  void collect_runs(KernelsUi& ui, bool wait, void (*stage)(void*, const std::string&, double), void* ctx) {
    for (std::size_t i = 0; i < rows.size() && i < ui.rows.size(); ++i) {
      if (!rows[i].in_flight) continue;
      const std::optional<double> ms = bench->poll_timed(static_cast<int>(i), wait);
      if (!ms) continue;
      rows[i].in_flight = false;
      KernelRow& r = ui.rows[i];
      r.ms.push(static_cast<float>(*ms));
      r.median_ms = r.ms.recent_median(30);
      r.gbps = r.median_ms > 0 ? static_cast<float>(rows[i].bytes / (r.median_ms * 1e-3) / 1e9) : 0.f;
      round_ms += *ms;
      if (--round_left == 0 && stage) stage(ctx, "lab: kernels", round_ms);
    }
  }
};

LiveLab::LiveLab() : impl_(new Impl) {}

LiveLab::~LiveLab() {
  if (impl_->worker.valid()) impl_->worker.wait();
  if (impl_->bench)
    for (std::size_t i = 0; i < impl_->rows.size(); ++i)
      if (impl_->rows[i].in_flight) impl_->bench->poll_timed(static_cast<int>(i), true);
}

void LiveLab::update(KernelsUi& ui, void* stream, void (*stage)(void*, const std::string&, double), void* ctx) {
  Impl& s = *impl_;
  ui.unavailable = lab_unavailable_reason();
  if (ui.rows.empty() || ui.family != s.family || ui.task != s.task) {
    const bool keep = s.family < 0 && !ui.rows.empty();  // --kernels: rows and ticks already chosen
    if (!keep) build_rows(ui);
    mark_unavailable(ui, !keep);
    s.family = ui.family;
    s.task = ui.task;
    ui.changed = true;
  }
  if (!ui.unavailable.empty()) return;
  if (ui.changed) {
    ui.changed = false;
    mark_unavailable(ui, false);
    Config c;
    c.task = task_at(ui);
    c.type = elem_of(ui.types.empty() ? "i32" : ui.types[static_cast<std::size_t>(ui.type)]);
    c.shape = kernels_preset_shape(ui.size, c.task);
    const double in_bytes = static_cast<double>(c.shape.n) * lab::elem_size(c.type);
    ui.shape = c.shape.text() + " " + lab::elem_name(c.type) +
               (c.task == Task::bank_read ? " threads (shared memory)" : " (" + mib(in_bytes) + ")");
    if (!s.have_cfg || !(c == s.cfg)) {
      s.cfg = c;
      s.have_cfg = true;
      s.cfg_failed = false;
      ui.error.clear();
      ui.copy_gbps = ui.copy_ms = 0;
    }
    // Results belong to a task, type and size: start the table afresh.
    s.rows.assign(ui.rows.size(), RowState{});
    for (KernelRow& r : ui.rows) {
      r.check.clear();
      r.ms.clear();
      r.median_ms = r.gbps = 0;
    }
    s.round_left = 0;
  }
  if (s.rows.size() != ui.rows.size()) s.rows.resize(ui.rows.size());

  try {
    s.collect_worker(ui, false);
    if (s.bench && !s.worker_busy()) s.collect_runs(ui, false, stage, ctx);
    if (s.worker_busy() || s.in_flight()) {
      ui.status = s.worker_busy() ? (s.worker_builds ? "building the input, checking" : "checking") : "timing";
      return;
    }
    ui.status.clear();
    // Nothing is built or checked until a run is asked for: an unopened panel costs nothing.
    if (s.cfg_failed || !(ui.every_frame || ui.run_once)) return;
    // A new input (the old one is freed first: both may not fit), or checks still to do.
    const bool build = !s.bench || !(s.bench->problem().task == s.cfg.task && s.bench->problem().type == s.cfg.type &&
                                     s.bench->problem().shape.n == s.cfg.shape.n &&
                                     s.bench->problem().shape.width == s.cfg.shape.width);
    std::vector<CheckJob> jobs;
    for (std::size_t i = 0; i < ui.rows.size(); ++i) {
      const KernelRow& r = ui.rows[i];
      if (!r.ticked || !r.unavailable.empty()) continue;
      if (build || s.rows[i].checked_param != r.param()) {
        jobs.push_back({static_cast<int>(i), find_lab_variant(r.name), r.param()});
        ui.rows[i].check = "checking";
        if (s.rows[i].checked_param != r.param()) {
          ui.rows[i].ms.clear();
          ui.rows[i].median_ms = ui.rows[i].gbps = 0;
        }
      }
    }
    if (build || !jobs.empty()) {
      if (build) s.bench.reset();
      s.worker_builds = build;
      ui.status = build ? "building the input, checking" : "checking";
      s.worker = std::async(std::launch::async, work, std::move(s.bench), s.cfg, std::move(jobs));
      return;
    }
    // Run once: every ticked variant now. Every frame: the next one in turn, so the frame carries
    // one variant's GPU time and a few launches, not the whole ladder's (each variant still gets a
    // run every few frames).
    const bool all = ui.run_once;
    ui.run_once = false;
    s.round_ms = 0;
    s.round_left = 0;
    const std::size_t n = ui.rows.size();
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = all ? k : (s.next_row + k) % n;
      const KernelRow& r = ui.rows[i];
      if (!r.ticked || !r.unavailable.empty() || s.rows[i].checked_param != r.param() || !s.rows[i].runnable)
        continue;
      s.bench->enqueue_timed(*find_lab_variant(r.name), r.param(), static_cast<int>(i), stream);
      s.rows[i].in_flight = true;
      ++s.round_left;
      if (!all) {
        s.next_row = i + 1;
        break;
      }
    }
    if (s.round_left > 0) ui.status = "timing";
  } catch (const std::exception& e) {
    ui.error = std::string("kernels: ") + e.what();
    ui.every_frame = false;
    for (RowState& r : s.rows) r.in_flight = false;
  }
}

CounterReport LiveLab::counters(KernelsUi& ui, int row) {
  Impl& s = *impl_;
  CounterReport report;
  try {
    s.collect_worker(ui, true);
    if (s.bench) s.collect_runs(ui, true, nullptr, nullptr);
    if (row < 0 || row >= static_cast<int>(ui.rows.size()) || !s.have_cfg) {
      report.error = "no such variant in the Kernels panel";
      return report;
    }
    KernelRow& r = ui.rows[static_cast<std::size_t>(row)];
    if (!r.unavailable.empty()) {
      report.error = r.name + " cannot run live: " + r.unavailable;
      return report;
    }
    const Variant& v = *find_lab_variant(r.name);
    const int param = r.param();
    if (!s.bench) s.bench = std::make_unique<lab::LabBench>(s.cfg.task, s.cfg.type, s.cfg.shape, kLiveSeed);
    if (s.rows.size() != ui.rows.size()) s.rows.resize(ui.rows.size());
    RowState& st = s.rows[static_cast<std::size_t>(row)];
    if (st.checked_param != param) {  // checked first: that also grows its scratch
      const lab::Measurement m = s.bench->run(v, param, nullptr);
      r.check = m.check;
      st.checked_param = param;
      st.bytes = m.bytes;
      st.runnable = true;
    }
    lab::LabBench& bench = *s.bench;
    report = ::circles::measure_counters([&] { bench.launch_once(v, param); });
  } catch (const std::exception& e) {
    report.error = e.what();
  }
  return report;
}

void LiveLab::finish(KernelsUi& ui, void (*stage)(void*, const std::string&, double), void* ctx) {
  Impl& s = *impl_;
  // The worker, then one round if one is due and none has run, then that round.
  for (int pass = 0; pass < 3; ++pass) {
    s.collect_worker(ui, true);
    if (s.bench) {
      try {
        s.collect_runs(ui, true, stage, ctx);
      } catch (const std::exception& e) {
        ui.error = std::string("kernels: ") + e.what();
      }
    }
    const bool untimed = std::any_of(ui.rows.begin(), ui.rows.end(),
                                     [](const KernelRow& r) { return r.ticked && r.ms.count() == 0; });
    if (!untimed || !(ui.every_frame || ui.run_once) || !ui.error.empty()) break;
    ui.run_once = true;  // the rows still without a time, all at once
    update(ui, nullptr, stage, ctx);
  }
  s.collect_worker(ui, true);
  if (s.bench) s.collect_runs(ui, true, stage, ctx);
  ui.status.clear();
}

#else  // no CUDA: the panel says why and nothing runs

struct LiveLab::Impl {};
LiveLab::LiveLab() : impl_(new Impl) {}
LiveLab::~LiveLab() = default;
void LiveLab::update(KernelsUi& ui, void*, void (*)(void*, const std::string&, double), void*) {
  if (ui.rows.empty()) {
    build_rows(ui);
    mark_unavailable(ui, true);
  }
  ui.unavailable = lab_unavailable_reason();
}
void LiveLab::finish(KernelsUi&, void (*)(void*, const std::string&, double), void*) {}
CounterReport LiveLab::counters(KernelsUi&, int) {
  CounterReport r;
  r.error = lab_unavailable_reason();
  return r;
}

#endif

}  // namespace circles
