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

/* base64url without padding (RFC 4648 §5, RFC 7515 §2), strict: only the base64url alphabet, no padding, no
   whitespace, a length that is not 1 modulo 4, zero unused bits. In C because a JWS carries kilobytes of certificates
   and a Swift byte loop in a debug build costs more than the ES256 verification. `out` holds (n / 4 + 1) * 3 bytes;
   returns the number written, or -1. */
static inline long ccrypto_base64url_decode(const unsigned char *in, size_t n, unsigned char *out) {
    unsigned long accumulator = 0;
    int bits = 0;
    long written = 0;
    if (n % 4 == 1) return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = in[i];
        int value;
        if (c >= 'A' && c <= 'Z') value = c - 'A';
        else if (c >= 'a' && c <= 'z') value = c - 'a' + 26;
        else if (c >= '0' && c <= '9') value = c - '0' + 52;
        else if (c == '-') value = 62;
        else if (c == '_') value = 63;
        else return -1;
        accumulator = (accumulator << 6) | (unsigned long)value;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[written++] = (unsigned char)(accumulator >> bits);
            accumulator &= (1UL << bits) - 1;
        }
    }
    return accumulator == 0 ? written : -1;
}

/* base64url without padding of `n` bytes; `out` holds (n + 2) / 3 * 4 bytes; returns the number written. */
static inline size_t ccrypto_base64url_encode(const unsigned char *in, size_t n, unsigned char *out) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t written = 0, i = 0;
    for (; i + 2 < n; i += 3) {
        unsigned long triple = ((unsigned long)in[i] << 16) | ((unsigned long)in[i + 1] << 8) | in[i + 2];
        out[written++] = (unsigned char)alphabet[(triple >> 18) & 63];
        out[written++] = (unsigned char)alphabet[(triple >> 12) & 63];
        out[written++] = (unsigned char)alphabet[(triple >> 6) & 63];
        out[written++] = (unsigned char)alphabet[triple & 63];
    }
    if (i < n) {
        unsigned long triple = (unsigned long)in[i] << 16;
        if (i + 1 < n) triple |= (unsigned long)in[i + 1] << 8;
        out[written++] = (unsigned char)alphabet[(triple >> 18) & 63];
        out[written++] = (unsigned char)alphabet[(triple >> 12) & 63];
        if (i + 1 < n) out[written++] = (unsigned char)alphabet[(triple >> 6) & 63];
    }
    return written;
}

#endif
