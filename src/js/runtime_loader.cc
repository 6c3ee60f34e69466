// GetRuntime(): finds and loads libplugline-v8.so the first time JavaScript must run, and
// GetRuntime(Isolation::kProcess): finds plugline-js-worker beside it.
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/strings/str_join.h"
#include "core/fs.h"
#include "core/strings.h"
#include "js/process_runtime.h"
#include "js/runtime.h"

namespace plugline::js {
namespace {

std::atomic<bool> g_loaded{false};

#if PLUGLINE_WITH_V8
constexpr const char* kBackendFile = "libplugline-v8.so";
constexpr const char* kWorkerFile = "plugline-js-worker";
constexpr const char* kNodeWorkerFile = "plugline-node-worker";

std::string DirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// The file that contains this code: libplugline.so, or the executable that links
// plugline_core statically (the CLI, the tests, plugline-js-worker).
std::string SelfPath() {
  Dl_info info;
  auto anchor = static_cast<absl::StatusOr<Runtime*> (*)()>(&GetRuntime);
  if (::dladdr(reinterpret_cast<void*>(anchor), &info) == 0 || info.dli_fname == nullptr) {
    return "";
  }
  std::string self = info.dli_fname;
  if (self.find('/') == std::string::npos) {
    // The main executable reports a bare name; /proc/self/exe has the real path.
    char buf[4096];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) self.assign(buf, static_cast<size_t>(n));
  }
  return self;
}

// When the process already carries another V8 (inside Node.js), the backend's libnode108 must
// bind to its own V8 symbols, not the process's: RTLD_DEEPBIND puts the module's own lookup
// scope first. Without it the first isolate aborts with "free(): invalid pointer".
int DlopenFlags() {
  int flags = RTLD_NOW | RTLD_LOCAL;
  const char* env = std::getenv("PLUGLINE_JS_DEEPBIND");
  bool deepbind =
      env != nullptr && *env != '\0'
          ? env[0] == '1'
          : ::dlsym(RTLD_DEFAULT, "_ZN2v87Isolate3NewERKNS0_12CreateParamsE") != nullptr;
  if (deepbind) flags |= RTLD_DEEPBIND;
  return flags;
}

#endif  // PLUGLINE_WITH_V8

absl::StatusOr<Runtime*> LoadBackend() {
#if !PLUGLINE_WITH_V8
  return absl::UnavailableError(
      "JS plugins are unavailable: plugline was built without V8 (PLUGLINE_WITH_V8=OFF)");
#else
  std::vector<std::string> tried;
  for (const std::string& path : BackendDirCandidates(kBackendFile, "PLUGLINE_JS_BACKEND")) {
    if (!core::PathExists(path)) {
      tried.push_back(StrCat(path, " (no such file)"));
      continue;
    }
    void* handle = ::dlopen(path.c_str(), DlopenFlags());
    if (handle == nullptr) {
      const char* why = ::dlerror();
      tried.push_back(StrCat(path, " (", why ? why : "dlopen failed", ")"));
      continue;
    }
    auto create = reinterpret_cast<plugline_js_backend_create_fn>(
        ::dlsym(handle, "plugline_js_backend_create"));
    if (create == nullptr) {
      tried.push_back(StrCat(path, " (no plugline_js_backend_create symbol)"));
      continue;
    }
    const char* error = nullptr;
    Runtime* runtime = create(kBackendInterfaceVersion, &error);
    if (runtime == nullptr) {
      tried.push_back(StrCat(path, " (", error ? error : "backend refused to start", ")"));
      continue;
    }
    g_loaded.store(true);
    return runtime;  // lives until the process exits, like the module
  }
  return absl::UnavailableError(
      StrCat("JS plugins are unavailable: cannot load the V8 backend; tried ",
             absl::StrJoin(tried, "; ")));
#endif
}

absl::StatusOr<Runtime*> LoadProcessRuntime() {
#if !PLUGLINE_WITH_V8
  return absl::UnavailableError(
      "JS plugins are unavailable: plugline was built without V8 (PLUGLINE_WITH_V8=OFF), so "
      "there is no JS worker for process isolation either");
#else
  std::vector<std::string> tried;
  for (const std::string& path : BackendDirCandidates(kWorkerFile, "PLUGLINE_JS_WORKER")) {
    if (::access(path.c_str(), X_OK) == 0) {
      return NewProcessRuntime(path).release();  // lives until the process exits
    }
    tried.push_back(StrCat(path, core::PathExists(path) ? " (not executable)" : " (no such file)"));
  }
  return absl::UnavailableError(
      StrCat("JS plugins are unavailable in process isolation: cannot find the JS worker; tried ",
             absl::StrJoin(tried, "; ")));
#endif
}

absl::StatusOr<Runtime*> LoadNodeRuntime() {
#if !PLUGLINE_WITH_V8
  return absl::UnavailableError(
      "the node runtime is unavailable: plugline was built without V8 (PLUGLINE_WITH_V8=OFF), "
      "and with it without libnode");
#else
  std::vector<std::string> tried;
  for (const std::string& path : BackendDirCandidates(kNodeWorkerFile, "PLUGLINE_NODE_WORKER")) {
    if (::access(path.c_str(), X_OK) == 0) {
      return NewProcessRuntime(path, WorkerKind::kNode).release();  // lives until exit
    }
    tried.push_back(StrCat(path, core::PathExists(path) ? " (not executable)" : " (no such file)"));
  }
  return absl::UnavailableError(
      StrCat("the node runtime is unavailable: cannot find plugline-node-worker; tried ",
             absl::StrJoin(tried, "; ")));
#endif
}

}  // namespace

