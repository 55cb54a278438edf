// The lab's harness (see lab_run.h). Device buffers, the stream, the events and the scratch are
// made once per problem; the checked run grows the scratch, so timed runs allocate nothing.
#include "kernels/lab/lab_run.h"
#include "kernels/nvtx.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels/cuda_raii.h"
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
  if (v.task != p.task) throw std::invalid_argument(v.name + " does not compute " + task_name(p.task));
  if (!v.launch) throw std::runtime_error(v.name + " has no launcher in this build");
  Measurement m;
  m.name = v.name;
  m.variant = &v;
  m.param = param;
  m.type = p.type;
  m.shape = p.shape;
  const cudaStream_t st = s.stream.get();
  const std::uint32_t poison = p.type == Elem::f32 ? kPoisonF32 : kPoisonI32;
  long long count = -1;

  LaunchArgs a;
  a.shape = p.shape;
  a.type = p.type;
  a.param = param;
  a.scratch = &s.scratch;
  a.stream = st;
  std::int32_t host_count = -1;
  if (v.host) {
    a.in = p.in.data();
    a.flags = p.flags.empty() ? nullptr : p.flags.data();
    s.host_out.assign(p.out_elems, poison);
    a.out = s.host_out.data();
    a.count = &host_count;
    {
      NvtxScope range("lab: " + v.name);
      v.launch(a);
    }
    count = host_count;
  } else {
    a.in = s.in.get();
    a.flags = p.flags.empty() ? nullptr : s.flags.get();
    a.out = s.out.get();
    a.count = s.count.get();
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
