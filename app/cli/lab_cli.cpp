// `circles kernels`: selects lab variants from the registry, checks and times each beside the
// device copy (kernels/lab/lab_run.h), prints one table per family, task, type and size, and
// writes the measurements as JSON.
#include "app/cli/lab_cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "app/cli/cli.h"
#include "app/common/lab_registry.h"
#include "kernels/lab/reference.h"
#include "render/output_file.h"
#include "render/units.h"
#if CIRCLES_HAVE_CUDA
#include "kernels/cuda/counters.h"
#include "kernels/cuda/device.h"
#include "kernels/lab/lab_run.h"
#endif

namespace circles {

using lab::Elem;
using lab::Family;
using lab::Shape;
using lab::Task;
using lab::Variant;

lab::Shape parse_lab_size(const std::string& text) {
  auto bad = [&]() {
    return std::invalid_argument("bad size '" + text + "': expected N (e.g. 67108864), 2^K (e.g. 2^26) or WxH");
  };
  auto number = [&](const std::string& s) -> std::size_t {
    if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos) throw bad();
    return static_cast<std::size_t>(std::stoull(s));
  };
  Shape shape;
  const std::size_t x = text.find_first_of("xX");
  if (x != std::string::npos) {
    const std::size_t w = number(text.substr(0, x)), h = number(text.substr(x + 1));
    if (w < 1 || h < 1 || w > (1u << 30) || h > (1u << 30)) throw bad();
    shape.width = static_cast<int>(w);
    shape.height = static_cast<int>(h);
    shape.n = w * h;
    if (shape.n > lab::kMaxElements)
      throw std::invalid_argument("size '" + text + "' is too large: at most 2^30 elements");
    return shape;
  }
  if (text.rfind("2^", 0) == 0) {
    const std::size_t k = number(text.substr(2));
    if (k > 30) throw std::invalid_argument("size '" + text + "' is too large: at most 2^30 elements");
    shape.n = std::size_t{1} << k;
    return shape;
  }
  shape.n = number(text);
  if (shape.n < 1) throw std::invalid_argument("size '" + text + "' must be at least 1");
  if (shape.n > lab::kMaxElements)
    throw std::invalid_argument("size '" + text + "' is too large: at most 2^30 (1073741824) elements");
  return shape;
}

