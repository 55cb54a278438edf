// Timeline semaphores CUDA and GL share (shared_semaphore.h), made by Vulkan.
//
// create():
//   Vulkan: once per process (vulkan_device): dlopen libvulkan.so.1; an instance (API 1.2); the
//           physical device whose deviceUUID is the CUDA device's uuid; a device with the
//           timelineSemaphore feature and VK_KHR_external_semaphore_fd. Per semaphore
//           vkCreateSemaphore (timeline, exportable as an opaque fd) and two vkGetSemaphoreFdKHR,
//           one fd for each importer.
//   CUDA:   cudaImportExternalSemaphore (cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd).
//   GL:     glCreateSemaphoresNV, GL_SEMAPHORE_TYPE_NV = GL_SEMAPHORE_TYPE_TIMELINE_NV, then
//           glImportSemaphoreFdEXT (GL_EXT_semaphore_fd, GL_NV_timeline_semaphore).
//   A successful import owns its fd; a failed one leaves it here, to close.
// Signal and wait: cudaSignal/WaitExternalSemaphoresAsync with the fence value; in GL,
// GL_TIMELINE_SEMAPHORE_VALUE_NV (glSemaphoreParameterui64vEXT) then glSignal/WaitSemaphoreEXT.
#include "app/gl/shared_semaphore.h"

#include <glad/gl.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/gl/gl_util.h"
#include "kernels/cuda/check.h"

#if __has_include(<vulkan/vulkan.h>)
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>
#define CIRCLES_HAVE_VULKAN_HEADERS 1
#endif

namespace circles {

#ifndef CIRCLES_HAVE_VULKAN_HEADERS

std::unique_ptr<SharedSemaphores> SharedSemaphores::create(int, std::string* why_not) {
  *why_not = "built without Vulkan's headers (Debian: libvulkan-dev)";
  return nullptr;
}

#else

namespace {

// Thrown inside create() for a step that is missing or refused; create() returns its text.
struct Unavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A Vulkan structure, zeroed, with its sType.
template <class T>
T vk_struct(VkStructureType type) {
  T v{};
  v.sType = type;
  return v;
}

std::string vk_result_text(VkResult r) { return "VkResult " + std::to_string(static_cast<int>(r)); }

void vk_check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) throw Unavailable(std::string(what) + " failed (" + vk_result_text(r) + ")");
}

// The Vulkan functions used here, from the loader (instance level) and the device.
struct Vk {
  void* library = nullptr;
  PFN_vkGetInstanceProcAddr get_instance_proc = nullptr;
  PFN_vkCreateInstance create_instance = nullptr;
  PFN_vkEnumeratePhysicalDevices enumerate_physical_devices = nullptr;
  PFN_vkGetPhysicalDeviceProperties2 get_properties2 = nullptr;
  PFN_vkGetPhysicalDeviceFeatures2 get_features2 = nullptr;
  PFN_vkGetPhysicalDeviceQueueFamilyProperties get_queue_families = nullptr;
  PFN_vkGetPhysicalDeviceExternalSemaphoreProperties get_external_semaphore_properties = nullptr;
  PFN_vkCreateDevice create_device = nullptr;
  PFN_vkGetDeviceProcAddr get_device_proc = nullptr;
  PFN_vkCreateSemaphore create_semaphore = nullptr;
  PFN_vkDestroySemaphore destroy_semaphore = nullptr;
  PFN_vkGetSemaphoreFdKHR get_semaphore_fd = nullptr;
};

template <class F>
F instance_function(const Vk& vk, VkInstance instance, const char* name) {
  auto f = reinterpret_cast<F>(vk.get_instance_proc(instance, name));
  if (!f) throw Unavailable(std::string("the Vulkan loader has no ") + name);
  return f;
}

// Vulkan's instance and device, made once and never destroyed (nor when making them fails half
// way): destroying the instance unloads NVIDIA's driver library (the Vulkan ICD), whose state GL
// shares; after a destroyed instance GL on the EGL device platform drew nothing (seen on the
// H200). vulkan_device() throws Unavailable (the same text every call) when they cannot be made.
struct VulkanDevice {
  Vk vk;
  VkInstance instance = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
};