std::vector<std::string> BackendDirCandidates(std::string_view file_name,
                                              const char* override_env) {
  std::vector<std::string> paths;
#if PLUGLINE_WITH_V8
  if (const char* env = std::getenv(override_env); env != nullptr && *env != '\0') {
    paths.emplace_back(env);
    return paths;  // an explicit choice is the only candidate
  }
  if (std::string self = SelfPath(); !self.empty()) {
    std::string dir = DirOf(self);
    // libplugline.so in <libdir>: the backend directory is beside it.
    paths.push_back(StrCat(dir, "/", PLUGLINE_BACKEND_SUBDIR, "/", file_name));
    // plugline-js-worker, which lives in the backend directory itself.
    if (std::string_view(dir).ends_with(StrCat("/", PLUGLINE_BACKEND_SUBDIR))) {
      paths.push_back(StrCat(dir, "/", file_name));
    }
    // Executables in bin/ (the build tree's and an installed CLI).
    paths.push_back(StrCat(dir, "/../lib/", PLUGLINE_BACKEND_SUBDIR, "/", file_name));
    // An installed CLI in <prefix>/bin with a multiarch libdir (lib/x86_64-linux-gnu).
    if (std::string_view(PLUGLINE_INSTALL_LIBDIR_RELATIVE) != "lib") {
      paths.push_back(StrCat(dir, "/../", PLUGLINE_INSTALL_LIBDIR_RELATIVE, "/",
                             PLUGLINE_BACKEND_SUBDIR, "/", file_name));
    }
  }
  paths.push_back(StrCat(PLUGLINE_INSTALL_LIBDIR, "/", PLUGLINE_BACKEND_SUBDIR, "/", file_name));
#else
  (void)file_name;
  (void)override_env;
#endif
  return paths;
}

absl::StatusOr<Runtime*> GetRuntime() {
  static absl::once_flag once;
  static absl::StatusOr<Runtime*>* result = nullptr;
  absl::call_once(once, [] { result = new absl::StatusOr<Runtime*>(LoadBackend()); });
  return *result;
}

absl::StatusOr<Runtime*> GetRuntime(Isolation isolation) {
  if (isolation == Isolation::kInProcess) return GetRuntime();
  static absl::once_flag once;
  static absl::StatusOr<Runtime*>* result = nullptr;
  absl::call_once(once, [] { result = new absl::StatusOr<Runtime*>(LoadProcessRuntime()); });
  return *result;
}

absl::StatusOr<Runtime*> GetNodeRuntime() {
  static absl::once_flag once;
  static absl::StatusOr<Runtime*>* result = nullptr;
  absl::call_once(once, [] { result = new absl::StatusOr<Runtime*>(LoadNodeRuntime()); });
  return *result;
}

bool RuntimeLoaded() { return g_loaded.load(); }

}  // namespace plugline::js
