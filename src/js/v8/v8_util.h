// Small helpers shared by the files of the V8 backend. Internal to libplugline-v8.so.
#ifndef PLUGLINE_JS_V8_V8_UTIL_H_
#define PLUGLINE_JS_V8_V8_UTIL_H_

#include <v8.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace plugline::js::v8backend {

// A JS value as UTF-8 ("<unprintable>" when it cannot be converted).
std::string ToStdString(v8::Isolate* isolate, v8::Local<v8::Value> value);

// A JS string as UTF-8 in one copy (no intermediate buffer); lone surrogates become U+FFFD.
std::string StringToUtf8(v8::Isolate* isolate, v8::Local<v8::String> string);

// A UTF-8 literal or short text as a JS string. Aborts when V8 cannot allocate it, so use it
// only for text whose size the backend controls (names, messages).
v8::Local<v8::String> V8String(v8::Isolate* isolate, std::string_view s);

// Same, internalized: for property names used on every call.
v8::Local<v8::String> V8Name(v8::Isolate* isolate, std::string_view s);

// "file:line:col: Uncaught TypeError: x is not a function" plus the first stack frames.
// `message` may be empty.
std::string DescribeException(v8::Isolate* isolate, v8::Local<v8::Context> context,
                              v8::Local<v8::Value> exception, v8::Local<v8::Message> message);

// Throws a JS exception of the given kind from a native callback.
void ThrowTypeError(v8::Isolate* isolate, std::string_view message);
void ThrowRangeError(v8::Isolate* isolate, std::string_view message);

// Nanoseconds on the monotonic clock: the deadlines of calls and timers.
int64_t MonotonicNowNs();

}  // namespace plugline::js::v8backend

#endif  // PLUGLINE_JS_V8_V8_UTIL_H_
