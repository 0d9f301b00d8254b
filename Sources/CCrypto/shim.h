#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H

#include <stddef.h>
#include <openssl/sha.h>
/* App Store Server Notifications (AppStoreNotifications, AppStoreTestSupport): X.509 chains, ECDSA P-256 (ES256),
   HMAC-SHA256. Only functions are called from Swift (OpenSSL 3's stack macros go through OPENSSL_sk_*). */
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* OpenSSL's one-shot SHA-256 (libcrypto picks the CPU's SHA extensions or AVX2 at run time). Wrapped under
   another name: FlagKit's Swift `SHA256` would otherwise clash with the C function in modules importing both. */
static inline void ccrypto_sha256(const unsigned char *data, size_t count, unsigned char *digest) {
    SHA256(data, count, digest);
}

#endif
