#include "js/v8/text_coding.h"

#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "core/strings.h"
#include "js/v8/v8_util.h"

namespace plugline::js::v8backend {
namespace {

// TextDecoder state lives in two internal fields of the JS object, as small integers, so no
// C++ object has to follow the JS object's lifetime.
enum DecoderField { kFlagsField = 0, kPendingField = 1, kDecoderFieldCount = 2 };
enum DecoderFlag : int32_t {
  kFatal = 1,
  kIgnoreBom = 2,
  kBomSeen = 4,     // the start of the stream has been decoded (a BOM there is gone)
  kDoNotFlush = 8,  // the previous decode() had {stream: true}
};
// kPendingField: up to 3 bytes of an incomplete sequence (bits 0-23) and their count (24-25).

// On-heap typed arrays (V8 keeps those of ≤ 64 bytes inside the JS heap) are copied here
// rather than moved out to a backing store by Buffer().
constexpr size_t kSmallView = 64;

bool IsWhatwgUtf8Label(std::string label) {
  const char* kSpace = "\t\n\f\r ";
  size_t begin = label.find_first_not_of(kSpace);
  if (begin == std::string::npos) return false;
  size_t end = label.find_last_not_of(kSpace);
  label = label.substr(begin, end - begin + 1);
  for (char& c : label) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  for (const char* utf8 : {"unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8",
                           "x-unicode20utf8"}) {
    if (label == utf8) return true;
  }
  return false;
}

// Reads options[name] as a boolean. A dictionary argument may be undefined or null (all
// defaults) or an object; anything else is a TypeError. False when an exception is pending.
bool ReadBoolOption(v8::Isolate* isolate, v8::Local<v8::Context> context,
                    v8::Local<v8::Value> options, const char* name, bool* out) {
  *out = false;
  if (options->IsNullOrUndefined()) return true;
  if (!options->IsObject()) {
    ThrowTypeError(isolate, "the options argument must be an object");
    return false;
  }
  v8::Local<v8::Value> value;
  if (!options.As<v8::Object>()->Get(context, V8Name(isolate, name)).ToLocal(&value)) {
    return false;
  }
  *out = value->BooleanValue(isolate);
  return true;
}

// How many bytes at the end of `bytes` are the start of a valid UTF-8 sequence that the next
// chunk may complete (0-3).
size_t IncompleteTail(const uint8_t* bytes, size_t size) {
  for (size_t back = 1; back <= 3 && back <= size; ++back) {
    uint8_t lead = bytes[size - back];
    if ((lead & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    size_t need = lead >= 0xC2 && lead <= 0xDF   ? 2
                  : lead >= 0xE0 && lead <= 0xEF ? 3
                  : lead >= 0xF0 && lead <= 0xF4 ? 4
                                                 : 0;
    if (need <= back) return 0;  // ASCII, an invalid lead, or a complete sequence
    if (back >= 2) {
      // The second byte has a narrower range after some leads (no overlongs, surrogates or
      // code points past U+10FFFF); an invalid prefix is decoded now, as U+FFFD.
      uint8_t second = bytes[size - back + 1];
      uint8_t low = lead == 0xE0 ? 0xA0 : lead == 0xF0 ? 0x90 : 0x80;
      uint8_t high = lead == 0xED ? 0x9F : lead == 0xF4 ? 0x8F : 0xBF;
      if (second < low || second > high) return 0;
    }
    return back;
  }
  return 0;
}

// The bytes of a BufferSource. False (and a TypeError thrown) for anything else.
bool GetBytes(v8::Isolate* isolate, v8::Local<v8::Value> input, uint8_t (&small)[kSmallView],
              const uint8_t** data, size_t* size) {
  *data = nullptr;
  *size = 0;
  if (input->IsArrayBufferView()) {
    v8::Local<v8::ArrayBufferView> view = input.As<v8::ArrayBufferView>();
    *size = view->ByteLength();
    if (*size == 0) return true;
    if (!view->HasBuffer() && *size <= kSmallView) {
      view->CopyContents(small, *size);
      *data = small;
    } else {
      *data = static_cast<const uint8_t*>(view->Buffer()->Data()) + view->ByteOffset();
    }
    return true;
  }
  if (input->IsArrayBuffer()) {
    v8::Local<v8::ArrayBuffer> buffer = input.As<v8::ArrayBuffer>();
    *size = buffer->ByteLength();
    *data = static_cast<const uint8_t*>(buffer->Data());
    return true;
  }
  if (input->IsSharedArrayBuffer()) {
    v8::Local<v8::SharedArrayBuffer> buffer = input.As<v8::SharedArrayBuffer>();
    *size = buffer->ByteLength();
    *data = static_cast<const uint8_t*>(buffer->Data());
    return true;
  }
  ThrowTypeError(
      isolate, "TextDecoder.decode: the input must be an ArrayBuffer, a TypedArray or a DataView");
  return false;
}

// ---- TextEncoder ---------------------------------------------------------------------------

void EncoderConstruct(const v8::FunctionCallbackInfo<v8::Value>& info) {
  if (!info.IsConstructCall()) {
    ThrowTypeError(info.GetIsolate(), "TextEncoder: use `new TextEncoder()`");
  }
}

void EncodingGetter(const v8::FunctionCallbackInfo<v8::Value>& info) {
  info.GetReturnValue().Set(V8Name(info.GetIsolate(), "utf-8"));
}

// A JS string from any value (undefined: ""), as the IDL's USVString conversion does.
bool ToStringArg(const v8::FunctionCallbackInfo<v8::Value>& info, int index,
                 v8::Local<v8::String>* out) {
  if (info.Length() <= index || info[index]->IsUndefined()) {
    *out = v8::String::Empty(info.GetIsolate());
    return true;
  }
  return info[index]->ToString(info.GetIsolate()->GetCurrentContext()).ToLocal(out);
}

void Encode(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::String> input;
  if (!ToStringArg(info, 0, &input)) return;
  int length = input->Utf8Length(isolate);
  v8::Local<v8::ArrayBuffer> buffer;
  if (length == 0) {
    buffer = v8::ArrayBuffer::New(isolate, 0);
  } else {
    // Allocated here rather than by ArrayBuffer::New, which aborts the process when the
    // allocator refuses; the module's ArrayBuffer cap then surfaces as a RangeError.
    v8::ArrayBuffer::Allocator* allocator = isolate->GetArrayBufferAllocator();
    void* data = allocator->AllocateUninitialized(static_cast<size_t>(length));
    if (data == nullptr) {
      ThrowRangeError(isolate, "TextEncoder.encode: out of ArrayBuffer memory");
      return;
    }
    input->WriteUtf8(isolate, static_cast<char*>(data), length, nullptr,
                     v8::String::NO_NULL_TERMINATION | v8::String::REPLACE_INVALID_UTF8);
    std::unique_ptr<v8::BackingStore> store = v8::ArrayBuffer::NewBackingStore(
        data, static_cast<size_t>(length),
        [](void* bytes, size_t size, void* deleter_data) {
          static_cast<v8::ArrayBuffer::Allocator*>(deleter_data)->Free(bytes, size);
        },
        allocator);
    buffer = v8::ArrayBuffer::New(isolate, std::move(store));
  }
  info.GetReturnValue().Set(v8::Uint8Array::New(buffer, 0, static_cast<size_t>(length)));
}

void EncodeInto(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  v8::Local<v8::String> input;
  if (!ToStringArg(info, 0, &input)) return;
  if (info.Length() < 2 || !info[1]->IsUint8Array()) {
    ThrowTypeError(isolate, "TextEncoder.encodeInto: the destination must be a Uint8Array");
    return;
  }
  v8::Local<v8::Uint8Array> destination = info[1].As<v8::Uint8Array>();
  size_t capacity = destination->ByteLength();
  int read = 0;
  int written = 0;
  if (capacity > 0 && input->Length() > 0) {
    char* data = static_cast<char*>(destination->Buffer()->Data()) + destination->ByteOffset();
    int limit = static_cast<int>(std::min<size_t>(capacity, std::numeric_limits<int>::max()));
    written = input->WriteUtf8(isolate, data, limit, &read,
                               v8::String::NO_NULL_TERMINATION | v8::String::REPLACE_INVALID_UTF8);
  }
  v8::Local<v8::Object> result = v8::Object::New(isolate);
  result->CreateDataProperty(context, V8Name(isolate, "read"), v8::Integer::New(isolate, read))
      .Check();
  result
      ->CreateDataProperty(context, V8Name(isolate, "written"), v8::Integer::New(isolate, written))
      .Check();
  info.GetReturnValue().Set(result);
}

// ---- TextDecoder ---------------------------------------------------------------------------

int32_t GetField(v8::Local<v8::Object> self, int field) {
  v8::Local<v8::Value> value = self->GetInternalField(field);
  return value->IsInt32() ? value.As<v8::Int32>()->Value() : 0;
}

void SetField(v8::Isolate* isolate, v8::Local<v8::Object> self, int field, int32_t value) {
  self->SetInternalField(field, v8::Integer::New(isolate, value));
}

void DecoderConstruct(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  if (!info.IsConstructCall()) {
    ThrowTypeError(isolate, "TextDecoder: use `new TextDecoder()`");
    return;
  }
  if (info.Length() > 0 && !info[0]->IsUndefined()) {
    v8::Local<v8::String> label;
    if (!info[0]->ToString(context).ToLocal(&label)) return;
    std::string text = StringToUtf8(isolate, label);
    if (!IsWhatwgUtf8Label(text)) {
      ThrowRangeError(isolate, StrCat("TextDecoder: the encoding \"", text,
                                      "\" is not supported (only UTF-8 is)"));
      return;
    }
  }
  v8::Local<v8::Value> options =
      info.Length() > 1 ? info[1] : v8::Undefined(isolate).As<v8::Value>();
  bool fatal = false;
  bool ignore_bom = false;
  if (!ReadBoolOption(isolate, context, options, "fatal", &fatal) ||
      !ReadBoolOption(isolate, context, options, "ignoreBOM", &ignore_bom)) {
    return;
  }
  SetField(isolate, info.This(), kFlagsField, (fatal ? kFatal : 0) | (ignore_bom ? kIgnoreBom : 0));
  SetField(isolate, info.This(), kPendingField, 0);
}

void FatalGetter(const v8::FunctionCallbackInfo<v8::Value>& info) {
  info.GetReturnValue().Set((GetField(info.This(), kFlagsField) & kFatal) != 0);
}

void IgnoreBomGetter(const v8::FunctionCallbackInfo<v8::Value>& info) {
  info.GetReturnValue().Set((GetField(info.This(), kFlagsField) & kIgnoreBom) != 0);
}

void Decode(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  v8::Local<v8::Object> self = info.This();
  int32_t flags = GetField(self, kFlagsField);
  int32_t pending = GetField(self, kPendingField);

  bool stream = false;
  v8::Local<v8::Value> options =
      info.Length() > 1 ? info[1] : v8::Undefined(isolate).As<v8::Value>();
  if (!ReadBoolOption(isolate, context, options, "stream", &stream)) return;
  uint8_t small[kSmallView];
  const uint8_t* data = nullptr;
  size_t size = 0;
  if (info.Length() > 0 && !info[0]->IsUndefined() &&
      !GetBytes(isolate, info[0], small, &data, &size)) {
    return;
  }
  if ((flags & kDoNotFlush) == 0) {  // a new stream
    flags &= ~kBomSeen;
    pending = 0;
  }
  // Bytes held back by the previous call go in front of this input.
  std::string joined;
  if (size_t held = static_cast<size_t>(pending) >> 24; held > 0) {
    joined.reserve(held + size);
    for (size_t i = 0; i < held; ++i) joined += static_cast<char>((pending >> (8 * i)) & 0xff);
    if (size > 0) joined.append(reinterpret_cast<const char*>(data), size);
    data = reinterpret_cast<const uint8_t*>(joined.data());
    size = joined.size();
  }
  pending = 0;
  // An incomplete sequence at the end waits for the next chunk when streaming.
  size_t tail = stream ? IncompleteTail(data, size) : 0;
  // So does a chunk too short to tell whether it starts with a BOM.
  static const uint8_t kBom[3] = {0xEF, 0xBB, 0xBF};
  if ((flags & (kIgnoreBom | kBomSeen)) == 0 && stream && size < 3 &&
      memcmp(data == nullptr ? kBom : data, kBom, size) == 0) {
    tail = size;
  }
  size_t complete = size - tail;
  for (size_t i = 0; i < tail; ++i) {
    pending |= static_cast<int32_t>(data[complete + i]) << (8 * i);
  }
  pending |= static_cast<int32_t>(tail) << 24;

  const uint8_t* text = data;
  size_t text_size = complete;
  if ((flags & (kIgnoreBom | kBomSeen)) == 0 && text_size > 0) {
    if (text_size >= 3 && memcmp(text, kBom, 3) == 0) {
      text += 3;
      text_size -= 3;
    }
    flags |= kBomSeen;
  }
  if ((flags & kFatal) != 0 &&
      !simdjson::validate_utf8(reinterpret_cast<const char*>(text), text_size)) {
    // The stream is abandoned: the next call starts a new one.
    SetField(isolate, self, kFlagsField, flags & (kFatal | kIgnoreBom));
    SetField(isolate, self, kPendingField, 0);
    ThrowTypeError(isolate, "TextDecoder.decode: the data is not valid UTF-8");
    return;
  }
  v8::Local<v8::String> result;
  if (text_size == 0) {
    result = v8::String::Empty(isolate);
  } else if (text_size > static_cast<size_t>(std::numeric_limits<int>::max()) ||
             !v8::String::NewFromUtf8(isolate, reinterpret_cast<const char*>(text),
                                      v8::NewStringType::kNormal, static_cast<int>(text_size))
                  .ToLocal(&result)) {
    ThrowRangeError(isolate, "TextDecoder.decode: the text is too long for a string");
    return;
  }
  flags = stream ? (flags | kDoNotFlush) : (flags & ~kDoNotFlush);
  SetField(isolate, self, kFlagsField, flags);
  SetField(isolate, self, kPendingField, pending);
  info.GetReturnValue().Set(result);
}

// ---- installation --------------------------------------------------------------------------

void AddMethod(v8::Isolate* isolate, v8::Local<v8::ObjectTemplate> prototype,
               v8::Local<v8::Signature> signature, const char* name, v8::FunctionCallback callback,
               int length) {
  prototype->Set(V8Name(isolate, name),
                 v8::FunctionTemplate::New(isolate, callback, v8::Local<v8::Value>(), signature,
                                           length, v8::ConstructorBehavior::kThrow));
}

void AddGetter(v8::Isolate* isolate, v8::Local<v8::ObjectTemplate> prototype,
               v8::Local<v8::Signature> signature, const char* name,
               v8::FunctionCallback callback) {
  prototype->SetAccessorProperty(
      V8Name(isolate, name),
      v8::FunctionTemplate::New(isolate, callback, v8::Local<v8::Value>(), signature, 0,
                                v8::ConstructorBehavior::kThrow));
}

v8::Local<v8::FunctionTemplate> NewClass(v8::Isolate* isolate, const char* name,
                                         v8::FunctionCallback construct, int length) {
  v8::Local<v8::FunctionTemplate> cls = v8::FunctionTemplate::New(
      isolate, construct, v8::Local<v8::Value>(), v8::Local<v8::Signature>(), length);
  cls->SetClassName(V8Name(isolate, name));
  cls->PrototypeTemplate()->Set(v8::Symbol::GetToStringTag(isolate), V8Name(isolate, name),
                                static_cast<v8::PropertyAttribute>(v8::ReadOnly | v8::DontEnum));
  return cls;
}

}  // namespace

void InstallTextCoding(v8::Isolate* isolate, v8::Local<v8::Context> context) {
  v8::Local<v8::Object> global = context->Global();

  v8::Local<v8::FunctionTemplate> encoder = NewClass(isolate, "TextEncoder", &EncoderConstruct, 0);
  v8::Local<v8::Signature> encoder_signature = v8::Signature::New(isolate, encoder);
  v8::Local<v8::ObjectTemplate> encoder_prototype = encoder->PrototypeTemplate();
  AddMethod(isolate, encoder_prototype, encoder_signature, "encode", &Encode, 0);
  AddMethod(isolate, encoder_prototype, encoder_signature, "encodeInto", &EncodeInto, 2);
  AddGetter(isolate, encoder_prototype, encoder_signature, "encoding", &EncodingGetter);
  global
      ->DefineOwnProperty(context, V8Name(isolate, "TextEncoder"),
                          encoder->GetFunction(context).ToLocalChecked(), v8::DontEnum)
      .Check();

  v8::Local<v8::FunctionTemplate> decoder = NewClass(isolate, "TextDecoder", &DecoderConstruct, 0);
  decoder->InstanceTemplate()->SetInternalFieldCount(kDecoderFieldCount);
  v8::Local<v8::Signature> decoder_signature = v8::Signature::New(isolate, decoder);
  v8::Local<v8::ObjectTemplate> decoder_prototype = decoder->PrototypeTemplate();
  AddMethod(isolate, decoder_prototype, decoder_signature, "decode", &Decode, 0);
  AddGetter(isolate, decoder_prototype, decoder_signature, "encoding", &EncodingGetter);
  AddGetter(isolate, decoder_prototype, decoder_signature, "fatal", &FatalGetter);
  AddGetter(isolate, decoder_prototype, decoder_signature, "ignoreBOM", &IgnoreBomGetter);
  global
      ->DefineOwnProperty(context, V8Name(isolate, "TextDecoder"),
                          decoder->GetFunction(context).ToLocalChecked(), v8::DontEnum)
      .Check();
}

}  // namespace plugline::js::v8backend
