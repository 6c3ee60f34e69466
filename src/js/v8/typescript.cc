#include "js/v8/typescript.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <v8.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/strings.h"
#include "js/v8/code_cache.h"
#include "js/v8/sucrase_bundle.h"
#include "js/v8/v8_util.h"

namespace plugline::js::v8backend {
namespace {

// sucrase's options, part of every cache key. "typescript" alone: no "imports" transform, so
// ES module syntax stays ES modules; disableESTransforms leaves modern syntax (class fields,
// optional chaining) to V8; unused imports are dropped as tsc does by default (an import used
// only as a type must not reach V8, which would look for a missing export); a dynamic
// import() stays as written.
constexpr std::string_view kTransformOptions =
    R"({transforms: ["typescript"], disableESTransforms: true, keepUnusedImports: false, )"
    R"(preserveDynamicImport: true})";

// Bump when the cache file layout changes.
constexpr std::string_view kCacheFormat = "plugline-ts-cache 1";
constexpr std::string_view kTrailer = "\n//# plugline-ts sha256=";
constexpr size_t kStripperHeapLimit = 256u << 20;
constexpr size_t kStripperHeapHeadroom = 64u << 20;

std::atomic<int> g_isolates_created{0};

std::string DirOf(const std::string& path) {
  size_t end = path.find_last_not_of('/');
  if (end == std::string::npos) return "/";
  size_t slash = path.rfind('/', end);
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}


// The stripped code stored in a cache file, or nullopt (with *why) when the trailer is
// missing or does not match the code.
std::optional<std::string> DecodeCacheFile(std::string data, std::string* why) {
  size_t at = data.rfind(kTrailer);
  if (at == std::string::npos) {
    *why = "no trailer";
    return std::nullopt;
  }
  std::string sum = data.substr(at + kTrailer.size());
  if (!sum.empty() && sum.back() == '\n') sum.pop_back();
  data.resize(at);
  if (sum != Sha256Hex(data)) {
    *why = "checksum mismatch";
    return std::nullopt;
  }
  return data;
}

// One isolate running the sucrase bundle; used under g_mu only.
class Stripper {
 public:
  ~Stripper() { Discard(); }

  absl::StatusOr<std::string> Strip(const std::string& path, std::string_view source);

 private:
  absl::Status Start();
  void Discard();
  static size_t NearHeapLimit(void* data, size_t current, size_t initial);

  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator_;
  v8::Isolate* isolate_ = nullptr;
  v8::Global<v8::Context> context_;
  v8::Global<v8::Function> strip_;
  std::atomic<bool> heap_limit_hit_{false};
};

size_t Stripper::NearHeapLimit(void* data, size_t current, size_t /*initial*/) {
  auto* self = static_cast<Stripper*>(data);
  self->heap_limit_hit_.store(true);
  self->isolate_->TerminateExecution();
  return current + kStripperHeapHeadroom;  // room to unwind; the isolate is discarded after
}

absl::Status Stripper::Start() {
  allocator_.reset(v8::ArrayBuffer::Allocator::NewDefaultAllocator());
  v8::Isolate::CreateParams params;
  params.array_buffer_allocator = allocator_.get();
  params.constraints.ConfigureDefaultsFromHeapSize(0, kStripperHeapLimit);
  isolate_ = v8::Isolate::New(params);
  g_isolates_created.fetch_add(1);
  heap_limit_hit_.store(false);
  isolate_->AddNearHeapLimitCallback(&Stripper::NearHeapLimit, this);

  v8::Locker locker(isolate_);
  v8::Isolate::Scope isolate_scope(isolate_);
  v8::HandleScope handles(isolate_);
  v8::Local<v8::Context> context = v8::Context::New(isolate_);
  v8::Context::Scope context_scope(context);
  context_.Reset(isolate_, context);
  // The bundle defines globalThis.sucrase; the function below is what each file goes through.
  // A sucrase error carries `loc` {line, column}, both 1-based.
  std::string program =
      StrCat(std::string_view(kSucraseBundle, kSucraseBundleSize),
             "\n;(function (code, filePath) {\n  const options = ", kTransformOptions, ";\n",
             R"js(  options.filePath = filePath;
  try {
    return {code: globalThis.sucrase.transform(code, options).code};
  } catch (e) {
    const loc = e && e.loc;
    return {error: String(e && e.message !== undefined ? e.message : e),
            line: loc ? loc.line : 0, column: loc ? loc.column : 0};
  }
}))js");
  v8::TryCatch try_catch(isolate_);
  v8::ScriptOrigin origin(isolate_, V8String(isolate_, "plugline:sucrase"));
  v8::Local<v8::Script> script;
  v8::Local<v8::Value> result;
  if (!v8::Script::Compile(context, V8String(isolate_, program), &origin).ToLocal(&script) ||
      !script->Run(context).ToLocal(&result) || !result->IsFunction()) {
    std::string why =
        try_catch.HasCaught()
            ? DescribeException(isolate_, context, try_catch.Exception(), try_catch.Message())
            : "the bundle did not produce a function";
    return absl::InternalError(StrCat("cannot start the TypeScript stripper: ", why));
  }
  strip_.Reset(isolate_, result.As<v8::Function>());
  return absl::OkStatus();
}

