/*
 * shim.h: the parts of libcurl's C API that Swift cannot call directly.
 *
 * curl_easy_setopt and curl_easy_getinfo are variadic, so each argument type gets a fixed-arity
 * wrapper; CURLPAUSE_CONT is a macro expression Swift does not import.
 */
#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

#include <curl/curl.h>

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_callback(CURL *handle, CURLoption option, ccurl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/* Resumes a transfer paused by CURL_WRITEFUNC_PAUSE; may call the write callback at once. */
static inline CURLcode ccurl_unpause(CURL *handle) {
    return curl_easy_pause(handle, CURLPAUSE_CONT);
}

static const size_t ccurl_writefunc_pause = CURL_WRITEFUNC_PAUSE;

/* The result of a finished transfer from a CURLMsg (a union member Swift cannot reach). */
static inline CURLcode ccurl_message_result(const CURLMsg *message) {
    return message->data.result;
}

#endif /* CCURL_SHIM_H */
