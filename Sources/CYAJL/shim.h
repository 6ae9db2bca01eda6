/*
 * shim.h: the parts of libyajl's C API that Swift cannot call directly.
 *
 * `yajl_config` and `yajl_gen_config` are variadic; Swift imports no C variadic
 * function, so each option gets a fixed-arity `static inline` wrapper here. The
 * package's own C is the target CYAJLSupport.
 */
#ifndef CYAJL_SHIM_H
#define CYAJL_SHIM_H

#include <yajl/yajl_parse.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_version.h>

/* yajl_config(handle, option, int): every parser option takes one int. */
static inline int cyajl_config(yajl_handle handle, yajl_option option, int enabled) {
    return yajl_config(handle, option, enabled);
}

/* yajl_gen_config for the flag options (beautify, validate_utf8, escape_solidus). */
static inline int cyajl_gen_config_flag(yajl_gen gen, yajl_gen_option option, int enabled) {
    return yajl_gen_config(gen, option, enabled);
}

/* yajl_gen_config(gen, yajl_gen_indent_string, const char *). YAJL keeps the pointer. */
static inline int cyajl_gen_config_indent(yajl_gen gen, const char *indent) {
    return yajl_gen_config(gen, yajl_gen_indent_string, indent);
}

#endif /* CYAJL_SHIM_H */