void Stripper::Discard() {
  if (isolate_ == nullptr) return;
  {
    v8::Locker locker(isolate_);
    v8::Isolate::Scope isolate_scope(isolate_);
    strip_.Reset();
    context_.Reset();
  }
  isolate_->Dispose();
  isolate_ = nullptr;
  allocator_.reset();
}

absl::StatusOr<std::string> Stripper::Strip(const std::string& path, std::string_view source) {
  if (source.size() > static_cast<size_t>(v8::String::kMaxLength)) {
    return absl::ResourceExhaustedError(StrCat(path, ": file too large"));
  }
  if (isolate_ == nullptr) {
    absl::Status started = Start();
    if (!started.ok()) {
      Discard();
      return started;
    }
  }
  absl::StatusOr<std::string> out;
  {
    v8::Locker locker(isolate_);
    v8::Isolate::Scope isolate_scope(isolate_);
    v8::HandleScope handles(isolate_);
    v8::Local<v8::Context> context = context_.Get(isolate_);
    v8::Context::Scope context_scope(context);
    v8::TryCatch try_catch(isolate_);
    v8::Local<v8::String> code;
    if (!v8::String::NewFromUtf8(isolate_, source.data(), v8::NewStringType::kNormal,
                                 static_cast<int>(source.size()))
             .ToLocal(&code)) {
      return absl::ResourceExhaustedError(StrCat(path, ": file too large"));
    }
    v8::Local<v8::Value> args[] = {code, V8String(isolate_, path)};
    v8::Local<v8::Value> result;
    bool ran =
        strip_.Get(isolate_)->Call(context, v8::Undefined(isolate_), 2, args).ToLocal(&result) &&
        result->IsObject();
    if (heap_limit_hit_.load()) {
      out = absl::ResourceExhaustedError(
          StrCat(path, ": stripping TypeScript types exceeded the stripper's heap limit of ",
                 kStripperHeapLimit >> 20, " MiB"));
    } else if (!ran) {
      out = absl::InternalError(StrCat(
          path, ": the TypeScript stripper failed: ",
          try_catch.HasCaught()
              ? DescribeException(isolate_, context, try_catch.Exception(), try_catch.Message())
              : "no result"));
    } else {
      v8::Local<v8::Object> object = result.As<v8::Object>();
      auto field = [&](const char* name) {
        v8::Local<v8::Value> value;
        if (!object->Get(context, V8Name(isolate_, name)).ToLocal(&value)) {
          value = v8::Undefined(isolate_);
        }
        return value;
      };
      v8::Local<v8::Value> stripped = field("code");
      if (stripped->IsString()) {
        out = StringToUtf8(isolate_, stripped.As<v8::String>());
      } else {
        std::string message = ToStdString(isolate_, field("error"));
        int line = field("line")->Int32Value(context).FromMaybe(0);
        int column = field("column")->Int32Value(context).FromMaybe(0);
        // sucrase says "Error transforming <path>: Unexpected token (3:7)"; keep the middle.
        std::string prefix = StrCat("Error transforming ", path, ": ");
        if (message.starts_with(prefix)) message.erase(0, prefix.size());
        std::string suffix = StrCat(" (", line, ":", column, ")");
        if (message.ends_with(suffix)) message.resize(message.size() - suffix.size());
        out = line > 0
                  ? absl::UnknownError(
                        StrCat(path, ":", line, ":", column, ": SyntaxError: ", message))
                  : absl::UnknownError(StrCat(path, ": cannot strip TypeScript types: ", message));
      }
    }
    isolate_->CancelTerminateExecution();
  }
  if (heap_limit_hit_.load()) Discard();
  return out;
}

