/* utf8_prefix.c: the strict UTF-8 check's fast path (utf8_prefix_impl.h), for UTF8Validator.swift. */
#include "CYAJLSupport.h"
#include "utf8_prefix_impl.h"

size_t cyajl_valid_utf8_prefix(const uint8_t *data, size_t length, int useSSSE3) {
    return cyajl_valid_utf8_prefix_impl(data, length, useSSSE3);
}

int cyajl_utf8_prefix_available(void) { return cyajl_utf8_prefix_available_impl(); }
