#include "js/v8/v8_util.h"

#include <time.h>

#include "core/strings.h"

namespace plugline::js::v8backend {
namespace {

constexpr int kMaxStackLines = 8;

}  // namespace

std::string ToStdString(v8::Isolate* isolate, v8::Local<v8::Value> value) {
  if (value->IsString()) return StringToUtf8(isolate, value.As<v8::String>());
  v8::String::Utf8Value utf8(isolate, value);
  return *utf8 == nullptr ? std::string("<unprintable>") : std::string(*utf8, utf8.length());
}

std::string StringToUtf8(v8::Isolate* isolate, v8::Local<v8::String> string) {
  std::string out;
  int length = string->Utf8Length(isolate);
  if (length <= 0) return out;
  out.resize(static_cast<size_t>(length));
  string->WriteUtf8(isolate, out.data(), length, nullptr,
                    v8::String::NO_NULL_TERMINATION | v8::String::REPLACE_INVALID_UTF8);
  return out;
}

v8::Local<v8::String> V8String(v8::Isolate* isolate, std::string_view s) {
  return v8::String::NewFromUtf8(isolate, s.data(), v8::NewStringType::kNormal,
                                 static_cast<int>(s.size()))
      .ToLocalChecked();
}

v8::Local<v8::String> V8Name(v8::Isolate* isolate, std::string_view s) {
  return v8::String::NewFromUtf8(isolate, s.data(), v8::NewStringType::kInternalized,
                                 static_cast<int>(s.size()))
      .ToLocalChecked();
}

std::string DescribeException(v8::Isolate* isolate, v8::Local<v8::Context> context,
                              v8::Local<v8::Value> exception, v8::Local<v8::Message> message) {
  std::string where;
  // An exception thrown from C++ (an import that cannot resolve) has no script: no location.
  if (!message.IsEmpty() && !message->GetScriptResourceName()->IsUndefined()) {
    std::string file = ToStdString(isolate, message->GetScriptResourceName());
    int line = message->GetLineNumber(context).FromMaybe(0);
    int column = message->GetStartColumn(context).FromMaybe(-1) + 1;
    where = StrCat(file, ":", line, ":", column, ": ");
  }
  std::string text = ToStdString(isolate, exception);
  if (exception->IsObject()) {
    v8::TryCatch try_catch(isolate);  // a throwing `stack` getter must not leak out
    v8::Local<v8::Value> stack;
    if (exception.As<v8::Object>()->Get(context, V8Name(isolate, "stack")).ToLocal(&stack) &&
        stack->IsString()) {
      // The stack's first line repeats the message; keep the frames, a few of them.
      std::string frames = ToStdString(isolate, stack);
      size_t nl = frames.find('\n');
      if (nl != std::string::npos) {
        std::string kept;
        int count = 0;
        size_t pos = nl + 1;
        while (pos < frames.size() && count < kMaxStackLines) {
          size_t end = frames.find('\n', pos);
          if (end == std::string::npos) end = frames.size();
          StrAppend(&kept, "\n", std::string_view(frames).substr(pos, end - pos));
          pos = end + 1;
          ++count;
        }
        text += kept;
      }
    }
  }
  return StrCat(where, text);
}

void ThrowTypeError(v8::Isolate* isolate, std::string_view message) {
  isolate->ThrowException(v8::Exception::TypeError(V8String(isolate, message)));
}

void ThrowRangeError(v8::Isolate* isolate, std::string_view message) {
  isolate->ThrowException(v8::Exception::RangeError(V8String(isolate, message)));
}

int64_t MonotonicNowNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace plugline::js::v8backend
