// The lab's harness (see lab_run.h). Device buffers, the stream, the events and the scratch are
// made once per problem; the checked run grows the scratch, so timed runs allocate nothing.
#include "kernels/lab/lab_run.h"
#include "kernels/cuda/nvtx.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels/cuda/raii.h"
#include "kernels/lab/lab_launch.h"
#include "render/stats.h"

namespace circles::lab {

namespace {

void summarize(const std::vector<double>& ms, Measurement* m) {
  m->runs = static_cast<int>(ms.size());
  m->median_ms = median(ms);
  m->min_ms = *std::min_element(ms.begin(), ms.end());
  m->max_ms = *std::max_element(ms.begin(), ms.end());
  m->gbps = m->median_ms > 0 ? m->bytes / (m->median_ms * 1e-3) / 1e9 : 0;
}

}  // namespace

struct LabBench::Impl {
  Problem problem;
  CudaStream stream;
  DeviceBuffer<std::uint32_t> in, out;
  DeviceBuffer<std::int32_t> flags, count;
  Scratch scratch;
  CudaEvent start, stop;
  std::vector<std::uint32_t> host_out;
  // The expected result of the last (param, word bytes) asked for: only convolve and bank_read
  // depend on them, and one result of n doubles is all the host memory it keeps.
  std::pair<int, int> expected_key{-1, -1};
  Expected expected;
  std::int32_t host_count = -1;  // where a CPU variant writes its count
  // enqueue_timed's event pairs, one per slot (heap-held: a CudaEvent does not move).
  struct Slot {
    CudaEvent start, stop;
    bool pending = false;
  };
  std::vector<std::unique_ptr<Slot>> slots;

  // The arguments of one run of `v`: device buffers, or host ones for a CPU variant.
  LaunchArgs args(const Variant& v, int param) {
    LaunchArgs a;
    a.shape = problem.shape;
    a.type = problem.type;
    a.param = param;
    a.scratch = &scratch;
    a.stream = stream.get();
    if (v.host) {
      a.in = problem.in.data();
      a.flags = problem.flags.empty() ? nullptr : problem.flags.data();
      a.out = host_out.data();
      a.count = &host_count;
    } else {
      a.in = in.get();
      a.flags = problem.flags.empty() ? nullptr : flags.get();
      a.out = out.get();
      a.count = count.get();
    }
    return a;
  }

  void check_variant(const Variant& v) const {
    if (v.task != problem.task)
      throw std::invalid_argument(v.name + " does not compute " + task_name(problem.task));
    if (!v.launch) throw std::runtime_error(v.name + " has no launcher in this build");
  }

