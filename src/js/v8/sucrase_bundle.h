// sucrase (third_party/sucrase/), bundled by esbuild at build time into one script that sets
// globalThis.sucrase = {transform, getVersion}. The definitions are generated
// (cmake/PluglineSucraseBundle.cmake → <build>/src/js/v8/sucrase_bundle.cc).
#ifndef PLUGLINE_JS_V8_SUCRASE_BUNDLE_H_
#define PLUGLINE_JS_V8_SUCRASE_BUNDLE_H_

#include <cstddef>

namespace plugline::js::v8backend {

// The bundle's text (ASCII), empty when it could not be built.
extern const char kSucraseBundle[];
extern const size_t kSucraseBundleSize;
// sucrase's version ("3.35.1") and the bundle's SHA-256 (hex); empty without a bundle.
extern const char kSucraseVersion[];
extern const char kSucraseBundleSha256[];
// Why there is no bundle ("npm ci … failed: …"); empty when there is one.
extern const char kSucraseUnavailableReason[];

}  // namespace plugline::js::v8backend

#endif  // PLUGLINE_JS_V8_SUCRASE_BUNDLE_H_
