/*
 * lean_validation.c: the callbacks of the lean validation pass (LeanValidation.swift), in C.
 *
 * They only count containers (for the depth limit) and note that a value was seen (for the token
 * limit); written in C, each is a few instructions, where a Swift closure behind YAJL's function
 * pointer would add a thunk per event.
 */
#include "CYAJLSupport.h"

/* A container opens: past the depth limit, stop the parse (the full pass reports it). */
static int cyajl_lean_open(void *context) {
    cyajl_lean_state *state = (cyajl_lean_state *)context;
    state->depth += 1;
    state->saw_value = 1;
    state->saw_container = 1;
    return state->depth <= state->max_depth;
}

static int cyajl_lean_close(void *context) {
    cyajl_lean_state *state = (cyajl_lean_state *)context;
    state->depth -= 1;
    state->saw_value = 1;
    state->saw_container = 1;
    return 1;
}

static int cyajl_lean_null(void *context) {
    ((cyajl_lean_state *)context)->saw_value = 1;
    return 1;
}

static int cyajl_lean_boolean(void *context, int value) {
    (void)value;
    ((cyajl_lean_state *)context)->saw_value = 1;
    return 1;
}

static int cyajl_lean_number(void *context, const char *text, size_t length) {
    (void)text;
    (void)length;
    ((cyajl_lean_state *)context)->saw_value = 1;
    return 1;
}

/*
 * The callback table: containers always; null, booleans and number text (which YAJL passes
 * without copying) only when `scalars` is set. Never strings or keys, whose escapes YAJL would
 * otherwise decode into its own buffer for nobody.
 */
yajl_callbacks cyajl_lean_callbacks(int scalars) {
    yajl_callbacks table = {
        scalars ? cyajl_lean_null : NULL,
        scalars ? cyajl_lean_boolean : NULL,
        NULL,
        NULL,
        scalars ? cyajl_lean_number : NULL,
        NULL,
        cyajl_lean_open,
        NULL,
        cyajl_lean_close,
        cyajl_lean_open,
        cyajl_lean_close,
    };
    return table;
}

/*
 * The open-string probe (JSONParser.openStringProbe, fed once the input has ended): its only
 * callback is for a string, which the probe can only complete if the input ended inside one, and
 * it stops the parse, so that YAJL returns yajl_status_client_canceled and delivers nothing.
 */
static int cyajl_probe_string(void *context, const unsigned char *text, size_t length) {
    (void)context;
    (void)text;
    (void)length;
    return 0;
}

yajl_callbacks cyajl_probe_callbacks(void) {
    yajl_callbacks table = {NULL, NULL, NULL, NULL, NULL, cyajl_probe_string, NULL, NULL, NULL, NULL, NULL};
    return table;
}