CLI::App* add_kernels_command(CLI::App& app, KernelsOptions* o) {
  CLI::App* k = app.add_subcommand(
      "kernels",
      "the kernel lab: reduction, scan, transpose, bank-conflict and convolution ladders, each variant "
      "checked against the CPU and timed beside the device copy (CUDA events, median)");
  k->add_option("FAMILY", o->family,
                "reduce|scan|transpose|banks|conv|all (default: all, or the families of --variant)");
  k->add_option("--variant", o->variants, "variants to run (see --list); default: every one of the families")
      ->delimiter(',');
  k->add_option("--size", o->sizes,
                "problem sizes, N or 2^K (at most 2^30) for the 1D families and WxH for transpose; several "
                "allowed, and when given every selected family needs one of its kind; banks: N threads. "
                "Default: 2^26 elements (256 MiB), transpose 2047x4000 2048x4000 2049x4000 8191x8191 "
                "8192x8192, banks 2^20 threads")
      ->delimiter(',');
  k->add_option("--type", o->type, "i32 or f32 (default: every type the variant supports)")
      ->check(CLI::IsMember({"i32", "f32"}));
  k->add_option("--param", o->params,
                "knob values to run (block size, stride or radius; see --list); default: every listed value")
      ->delimiter(',');
  k->add_option("--repeat", o->repeat, "timed runs per variant (median, min, max)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  k->add_option("--warmup", o->warmup, "untimed runs after the checked one")
      ->capture_default_str()
      ->check(CLI::Range(0, 100000));
  k->add_option("--seed", o->seed, "seed of the random inputs")->capture_default_str()->check(seed_check());
  k->add_option("--json", o->json_path, "also write one record per measurement to this JSON file");
  k->add_flag("--list", o->list, "list the registry (families, variants, knobs, sources) and exit");
  k->add_flag("--counters", o->counters,
              "after each variant is checked and timed, run it once more under CUPTI's range profiler "
              "and print its hardware counters under its row (and into --json): DRAM bytes read and "
              "written, shared-load wavefronts and bank conflicts, achieved occupancy, threads per warp "
              "instruction, warp instructions, issue slots busy, summed over all its kernels, under the "
              "metric names ncu uses. Needs libcupti and permission to profile (root, or the driver "
              "option NVreg_RestrictProfilingToAdminUsers=0); where counters cannot be read, the reason "
              "is printed once and the rest runs");
  k->footer(std::string("Bandwidth: GB/s = 10^9 bytes per second of the bytes the task must move (reduce: read; "
                        "scan, transpose, conv: read + written; banks: shared bytes loaded).\n"
                        "Counters (--counters): MB and GB are 10^6 and 10^9 bytes; k, M, G are 10^3, 10^6, "
                        "10^9.\n") +
            kExitCodes);
  return k;
}

namespace {

std::string join_names(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string join_ints(const std::vector<int>& v) {
  std::vector<std::string> s;
  for (int x : v) s.push_back(std::to_string(x));
  return join_names(s, ",");
}

std::string family_names() {
  std::vector<std::string> names;
  for (Family f : lab_families()) names.push_back(lab::family_name(f));
  return join_names(names);
}

bool supports(const Variant& v, Elem e) { return std::find(v.types.begin(), v.types.end(), e) != v.types.end(); }

std::vector<Shape> default_sizes(Family f) {
  switch (f) {
    case Family::transpose: {
      std::vector<Shape> s;
      for (auto [w, h] : {std::pair{2047, 4000}, {2048, 4000}, {2049, 4000}, {8191, 8191}, {8192, 8192}})
        s.push_back(Shape{static_cast<std::size_t>(w) * h, w, h});
      return s;
    }
    case Family::banks: return {Shape{std::size_t{1} << 20, 0, 0}};
    default: return {Shape{std::size_t{1} << 26, 0, 0}};
  }
}

int list_registry() {
  const std::string why = lab_unavailable_reason();
  std::printf("Kernel lab (circles kernels FAMILY): families %s\n", family_names().c_str());
  if (!why.empty()) std::printf("UNAVAILABLE here: %s\n", why.c_str());
  for (Family f : lab_families()) {
    std::printf("\n%s:\n", lab::family_name(f));
    for (const Variant& v : lab_registry()) {
      if (v.family != f) continue;
      std::string types;
      for (Elem e : v.types) types += (types.empty() ? "" : ",") + std::string(lab::elem_name(e));
      std::string tags = std::string(lab::task_name(v.task)) + ", " + types;
      if (v.reference) tags += ", reference";
      if (v.host) tags += ", CPU";
      if (!v.param_name.empty()) tags += ", --param " + v.param_name + " " + join_ints(v.params);
      std::printf("  %-26s %s\n  %-26s [%s] %s\n", v.name.c_str(), v.description.c_str(), "", tags.c_str(),
                  v.source.c_str());
    }
  }
  return 0;
}

// One table: a task on one type and size, with the variants (and knob values) to run.
struct Job {
  Family family;
  Task task;
  Elem type;
  Shape shape;
  std::vector<std::pair<const Variant*, int>> runs;
};

std::vector<Job> plan(const KernelsOptions& o) {
  std::vector<Family> families;
  if (!o.family.empty() && o.family != "all") {
    Family f;
    if (!parse_lab_family(o.family, &f))
      throw std::invalid_argument("unknown family '" + o.family + "' (families: " + family_names() + ", all)");
    families.push_back(f);
  }
  std::vector<const Variant*> chosen;
  for (const std::string& name : o.variants) {
    const Variant* v = find_lab_variant(name);
    if (!v) {
      std::vector<std::string> names;
      for (const Variant& x : lab_registry())
        if (families.empty() || x.family == families[0]) names.push_back(x.name);
      throw std::invalid_argument("unknown variant '" + name + "'" +
                                  (families.empty() ? "" : " in family " + o.family) + " (variants: " +
                                  join_names(names) + ")");
    }
    if (!families.empty() && v->family != families[0])
      throw std::invalid_argument("variant '" + name + "' is in family " + lab::family_name(v->family) + ", not " +
                                  o.family);
    if (std::find(chosen.begin(), chosen.end(), v) == chosen.end()) chosen.push_back(v);
  }
  if (chosen.empty())
    for (const Variant& v : lab_registry())
      if (families.empty() || v.family == families[0]) chosen.push_back(&v);

  std::vector<Shape> sizes_1d, sizes_2d;
  for (const std::string& text : o.sizes) {
    const Shape s = parse_lab_size(text);
    std::vector<Shape>& into = s.is_2d() ? sizes_2d : sizes_1d;
    // A size given twice (2^20,1048576) runs once, as a variant named twice does.
    if (std::none_of(into.begin(), into.end(), [&](const Shape& t) { return t.text() == s.text(); })) into.push_back(s);
  }

  const Elem only = o.type == "f32" ? Elem::f32 : Elem::i32;
  // --type narrows like --param: a variant named with --variant must have that type, and some
  // selected variant must (checked first, so that a --param message never hides the type).
  if (!o.type.empty()) {
    for (const Variant* v : chosen)
      if (!supports(*v, only) && std::find(o.variants.begin(), o.variants.end(), v->name) != o.variants.end())
        throw std::invalid_argument("variant '" + v->name + "' has no " + o.type + " version (it runs on " +
                                    (supports(*v, Elem::i32) ? "i32" : "f32") + ")");
    if (std::none_of(chosen.begin(), chosen.end(), [&](const Variant* v) { return supports(*v, only); }))
      throw std::invalid_argument("no selected variant runs on type " + o.type + " (see circles kernels --list)");
  }
  bool param_taken = false;  // some selected variant takes one of the --param values
  std::vector<Job> jobs;
  for (Family f : lab_families()) {
    for (Task t : {Task::reduce_sum, Task::exclusive_scan, Task::find_repeats, Task::compact, Task::segmented_scan,
                   Task::transpose, Task::bank_read, Task::convolve}) {
      std::vector<const Variant*> vs;
      for (const Variant* v : chosen)
        if (v->family == f && v->task == t) vs.push_back(v);
      if (vs.empty()) continue;
      std::vector<Shape> shapes = t == Task::transpose ? sizes_2d : sizes_1d;
      if (shapes.empty() && !o.sizes.empty())
        throw std::invalid_argument(std::string(lab::task_name(t)) + " needs " +
                                    (t == Task::transpose ? "a WxH size" : "a size N or 2^K") +
                                    " among the --size values (given: " + join_names(o.sizes) + ")");
      if (shapes.empty()) shapes = default_sizes(f);
      for (const Shape& s : shapes) {
        const std::string bad = lab::shape_error(t, s);
        if (!bad.empty()) throw std::invalid_argument("size " + s.text() + " for " + lab::task_name(t) + ": " + bad);
      }
      for (Elem e : {Elem::i32, Elem::f32}) {
        if (!o.type.empty() && e != only) continue;
        std::vector<std::pair<const Variant*, int>> runs;
        for (const Variant* v : vs) {
          if (!supports(*v, e)) continue;
          if (v->params.empty()) {
            runs.push_back({v, 0});
            continue;
          }
          std::vector<int> values = v->params;
          if (!o.params.empty()) {
            // --param narrows: a variant runs the given values it lists; one that lists none of
            // them is left out, unless it was named with --variant.
            values.clear();
            for (int p : o.params)
              if (std::find(v->params.begin(), v->params.end(), p) != v->params.end() &&
                  std::find(values.begin(), values.end(), p) == values.end())
                values.push_back(p);
            if (values.empty() && std::find(o.variants.begin(), o.variants.end(), v->name) != o.variants.end())
              throw std::invalid_argument("variant '" + v->name + "' takes --param " + v->param_name + " " +
                                          join_ints(v->params) + ", not " + join_ints(o.params));
            if (!values.empty()) param_taken = true;
          }
          for (int p : values) runs.push_back({v, p});
        }
        if (runs.empty()) continue;
        for (const Shape& s : shapes) jobs.push_back(Job{f, t, e, s, runs});
      }
    }
  }
  if (!o.params.empty() && !param_taken)
    throw std::invalid_argument("no selected variant takes --param " + join_ints(o.params) +
                                " (see circles kernels --list for each variant's values)");
  if (jobs.empty())
    throw std::invalid_argument("no selected variant runs on type " + o.type + " (see circles kernels --list)");
  return jobs;
}

}  // namespace

#if CIRCLES_HAVE_CUDA
namespace {

std::string size_text(const Shape& s, Task t) {
  if (t == Task::bank_read) return std::to_string(s.n) + " threads";
  char buf[96];
  const double mib = static_cast<double>(s.n) * 4 / (1 << 20);
  if (s.is_2d()) std::snprintf(buf, sizeof buf, "%dx%d (%.1f MiB)", s.width, s.height, mib);
  else std::snprintf(buf, sizeof buf, "n = %zu (%.1f MiB)", s.n, mib);
  return buf;
}

// A progress line on a terminal only (never in logs).
void progress(const std::string& text) {
  static const bool tty = isatty(2);
  if (!tty) return;
  std::fprintf(stderr, "\r\033[K%s", text.c_str());
  std::fflush(stderr);
}

// One counter's value for the table: bytes and counts scaled by powers of 10, percentages, ratios.
std::string counter_text(const CounterValue& v) {
  char buf[64];
  const double x = v.value;
  if (std::isnan(x)) return v.label + " n/a";
  if (v.unit == "bytes") {
    if (x >= 1e9) std::snprintf(buf, sizeof buf, "%.3f GB", x / 1e9);
    else if (x >= 1e6) std::snprintf(buf, sizeof buf, "%.2f MB", x / 1e6);
    else if (x >= 1e3) std::snprintf(buf, sizeof buf, "%.1f kB", x / 1e3);
    else std::snprintf(buf, sizeof buf, "%.0f B", x);
  } else if (v.unit == "count") {
    if (x >= 1e9) std::snprintf(buf, sizeof buf, "%.3fG", x / 1e9);
    else if (x >= 1e6) std::snprintf(buf, sizeof buf, "%.2fM", x / 1e6);
    else if (x >= 1e3) std::snprintf(buf, sizeof buf, "%.1fk", x / 1e3);
    else std::snprintf(buf, sizeof buf, "%.0f", x);
  } else if (v.unit == "%") {
    std::snprintf(buf, sizeof buf, "%.1f%%", x);
  } else if (v.metric == "smsp__thread_inst_executed_per_inst_executed.ratio") {
    // ncu's "warp execution efficiency" is this over the 32 lanes of a warp.
    std::snprintf(buf, sizeof buf, "%.2f (%.1f%% of 32)", x, 100 * x / 32);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f", x);
  }
  return v.label + " " + buf;
}

// The counters of one row, under it, wrapped at 110 columns.
void print_counters(const CounterReport& c) {
  const std::string lead = "     counters: ", indent(lead.size(), ' ');
  if (!c.ok()) {
    std::printf("%s%s\n", lead.c_str(), c.error.c_str());
    return;
  }
  std::vector<std::string> parts;
  for (const CounterValue& v : c.values) parts.push_back(counter_text(v));
  char tail[64];
  std::snprintf(tail, sizeof tail, "[%d pass%s, %.1f ms]", c.passes, c.passes == 1 ? "" : "es", c.collect_ms);
  parts.push_back(tail);
  if (!c.missing.empty()) parts.push_back("(not on this GPU: " + join_names(c.missing) + ")");
  std::string line = lead;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string piece = parts[i] + (i + 1 < c.values.size() ? "," : "");  // commas between values
    if (line.size() > lead.size() && line.size() + 1 + piece.size() > 110) {
      std::printf("%s\n", line.c_str());
      line = indent;
    } else if (line.size() > lead.size()) {
      line += " ";
    }
    line += piece;
  }
  std::printf("%s\n", line.c_str());
}

nlohmann::json counters_json(const CounterReport& c) {
  nlohmann::json j;
  if (!c.ok()) {
    j["error"] = c.error;
    return j;
  }
  nlohmann::json values = nlohmann::json::object();
  for (const CounterValue& v : c.values) values[v.metric] = v.value;  // NaN is written as null
  j["values"] = values;
  j["passes"] = c.passes;
  j["collect_ms"] = c.collect_ms;
  if (!c.missing.empty()) j["missing"] = c.missing;
  return j;
}

nlohmann::json record(const Job& job, const lab::Measurement& m, double copy_gbps, double ref_gbps) {
  nlohmann::json j;
  j["family"] = lab::family_name(job.family);
  j["task"] = lab::task_name(job.task);
  j["variant"] = m.name;
  j["type"] = lab::elem_name(job.type);
  j["size"] = job.shape.text();
  j["n"] = job.shape.n;
  if (job.shape.is_2d()) j["width"] = job.shape.width, j["height"] = job.shape.height;
  if (m.variant && !m.variant->param_name.empty()) j["param_name"] = m.variant->param_name, j["param"] = m.param;
  j["check"] = m.check.empty() ? "n/a" : m.check;
  j["runs"] = m.runs;
  j["median_ms"] = m.median_ms;
  j["min_ms"] = m.min_ms;
  j["max_ms"] = m.max_ms;
  j["bytes"] = m.bytes;
  j["gbps"] = m.gbps;
  j["kind"] = !m.variant ? "copy" : m.variant->reference ? "reference" : "rung";
  j["reference"] = m.variant && m.variant->reference;
  j["host"] = m.variant ? m.variant->host : false;
  if (copy_gbps > 0) j["pct_copy"] = 100 * m.gbps / copy_gbps;
  if (ref_gbps > 0 && m.variant) j["pct_reference"] = 100 * m.gbps / ref_gbps;
  if (job.task == Task::bank_read && m.variant) {
    j["word_bytes"] = m.variant->word_bytes;
    j["wavefronts_arith"] = lab::bank_wavefronts(m.variant->word_bytes, m.param);
  }
  return j;
}

}  // namespace
#endif

int run_kernels(const KernelsOptions& o) {
  const std::vector<Job> jobs = plan(o);  // a bad selection fails here, GPU or not (--list too)
  if (o.list) return list_registry();
  if (!o.json_path.empty()) {
    check_output_path(o.json_path, "--json");  // before any work, without creating the file
  }
  // Host memory: the CPU's side of each problem (input, expected result) must fit.
  const double avail = available_memory_bytes();  // the same figure `circles render` checks against
  for (const Job& j : jobs) {
    const double need = lab::host_bytes_needed(j.task, j.type, j.shape);
    if (avail > 0 && need > 0.9 * avail) {
      std::fprintf(stderr,
                   "circles: error: %s of %s needs about %s of host memory for its input and CPU check; "
                   "%s are available (the lab takes at most 90%%)\n",
                   lab::task_name(j.task), j.shape.text().c_str(), memory_text(need).c_str(), memory_text(avail).c_str());
      return 1;
    }
  }
  const std::string why = lab_unavailable_reason();
  if (!why.empty()) {
    std::fprintf(stderr, "circles: error: the kernel lab needs a CUDA GPU: %s\n", why.c_str());
    return 1;
  }
#if CIRCLES_HAVE_CUDA
  const CudaDeviceInfo& dev = cuda_device_info();
  std::printf("circles kernels on %s (%d SMs); %d timed runs after %d warm-up, medians; GB/s = 10^9 B/s\n",
              dev.name.c_str(), dev.sm_count, o.repeat, o.warmup);
  const lab::Timing timing{o.repeat, o.warmup};
  // Counters: asked for, and readable here; otherwise the reason, once, and the rest runs.
  bool counters = o.counters;
  if (counters) {
    const std::string no = counters_unavailable_reason();
    if (!no.empty()) {
      std::printf("hardware counters unavailable: %s\n", no.c_str());
      counters = false;
    } else {
      std::printf("hardware counters by CUPTI's range profiler (%s): one more run per row, summed over its "
                  "kernels\n",
                  counters_library().c_str());
    }
  }
  nlohmann::json records = nlohmann::json::array();
  int wrong = 0;
  std::size_t done = 0, total = 0;
  for (const Job& j : jobs) total += j.runs.size();
  for (const Job& job : jobs) {
    progress("preparing " + std::string(lab::task_name(job.task)) + " " + job.shape.text() + " on the CPU");
    lab::LabBench bench(job.task, job.type, job.shape, o.seed);
    const lab::Measurement copy = bench.device_copy(timing);
    const bool banks = job.task == Task::bank_read;
    std::printf("\n== %s: %s, %s, %s\n", lab::family_name(job.family), lab::task_name(job.task),
                lab::elem_name(job.type), size_text(job.shape, job.task).c_str());
    if (copy.runs)
      std::printf("   device copy of the input: %.4f ms, %.0f GB/s (read + written)\n", copy.median_ms, copy.gbps);
    if (copy.runs) records.push_back(record(job, copy, 0, 0));
    const char* knob = "";
    for (const auto& r : job.runs)
      if (!r.first->param_name.empty()) knob = r.first->param_name.c_str();
    if (banks)
      std::printf("   %-26s %6s %6s %-5s %10s %10s %10s %9s %8s\n", "variant", knob, "wavef.", "check", "median ms",
                  "min ms", "max ms", "ns/ld/SM", "x first");
    else
      std::printf("   %-26s %6s %-5s %10s %10s %10s %8s %7s %7s %8s\n", "variant", knob, "check", "median ms", "min ms",
                  "max ms", "GB/s", "% copy", "% ref", "x first");
    // The reference first (its figure fills the "% ref" column), then knob value by knob value
    // (the CPU's expected result depends on the radius or stride, and is kept for one value at a
    // time); printed in registry order afterwards.
    std::vector<std::pair<const Variant*, int>> order = job.runs;
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      return std::make_pair(!a.first->reference, a.second) < std::make_pair(!b.first->reference, b.second);
    });
    double ref_gbps = 0, first_ms = 0;
    struct Row {
      std::size_t idx;  // in job.runs
      lab::Measurement m;
      CounterReport counters;
      bool has_counters;
    };
    std::vector<Row> results;
    for (std::size_t k = 0; k < order.size(); ++k) {
      const Variant& v = *order[k].first;
      progress("[" + std::to_string(++done) + "/" + std::to_string(total) + "] " + v.name +
               (v.param_name.empty() ? "" : " " + v.param_name + " " + std::to_string(order[k].second)) + " " +
               lab::elem_name(job.type) + " " + job.shape.text());
      lab::Measurement m = bench.run(v, order[k].second, &timing);
      if (v.reference && ref_gbps == 0) ref_gbps = m.gbps;
      const auto at = std::find(job.runs.begin(), job.runs.end(), order[k]) - job.runs.begin();
      Row row{static_cast<std::size_t>(at), m, {}, false};
      // A CPU variant runs no kernel: nothing to count.
      if (counters && !v.host) {
        const int param = order[k].second;
        row.counters = measure_counters([&] { bench.launch_once(v, param); });
        row.has_counters = true;
        // Not permitted after all (found out by measuring): this row says why, the rest are not tried.
        if (!row.counters.ok() && !counters_unavailable_reason().empty()) counters = false;
      }
      results.push_back(std::move(row));
    }
    progress("");
    std::sort(results.begin(), results.end(), [](const Row& a, const Row& b) { return a.idx < b.idx; });
    for (const Row& row : results) {
      const lab::Measurement& m = row.m;
      if (first_ms == 0) first_ms = m.median_ms;
      const std::string param = m.variant->param_name.empty() ? "" : std::to_string(m.param);
      const std::string check = m.ok() ? "ok" : "WRONG";
      const double speedup = m.median_ms > 0 ? first_ms / m.median_ms : 0;
      if (banks) {
        const double warp_loads = static_cast<double>((job.shape.n + lab::kBankBlock - 1) / lab::kBankBlock) *
                                  (lab::kBankBlock / 32) * lab::kBankIters / dev.sm_count;
        std::printf("   %-26s %6s %6.2f %-5s %10.4f %10.4f %10.4f %9.3f %8.2f\n", m.name.c_str(), param.c_str(),
                    lab::bank_wavefronts(m.variant->word_bytes, m.param), check.c_str(), m.median_ms, m.min_ms,
                    m.max_ms, m.median_ms * 1e6 / warp_loads, speedup);
      } else {
        char pct_copy[16] = "", pct_ref[16] = "";
        if (copy.gbps > 0) std::snprintf(pct_copy, sizeof pct_copy, "%.1f", 100 * m.gbps / copy.gbps);
        if (ref_gbps > 0) std::snprintf(pct_ref, sizeof pct_ref, "%.1f", 100 * m.gbps / ref_gbps);
        std::printf("   %-26s %6s %-5s %10.4f %10.4f %10.4f %8.0f %7s %7s %8.2f\n",
                    (m.name + (m.variant->reference ? " *" : "")).c_str(), param.c_str(), check.c_str(), m.median_ms,
                    m.min_ms, m.max_ms, m.gbps, pct_copy, pct_ref, speedup);
      }
      if (!m.ok()) {
        ++wrong;
        std::printf("     %s: %s\n", m.name.c_str(), m.check.c_str());
      }
      if (row.has_counters) print_counters(row.counters);
      records.push_back(record(job, m, copy.gbps, ref_gbps));
      if (row.has_counters) records.back()["counters"] = counters_json(row.counters);
    }
    std::fflush(stdout);
  }
  std::printf("\n(* a library reference line; x first = the first row's median / this median)\n");
  if (!o.json_path.empty()) {
    write_file_atomically(o.json_path, records.dump(1) + "\n", "JSON file");
    std::fprintf(stderr, "kernels: %zu measurements -> %s\n", records.size(), o.json_path.c_str());
  }
  if (wrong) {
    std::fprintf(stderr, "circles: error: %d variant run(s) WRONG\n", wrong);
    return 1;
  }
  return 0;
#else
  return 1;
#endif
}

}  // namespace circles