VulkanDevice make_vulkan_device() {
  VulkanDevice d;
  d.vk.library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!d.vk.library) throw Unavailable("no Vulkan loader (libvulkan.so.1)");
  d.vk.get_instance_proc = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(d.vk.library, "vkGetInstanceProcAddr"));
  if (!d.vk.get_instance_proc) throw Unavailable("libvulkan.so.1 has no vkGetInstanceProcAddr");
  d.vk.create_instance = instance_function<PFN_vkCreateInstance>(d.vk, nullptr, "vkCreateInstance");

  auto app = vk_struct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "circles view";
  app.apiVersion = VK_API_VERSION_1_2;
  auto ici = vk_struct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  ici.pApplicationInfo = &app;
  vk_check(d.vk.create_instance(&ici, nullptr, &d.instance), "vkCreateInstance");
  d.vk.enumerate_physical_devices =
      instance_function<PFN_vkEnumeratePhysicalDevices>(d.vk, d.instance, "vkEnumeratePhysicalDevices");
  d.vk.get_properties2 =
      instance_function<PFN_vkGetPhysicalDeviceProperties2>(d.vk, d.instance, "vkGetPhysicalDeviceProperties2");
  d.vk.get_features2 = instance_function<PFN_vkGetPhysicalDeviceFeatures2>(d.vk, d.instance, "vkGetPhysicalDeviceFeatures2");
  d.vk.get_queue_families = instance_function<PFN_vkGetPhysicalDeviceQueueFamilyProperties>(
      d.vk, d.instance, "vkGetPhysicalDeviceQueueFamilyProperties");
  d.vk.get_external_semaphore_properties = instance_function<PFN_vkGetPhysicalDeviceExternalSemaphoreProperties>(
      d.vk, d.instance, "vkGetPhysicalDeviceExternalSemaphoreProperties");
  d.vk.create_device = instance_function<PFN_vkCreateDevice>(d.vk, d.instance, "vkCreateDevice");
  d.vk.get_device_proc = instance_function<PFN_vkGetDeviceProcAddr>(d.vk, d.instance, "vkGetDeviceProcAddr");

  // The physical device that is the current CUDA device (the same UUID).
  int ordinal = 0;
  CUDA_CHECK(cudaGetDevice(&ordinal));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  std::uint32_t n = 0;
  vk_check(d.vk.enumerate_physical_devices(d.instance, &n, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(n);
  vk_check(d.vk.enumerate_physical_devices(d.instance, &n, devices.data()), "vkEnumeratePhysicalDevices");
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  for (VkPhysicalDevice candidate : devices) {
    auto id = vk_struct<VkPhysicalDeviceIDProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES);
    auto p2 = vk_struct<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
    p2.pNext = &id;
    d.vk.get_properties2(candidate, &p2);
    static_assert(sizeof(id.deviceUUID) == sizeof(prop.uuid.bytes), "UUIDs of 16 bytes");
    if (std::memcmp(id.deviceUUID, prop.uuid.bytes, sizeof id.deviceUUID) == 0) physical = candidate;
  }
  if (physical == VK_NULL_HANDLE)
    throw Unavailable("no Vulkan device is CUDA device " + std::to_string(ordinal) + " (of " + std::to_string(n) +
                      " Vulkan devices)");
  auto timeline = vk_struct<VkPhysicalDeviceTimelineSemaphoreFeatures>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES);
  auto f2 = vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  f2.pNext = &timeline;
  d.vk.get_features2(physical, &f2);
  if (!timeline.timelineSemaphore) throw Unavailable("the Vulkan device has no timeline semaphores");
  auto type_info = vk_struct<VkSemaphoreTypeCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
  type_info.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  auto esi = vk_struct<VkPhysicalDeviceExternalSemaphoreInfo>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO);
  esi.pNext = &type_info;
  esi.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  auto esp = vk_struct<VkExternalSemaphoreProperties>(VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES);
  d.vk.get_external_semaphore_properties(physical, &esi, &esp);
  if (!(esp.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT))
    throw Unavailable("the Vulkan device cannot export a timeline semaphore as an opaque fd");

  // A device: one queue (a device needs one; it is never used), timeline semaphores, fd export.
  std::uint32_t families = 0;
  d.vk.get_queue_families(physical, &families, nullptr);
  if (families == 0) throw Unavailable("the Vulkan device has no queue family");
  const float priority = 1.f;
  auto qci = vk_struct<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  qci.queueFamilyIndex = 0;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  auto enable = vk_struct<VkPhysicalDeviceTimelineSemaphoreFeatures>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES);
  enable.timelineSemaphore = VK_TRUE;
  const char* extensions[] = {VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME};
  auto dci = vk_struct<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  dci.pNext = &enable;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = 1;
  dci.ppEnabledExtensionNames = extensions;
  vk_check(d.vk.create_device(physical, &dci, nullptr, &d.device), "vkCreateDevice (VK_KHR_external_semaphore_fd)");
  auto device_function = [&](const char* name) {
    PFN_vkVoidFunction f = d.vk.get_device_proc(d.device, name);
    if (!f) throw Unavailable(std::string("the Vulkan device has no ") + name);
    return f;
  };
  d.vk.create_semaphore = reinterpret_cast<PFN_vkCreateSemaphore>(device_function("vkCreateSemaphore"));
  d.vk.destroy_semaphore = reinterpret_cast<PFN_vkDestroySemaphore>(device_function("vkDestroySemaphore"));
  d.vk.get_semaphore_fd = reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(device_function("vkGetSemaphoreFdKHR"));

  return d;
}

