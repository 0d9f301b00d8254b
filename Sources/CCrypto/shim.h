#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H

#include <stddef.h>
#include <openssl/sha.h>

/* OpenSSL's one-shot SHA-256 (libcrypto picks the CPU's SHA extensions or AVX2 at run time). Wrapped under
   another name: FlagKit's Swift `SHA256` would otherwise clash with the C function in modules importing both. */
static inline void ccrypto_sha256(const unsigned char *data, size_t count, unsigned char *digest) {
    SHA256(data, count, digest);
}

#endif
