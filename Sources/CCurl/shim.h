#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

/* Swift cannot call C variadic functions such as curl_easy_setopt/curl_easy_getinfo,
   nor see function-like or composite macros such as CURL_GLOBAL_ALL. These typed
   static inline wrappers give Swift one entry point per argument type. */

#include <curl/curl.h>

/** Callback types as Swift sees them (libcurl passes them through a void* vararg). */
typedef size_t (*ccurl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
typedef int (*ccurl_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                       curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/** For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION. */
static inline CURLcode ccurl_setopt_data_callback(CURL *handle, CURLoption option, ccurl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/** For CURLOPT_XFERINFOFUNCTION. */
static inline CURLcode ccurl_setopt_xferinfo_callback(CURL *handle, CURLoption option, ccurl_xferinfo_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

/** CURL_GLOBAL_ALL is a composite macro Swift does not import. */
static inline long ccurl_global_all(void) {
    return CURL_GLOBAL_ALL;
}

/** CURL_ERROR_SIZE: the size libcurl expects for CURLOPT_ERRORBUFFER. */
static inline size_t ccurl_error_size(void) {
    return CURL_ERROR_SIZE;
}

#endif