const VulkanDevice& vulkan_device() {
  static std::string error;
  static const VulkanDevice* device = [] () -> const VulkanDevice* {
    try {
      return new VulkanDevice(make_vulkan_device());  // never deleted (above)
    } catch (const std::exception& e) {
      error = e.what();
      return nullptr;
    }
  }();
  if (!device) throw Unavailable(error);
  return *device;
}

struct CudaSemaphore {
  cudaExternalSemaphore_t handle = nullptr;
};

class VulkanSharedSemaphores final : public SharedSemaphores {
 public:
  explicit VulkanSharedSemaphores(int count) {
    if (!(GLAD_GL_EXT_semaphore && GLAD_GL_EXT_semaphore_fd && GLAD_GL_NV_timeline_semaphore && glCreateSemaphoresNV))
      throw Unavailable("the GL context has no GL_EXT_semaphore_fd / GL_NV_timeline_semaphore");
    const VulkanDevice& d = vulkan_device();
    try {
      for (int i = 0; i < count; ++i) add_semaphore(d);
    } catch (...) {
      release();
      throw;
    }
  }
  ~VulkanSharedSemaphores() override { release(); }

  void cuda_signal(int i, std::uint64_t value, void* stream) override {
    cudaExternalSemaphoreSignalParams p{};
    p.params.fence.value = value;
    CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&cuda_.at(i).handle, &p, 1, static_cast<cudaStream_t>(stream)));
  }
  void cuda_wait(int i, std::uint64_t value, void* stream) override {
    cudaExternalSemaphoreWaitParams p{};
    p.params.fence.value = value;
    CUDA_CHECK(cudaWaitExternalSemaphoresAsync(&cuda_.at(i).handle, &p, 1, static_cast<cudaStream_t>(stream)));
  }
  void gl_signal(int i, std::uint64_t value) override {
    const GLuint s = gl_.at(i);
    const GLuint64 v = value;
    glSemaphoreParameterui64vEXT(s, GL_TIMELINE_SEMAPHORE_VALUE_NV, &v);
    glSignalSemaphoreEXT(s, 0, nullptr, 0, nullptr, nullptr);
    glFlush();  // CUDA may already wait for this value: it must reach the GPU
    GL_CHECK("glSignalSemaphoreEXT");
  }
  void gl_wait(int i, std::uint64_t value, unsigned int buffer) override {
    const GLuint s = gl_.at(i);
    const GLuint64 v = value;
    glSemaphoreParameterui64vEXT(s, GL_TIMELINE_SEMAPHORE_VALUE_NV, &v);
    const GLuint buffers[1] = {buffer};
    glWaitSemaphoreEXT(s, buffer ? 1 : 0, buffer ? buffers : nullptr, 0, nullptr, nullptr);
    GL_CHECK("glWaitSemaphoreEXT");
  }

 private:
  void add_semaphore(const VulkanDevice& d) {
    device_ = &d;
    auto export_info = vk_struct<VkExportSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO);
    export_info.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    auto type_info = vk_struct<VkSemaphoreTypeCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
    type_info.pNext = &export_info;
    type_info.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type_info.initialValue = 0;
    auto sci = vk_struct<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
    sci.pNext = &type_info;
    VkSemaphore semaphore = VK_NULL_HANDLE;
    vk_check(d.vk.create_semaphore(d.device, &sci, nullptr, &semaphore), "vkCreateSemaphore (timeline, exportable)");
    vk_semaphores_.push_back(semaphore);
    auto export_fd = [&] {
      auto gfi = vk_struct<VkSemaphoreGetFdInfoKHR>(VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR);
      gfi.semaphore = semaphore;
      gfi.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
      int fd = -1;
      vk_check(d.vk.get_semaphore_fd(d.device, &gfi, &fd), "vkGetSemaphoreFdKHR");
      return fd;
    };

    int fd = export_fd();
    cudaExternalSemaphoreHandleDesc desc{};
    desc.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
    desc.handle.fd = fd;
    CudaSemaphore c;
    const cudaError_t err = cudaImportExternalSemaphore(&c.handle, &desc);
    if (err != cudaSuccess) {
      close(fd);
      (void)cudaGetLastError();
      throw Unavailable(std::string("cudaImportExternalSemaphore (timeline fd): ") + cudaGetErrorString(err));
    }
    cuda_.push_back(c);

    fd = export_fd();
    GL_CHECK("before the semaphore import");  // errors from earlier calls are not this one's
    GLuint s = 0;
    glCreateSemaphoresNV(1, &s);  // an object now (a generated name is none until imported)
    gl_.push_back(s);
    const GLint timeline_type = GL_SEMAPHORE_TYPE_TIMELINE_NV;
    glSemaphoreParameterivNV(s, GL_SEMAPHORE_TYPE_NV, &timeline_type);
    glImportSemaphoreFdEXT(s, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
    const GLenum e = glGetError();
    if (e != GL_NO_ERROR || !glIsSemaphoreEXT(s)) {
      close(fd);
      while (glGetError() != GL_NO_ERROR) {
      }
      throw Unavailable(std::string("glImportSemaphoreFdEXT (timeline): ") +
                        (e != GL_NO_ERROR ? gl_error_name(e) : "no semaphore made"));
    }
  }

  // Never throws: the imports first, then the Vulkan semaphores (the device stays).
  void release() {
    if (!gl_.empty()) {
      glDeleteSemaphoresEXT(static_cast<GLsizei>(gl_.size()), gl_.data());
      while (glGetError() != GL_NO_ERROR) {
      }
      gl_.clear();
    }
    for (CudaSemaphore& c : cuda_) CUDA_CHECK_PRINT(cudaDestroyExternalSemaphore(c.handle));
    cuda_.clear();
    for (VkSemaphore s : vk_semaphores_) device_->vk.destroy_semaphore(device_->device, s, nullptr);
    vk_semaphores_.clear();
  }

  const VulkanDevice* device_ = nullptr;
  std::vector<VkSemaphore> vk_semaphores_;
  std::vector<CudaSemaphore> cuda_;
  std::vector<GLuint> gl_;
};

}  // namespace

std::unique_ptr<SharedSemaphores> SharedSemaphores::create(int count, std::string* why_not) {
  try {
    return std::make_unique<VulkanSharedSemaphores>(count);
  } catch (const Unavailable& e) {
    *why_not = e.what();
  } catch (const std::exception& e) {  // a CUDA or GL error on the way
    *why_not = e.what();
  }
  return nullptr;
}

#endif  // CIRCLES_HAVE_VULKAN_HEADERS

}  // namespace circles
