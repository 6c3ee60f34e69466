// Ed25519 signatures of catalog indexes (OpenSSL). A signed catalog serves, beside
// index.json, index.json.sig: the base64 of the Ed25519 signature of index.json's exact bytes.
// A catalog configured with a public key accepts only an index whose signature verifies
// (docs/catalog.md).
#ifndef PLUGLINE_CATALOG_SIGNATURE_H_
#define PLUGLINE_CATALOG_SIGNATURE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace plugline::catalog {

// A private key and its public half, read from a PEM file (`openssl genpkey -algorithm
// ed25519 -out key.pem`).
struct SigningKey {
  std::string private_pem;
  std::string public_base64;  // the raw 32-byte public key, base64: what config.yaml holds
};
absl::StatusOr<SigningKey> ReadSigningKey(const std::string& pem_path);

// The base64 Ed25519 signature of `data`.
absl::StatusOr<std::string> Sign(std::string_view data, const SigningKey& key);

// OK when `signature_base64` (surrounding white space ignored) is `public_key`'s signature of
// `data`. `public_key`: the base64 raw 32-byte key, or a PEM "PUBLIC KEY" block.
// InvalidArgument for a key or signature that cannot be read; PermissionDenied when the
// signature does not verify.
absl::Status Verify(std::string_view data, std::string_view signature_base64,
                    std::string_view public_key);

}  // namespace plugline::catalog

#endif  // PLUGLINE_CATALOG_SIGNATURE_H_
