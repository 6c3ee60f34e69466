// TextEncoder and TextDecoder (WHATWG Encoding), UTF-8 only, as native FunctionTemplates:
// installing them costs a few microseconds per context and no JS prelude.
//
//   new TextEncoder()                 .encoding "utf-8"
//     .encode(string = "")            → Uint8Array (lone surrogates become U+FFFD)
//     .encodeInto(string, uint8array) → {read, written} (read counts UTF-16 code units)
//   new TextDecoder(label = "utf-8", {fatal = false, ignoreBOM = false})
//     labels: the WHATWG labels of UTF-8 ("utf-8", "utf8", "unicode-1-1-utf-8", ...);
//     any other → RangeError
//     .encoding "utf-8", .fatal, .ignoreBOM
//     .decode(input?, {stream = false}) for an ArrayBuffer, SharedArrayBuffer, any TypedArray
//       or a DataView. Invalid bytes become U+FFFD, or throw a TypeError when fatal. With
//       stream: true an incomplete sequence at the end is kept for the next call.
//
// Memory for encode() comes from the isolate's ArrayBuffer allocator, so the module's
// ArrayBuffer limit applies (a RangeError when it is reached).
#ifndef PLUGLINE_JS_V8_TEXT_CODING_H_
#define PLUGLINE_JS_V8_TEXT_CODING_H_

#include <v8.h>

namespace plugline::js::v8backend {

void InstallTextCoding(v8::Isolate* isolate, v8::Local<v8::Context> context);

}  // namespace plugline::js::v8backend

#endif  // PLUGLINE_JS_V8_TEXT_CODING_H_