absl::Mutex g_mu;
Stripper* g_stripper ABSL_GUARDED_BY(g_mu) = nullptr;  // never freed: process lifetime

}  // namespace

bool IsTypeScriptPath(std::string_view path) {
  return path.ends_with(".ts") || path.ends_with(".mts");
}

std::string_view SucraseVersion() { return kSucraseVersion; }

int StripperIsolatesCreated() { return g_isolates_created.load(); }

std::string TypeScriptCacheRoot(const std::string& code_cache_dir) {
  return code_cache_dir.empty() ? std::string() : DirOf(code_cache_dir);
}

absl::StatusOr<std::string> StripTypes(const std::string& path, std::string_view source,
                                       const std::string& cache_dir, StripReport* report) {
  StripReport ignored;
  if (report == nullptr) report = &ignored;
  if (kSucraseBundleSize == 0) {
    return absl::UnavailableError(
        StrCat("TypeScript support was not built: ", kSucraseUnavailableReason));
  }
  std::string cache_dir_ts;
  if (!cache_dir.empty()) {
    cache_dir_ts = StrCat(cache_dir, "/ts");
    report->cache_path = StrCat(cache_dir_ts, "/",
                                Sha256Hex(StrCat(kCacheFormat, "\nsucrase ", kSucraseVersion, "\n",
                                                 kTransformOptions, "\n", source)),
                                ".js");
    std::optional<std::string> data = ReadFileIfAny(report->cache_path, &report->cache_problem);
    if (data) {
      std::optional<std::string> code = DecodeCacheFile(*std::move(data), &report->cache_problem);
      if (code) {
        report->cache_hit = true;
        return *std::move(code);
      }
    }
  }

  absl::StatusOr<std::string> code;
  {
    int64_t start = MonotonicNowNs();
    absl::MutexLock lock(&g_mu);
    if (g_stripper == nullptr) g_stripper = new Stripper();
    code = g_stripper->Strip(path, source);
    report->strip_ns = MonotonicNowNs() - start;
  }
  if (!code.ok() || cache_dir_ts.empty()) return code;
  absl::Status written = MakeDirs(cache_dir_ts);
  if (written.ok()) {
    written = WriteFileAtomic(report->cache_path,
                              {*code, kTrailer, Sha256Hex(*code), std::string_view("\n")});
  }
  if (!written.ok()) {
    if (!report->cache_problem.empty()) report->cache_problem += "; ";
    report->cache_problem += StrCat("not written: ", written.message());
  }
  return code;
}

absl::StatusOr<std::string> PrepareModuleSource(
    const std::string& path, std::string source, const std::string& code_cache_dir,
    const std::function<void(std::string_view message)>& debug_log) {
  if (!IsTypeScriptPath(path)) return source;
  StripReport report;
  absl::StatusOr<std::string> code =
      StripTypes(path, source, TypeScriptCacheRoot(code_cache_dir), &report);
  if (debug_log && code.ok()) {
    char ms[32];
    snprintf(ms, sizeof ms, "%.1f", static_cast<double>(report.strip_ns) / 1e6);
    std::string how =
        report.cache_hit
            ? StrCat("from cache ", report.cache_path)
            : StrCat("by sucrase ", kSucraseVersion, " in ", ms, " ms",
                     report.cache_path.empty() ? "" : StrCat(", cached at ", report.cache_path));
    if (!report.cache_problem.empty()) StrAppend(&how, " (cache: ", report.cache_problem, ")");
    debug_log(StrCat("typescript: types of ", path, " stripped ", how,
                     "; stripper isolates created in this process: ", StripperIsolatesCreated()));
  }
  return code;
}

}  // namespace plugline::js::v8backend