  const Expected& expect(int param, int word_bytes) {
    const bool keyed = problem.task == Task::convolve || problem.task == Task::bank_read;
    const std::pair<int, int> key = keyed ? std::make_pair(param, word_bytes) : std::make_pair(0, 0);
    if (key != expected_key) {
      expected = Expected{};  // free the old one first
      expected = expected_result(problem, param, word_bytes);
      expected_key = key;
    }
    return expected;
  }
};

LabBench::LabBench(Task task, Elem type, const Shape& shape, std::uint64_t seed) : impl_(new Impl) {
  const std::string bad = shape_error(task, shape);
  if (!bad.empty()) throw std::invalid_argument(bad);
  // Refuse what does not fit before allocating anything, with both figures.
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const double need = device_bytes_needed(task, type, shape);
  if (need > 0.95 * static_cast<double>(free_bytes)) {
    char msg[200];
    std::snprintf(msg, sizeof msg, "%s of %s needs about %.1f GiB of device memory; %.1f GiB are free",
                  task_name(task), shape.text().c_str(), need / (1u << 30), free_bytes / double(1u << 30));
    throw std::runtime_error(msg);
  }
  Impl& s = *impl_;
  s.problem = make_problem(task, type, shape, seed);
  const cudaStream_t st = s.stream.get();
  s.in.upload(s.problem.in.data(), s.problem.in.size(), st);
  // The output also serves the copy line, so it holds at least the input.
  s.out.resize(std::max(s.problem.out_elems, s.problem.in.size()));
  if (!s.problem.flags.empty()) s.flags.upload(s.problem.flags.data(), s.problem.flags.size(), st);
  s.count.resize(1);
  s.host_out.resize(s.problem.out_elems);
  CUDA_CHECK(cudaStreamSynchronize(st));
}

LabBench::~LabBench() = default;

const Problem& LabBench::problem() const { return impl_->problem; }

Measurement LabBench::run(const Variant& v, int param, const Timing* timing) {
  Impl& s = *impl_;
  const Problem& p = s.problem;
  s.check_variant(v);
  Measurement m;
  m.name = v.name;
  m.variant = &v;
  m.param = param;
  m.type = p.type;
  m.shape = p.shape;
  const cudaStream_t st = s.stream.get();
  const std::uint32_t poison = p.type == Elem::f32 ? kPoisonF32 : kPoisonI32;
  long long count = -1;

  if (v.host) s.host_out.assign(p.out_elems, poison);  // before args(): they point into it
  const LaunchArgs a = s.args(v, param);
  if (v.host) {
    s.host_count = -1;
    {
      NvtxScope range("lab: " + v.name);
      v.launch(a);
    }
    count = s.host_count;
  } else {
    CUDA_CHECK(cudaMemsetAsync(s.out.get(), static_cast<int>(poison & 0xFF), p.out_elems * elem_size(p.type), st));
    CUDA_CHECK(cudaMemsetAsync(s.count.get(), 0xFF, sizeof(std::int32_t), st));
    {
      NvtxScope range("lab: " + v.name);
      v.launch(a);
    }
    CUDA_CHECK(cudaMemcpyAsync(s.host_out.data(), s.out.get(), p.out_elems * elem_size(p.type),
                               cudaMemcpyDeviceToHost, st));
    std::int32_t c = -1;
    CUDA_CHECK(cudaMemcpyAsync(&c, s.count.get(), sizeof c, cudaMemcpyDeviceToHost, st));
    CUDA_CHECK(cudaStreamSynchronize(st));
    count = c;
  }
  m.check = check_result(p, s.expect(param, v.word_bytes), s.host_out.data(), count);
  m.bytes = task_bytes(p, p.has_count ? count : 0, v.word_bytes);
  if (!timing) return m;

  std::vector<double> ms;
  const std::string range_name = "lab: " + v.name;
  for (int r = 0; r < timing->warmup + timing->repeat; ++r) {
    NvtxScope range(range_name);
    double t;
    if (v.host) {
      const auto t0 = std::chrono::steady_clock::now();
      v.launch(a);
      t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    } else {
      s.start.record(st);
      v.launch(a);
      s.stop.record(st);
      t = s.stop.since(s.start);
    }
    if (r >= timing->warmup) ms.push_back(t);
  }
  summarize(ms, &m);
  return m;
}

void LabBench::launch_once(const Variant& v, int param) {
  Impl& s = *impl_;
  s.check_variant(v);
  const LaunchArgs a = s.args(v, param);
  NvtxScope range("lab: " + v.name);
  v.launch(a);
}

void LabBench::enqueue_timed(const Variant& v, int param, int slot, void* stream) {
  Impl& s = *impl_;
  s.check_variant(v);
  if (v.host) throw std::invalid_argument(v.name + " runs on the CPU: it cannot be enqueued on a stream");
  if (slot < 0) throw std::invalid_argument("enqueue_timed: negative slot");
  while (static_cast<int>(s.slots.size()) <= slot) s.slots.push_back(std::make_unique<Impl::Slot>());
  Impl::Slot& t = *s.slots[static_cast<std::size_t>(slot)];
  LaunchArgs a = s.args(v, param);
  a.stream = stream ? static_cast<cudaStream_t>(stream) : s.stream.get();
  NvtxScope range("lab: " + v.name);
  t.start.record(a.stream);
  v.launch(a);
  t.stop.record(a.stream);
  t.pending = true;
}

std::optional<double> LabBench::poll_timed(int slot, bool wait) {
  Impl& s = *impl_;
  if (slot < 0 || slot >= static_cast<int>(s.slots.size())) return std::nullopt;
  Impl::Slot& t = *s.slots[static_cast<std::size_t>(slot)];
  if (!t.pending) return std::nullopt;
  if (!t.stop.done(wait)) return std::nullopt;
  t.pending = false;
  return t.stop.since(t.start);
}

Measurement LabBench::device_copy(const Timing& timing) {
  Impl& s = *impl_;
  const Problem& p = s.problem;
  Measurement m;
  m.name = "device-copy";
  m.type = p.type;
  m.shape = p.shape;
  const double bytes = copy_bytes(p);
  m.bytes = 2 * bytes;
  if (bytes <= 0) return m;
  const cudaStream_t st = s.stream.get();
  std::vector<double> ms;
  for (int r = 0; r < timing.warmup + timing.repeat; ++r) {
    s.start.record(st);
    CUDA_CHECK(cudaMemcpyAsync(s.out.get(), s.in.get(), static_cast<std::size_t>(bytes), cudaMemcpyDeviceToDevice, st));
    s.stop.record(st);
    const double t = s.stop.since(s.start);
    if (r >= timing.warmup) ms.push_back(t);
  }
  summarize(ms, &m);
  return m;
}

}  // namespace circles::lab
