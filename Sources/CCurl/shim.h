/*
 * shim.h: the parts of libcurl's C API that Swift cannot call directly.
 *
 * libcurl is loaded with dlopen on first use (ccurl_load); curl_easy_setopt is variadic, so each
 * argument type gets a fixed-arity wrapper; CURLPAUSE_CONT is a macro expression Swift does not
 * import.
 */
#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

#include <curl/curl.h>
#include <dlfcn.h>
#include <stddef.h>

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);

/*
 * libcurl is opened with dlopen on first use, not linked: a process that never reads a URL (the
 * `yajl` tool on a file) does not load libcurl, OpenSSL and their dozen dependencies (about 6 MiB
 * of resident memory and a third of the start-up's symbol binding). Every function is called
 * through a pointer found once.
 */
struct ccurl_api {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_pause)(CURL *, int);
    const char *(*easy_strerror)(CURLcode);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
};

/* The table lives in memory the caller owns (Swift), passed to every wrapper: a static in this
 * header would be duplicated in every object file the importer emits these functions into. */

/* Opens libcurl and fills `api` with its functions; NULL on success, else why not (dlerror's
 * words). Called once, from a lazily initialized Swift global (thread-safe). */
static inline const char *ccurl_load(struct ccurl_api *api) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) library = dlopen("libcurl.so", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
    void *symbol;
#define CCURL_FIND(field, name) \
    if ((symbol = dlsym(library, name)) == NULL) return dlerror(); \
    api->field = (__typeof__(api->field))symbol;
    CCURL_FIND(global_init, "curl_global_init")
    CCURL_FIND(easy_init, "curl_easy_init")
    CCURL_FIND(easy_cleanup, "curl_easy_cleanup")
    CCURL_FIND(easy_setopt, "curl_easy_setopt")
    CCURL_FIND(easy_pause, "curl_easy_pause")
    CCURL_FIND(easy_strerror, "curl_easy_strerror")
    CCURL_FIND(multi_init, "curl_multi_init")
    CCURL_FIND(multi_cleanup, "curl_multi_cleanup")
    CCURL_FIND(multi_add_handle, "curl_multi_add_handle")
    CCURL_FIND(multi_remove_handle, "curl_multi_remove_handle")
    CCURL_FIND(multi_perform, "curl_multi_perform")
    CCURL_FIND(multi_poll, "curl_multi_poll")
    CCURL_FIND(multi_info_read, "curl_multi_info_read")
    CCURL_FIND(slist_append, "curl_slist_append")
    CCURL_FIND(slist_free_all, "curl_slist_free_all")
#undef CCURL_FIND
    if (api->global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return "curl_global_init failed";
    return NULL;
}

static inline CURL *ccurl_easy_init(const struct ccurl_api *api) { return api->easy_init(); }
static inline void ccurl_easy_cleanup(const struct ccurl_api *api, CURL *handle) { api->easy_cleanup(handle); }
static inline const char *ccurl_easy_strerror(const struct ccurl_api *api, CURLcode code) { return api->easy_strerror(code); }
static inline CURLM *ccurl_multi_init(const struct ccurl_api *api) { return api->multi_init(); }
static inline CURLMcode ccurl_multi_cleanup(const struct ccurl_api *api, CURLM *multi) { return api->multi_cleanup(multi); }
static inline CURLMcode ccurl_multi_add_handle(const struct ccurl_api *api, CURLM *multi, CURL *handle) { return api->multi_add_handle(multi, handle); }
static inline CURLMcode ccurl_multi_remove_handle(const struct ccurl_api *api, CURLM *multi, CURL *handle) { return api->multi_remove_handle(multi, handle); }
static inline CURLMcode ccurl_multi_perform(const struct ccurl_api *api, CURLM *multi, int *running) { return api->multi_perform(multi, running); }
static inline CURLMcode ccurl_multi_poll(const struct ccurl_api *api, CURLM *multi, int timeout) { return api->multi_poll(multi, NULL, 0, timeout, NULL); }
static inline CURLMsg *ccurl_multi_info_read(const struct ccurl_api *api, CURLM *multi, int *queued) { return api->multi_info_read(multi, queued); }
static inline struct curl_slist *ccurl_slist_append(const struct ccurl_api *api, struct curl_slist *list, const char *text) { return api->slist_append(list, text); }
static inline void ccurl_slist_free_all(const struct ccurl_api *api, struct curl_slist *list) { api->slist_free_all(list); }

/* curl_easy_setopt is variadic: one fixed-arity wrapper per argument type. */
static inline CURLcode ccurl_setopt_long(const struct ccurl_api *api, CURL *handle, CURLoption option, long value) {
    return api->easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_string(const struct ccurl_api *api, CURL *handle, CURLoption option, const char *value) {
    return api->easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_pointer(const struct ccurl_api *api, CURL *handle, CURLoption option, void *value) {
    return api->easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_callback(const struct ccurl_api *api, CURL *handle, CURLoption option, ccurl_data_callback value) {
    return api->easy_setopt(handle, option, value);
}

/* Resumes a transfer paused by CURL_WRITEFUNC_PAUSE; may call the write callback at once. */
static inline CURLcode ccurl_unpause(const struct ccurl_api *api, CURL *handle) {
    return api->easy_pause(handle, CURLPAUSE_CONT);
}

static const size_t ccurl_writefunc_pause = CURL_WRITEFUNC_PAUSE;

/* The result of a finished transfer from a CURLMsg (a union member Swift cannot reach). */
static inline CURLcode ccurl_message_result(const CURLMsg *message) {
    return message->data.result;
}

#endif /* CCURL_SHIM_H */
