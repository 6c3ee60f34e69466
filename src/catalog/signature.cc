#include "catalog/signature.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "core/fs.h"
#include "core/strings.h"

namespace plugline::catalog {
namespace {

struct PkeyDeleter {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct MdCtxDeleter {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
struct BioDeleter {
  void operator()(BIO* b) const { BIO_free(b); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyDeleter>;

std::string Base64(std::string_view bytes) {
  return absl::Base64Escape(ToAbsl(bytes));
}

std::string_view Trim(std::string_view s) {
  return ToStd(absl::StripAsciiWhitespace(ToAbsl(s)));
}

absl::StatusOr<Pkey> PublicKey(std::string_view text) {
  text = Trim(text);
  if (text.starts_with("-----BEGIN")) {
    std::unique_ptr<BIO, BioDeleter> bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
    Pkey key(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
    if (key == nullptr || EVP_PKEY_get_id(key.get()) != EVP_PKEY_ED25519) {
      return absl::InvalidArgumentError("the public key is not an Ed25519 PEM public key");
    }
    return key;
  }
  std::string raw;
  if (!absl::Base64Unescape(ToAbsl(text), &raw) || raw.size() != 32) {
    return absl::InvalidArgumentError(
        "the public key is neither base64 of 32 bytes nor a PEM public key");
  }
  Pkey key(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
                                       reinterpret_cast<const unsigned char*>(raw.data()),
                                       raw.size()));
  if (key == nullptr) return absl::InvalidArgumentError("the public key is not an Ed25519 key");
  return key;
}

}  // namespace

absl::StatusOr<SigningKey> ReadSigningKey(const std::string& pem_path) {
  absl::StatusOr<std::string> pem = core::ReadFile(pem_path, 64 << 10);
  if (!pem.ok()) return pem.status();
  std::unique_ptr<BIO, BioDeleter> bio(BIO_new_mem_buf(pem->data(), static_cast<int>(pem->size())));
  Pkey key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (key == nullptr || EVP_PKEY_get_id(key.get()) != EVP_PKEY_ED25519) {
    return absl::InvalidArgumentError(
        StrCat(pem_path, ": not an Ed25519 private key in PEM form (make one with `openssl "
                         "genpkey -algorithm ed25519 -out ",
               pem_path, "`)"));
  }
  unsigned char raw[32];
  size_t length = sizeof raw;
  if (EVP_PKEY_get_raw_public_key(key.get(), raw, &length) != 1 || length != 32) {
    return absl::InternalError(StrCat(pem_path, ": cannot derive the public key"));
  }
  SigningKey out;
  out.private_pem = *std::move(pem);
  out.public_base64 = Base64(std::string_view(reinterpret_cast<char*>(raw), length));
  return out;
}

absl::StatusOr<std::string> Sign(std::string_view data, const SigningKey& signing) {
  std::unique_ptr<BIO, BioDeleter> bio(
      BIO_new_mem_buf(signing.private_pem.data(), static_cast<int>(signing.private_pem.size())));
  Pkey key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  std::unique_ptr<EVP_MD_CTX, MdCtxDeleter> ctx(EVP_MD_CTX_new());
  if (key == nullptr || ctx == nullptr ||
      EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1) {
    return absl::InternalError("cannot start an Ed25519 signature");
  }
  unsigned char signature[64];
  size_t length = sizeof signature;
  if (EVP_DigestSign(ctx.get(), signature, &length,
                     reinterpret_cast<const unsigned char*>(data.data()), data.size()) != 1) {
    return absl::InternalError("Ed25519 signing failed");
  }
  return Base64(std::string_view(reinterpret_cast<char*>(signature), length));
}

absl::Status Verify(std::string_view data, std::string_view signature_base64,
                    std::string_view public_key) {
  absl::StatusOr<Pkey> key = PublicKey(public_key);
  if (!key.ok()) return key.status();
  std::string signature;
  if (!absl::Base64Unescape(ToAbsl(Trim(signature_base64)), &signature) ||
      signature.size() != 64) {
    return absl::InvalidArgumentError("the signature is not base64 of an Ed25519 signature");
  }
  std::unique_ptr<EVP_MD_CTX, MdCtxDeleter> ctx(EVP_MD_CTX_new());
  if (ctx == nullptr ||
      EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key->get()) != 1) {
    return absl::InternalError("cannot start an Ed25519 verification");
  }
  if (EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                       signature.size(), reinterpret_cast<const unsigned char*>(data.data()),
                       data.size()) != 1) {
    return absl::PermissionDeniedError("the signature does not match the index and the key");
  }
  return absl::OkStatus();
}

}  // namespace plugline::catalog
