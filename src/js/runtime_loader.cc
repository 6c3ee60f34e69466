// GetRuntime(): finds and loads libplugline-v8.so the first time JavaScript must run.
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/strings/str_cat.h"
#include "core/strings.h"
#include "absl/strings/str_join.h"
#include "core/fs.h"
#include "js/runtime.h"

namespace plugline::js {
namespace {

std::atomic<bool> g_loaded{false};

#if PLUGLINE_WITH_V8
constexpr const char* kBackendFile = "libplugline-v8.so";

std::string DirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// Candidate paths, most specific first.
std::vector<std::string> Candidates() {
  std::vector<std::string> paths;
  if (const char* env = std::getenv("PLUGLINE_JS_BACKEND"); env != nullptr && *env != '\0') {
    paths.emplace_back(env);
    return paths;  // an explicit choice is the only candidate
  }
  Dl_info info;
  if (::dladdr(reinterpret_cast<void*>(&GetRuntime), &info) != 0 && info.dli_fname != nullptr) {
    std::string self = info.dli_fname;
    if (self.find('/') == std::string::npos) {
      // The main executable reports a bare name; /proc/self/exe has the real path.
      char buf[4096];
      ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
      if (n > 0) self.assign(buf, static_cast<size_t>(n));
    }
    std::string dir = DirOf(self);
    paths.push_back(StrCat(dir, "/", PLUGLINE_BACKEND_SUBDIR, "/", kBackendFile));
    paths.push_back(StrCat(dir, "/../lib/", PLUGLINE_BACKEND_SUBDIR, "/", kBackendFile));
    // An installed CLI in <prefix>/bin with a multiarch libdir (lib/x86_64-linux-gnu).
    if (std::string_view(PLUGLINE_INSTALL_LIBDIR_RELATIVE) != "lib") {
      paths.push_back(StrCat(dir, "/../", PLUGLINE_INSTALL_LIBDIR_RELATIVE, "/",
                             PLUGLINE_BACKEND_SUBDIR, "/", kBackendFile));
    }
  }
  paths.push_back(StrCat(PLUGLINE_INSTALL_LIBDIR, "/", PLUGLINE_BACKEND_SUBDIR, "/",
                               kBackendFile));
  return paths;
}

// When the process already carries another V8 (inside Node.js), the backend's libnode108 must
// bind to its own V8 symbols, not the process's: RTLD_DEEPBIND puts the module's own lookup
// scope first. Without it the first isolate aborts with "free(): invalid pointer".
int DlopenFlags() {
  int flags = RTLD_NOW | RTLD_LOCAL;
  const char* env = std::getenv("PLUGLINE_JS_DEEPBIND");
  bool deepbind = env != nullptr && *env != '\0'
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
  for (const std::string& path : Candidates()) {
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
  return absl::UnavailableError(StrCat("JS plugins are unavailable: cannot load the V8 backend; tried ",
                                             absl::StrJoin(tried, "; ")));
#endif
}

}  // namespace

absl::StatusOr<Runtime*> GetRuntime() {
  static absl::once_flag once;
  static absl::StatusOr<Runtime*>* result = nullptr;
  absl::call_once(once, [] { result = new absl::StatusOr<Runtime*>(LoadBackend()); });
  return *result;
}

bool RuntimeLoaded() { return g_loaded.load(); }

}  // namespace plugline::js
