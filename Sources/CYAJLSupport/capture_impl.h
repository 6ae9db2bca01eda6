/*
 * capture_impl.h: YAJL's context, and the callbacks that record the inside of a selected value.
 *
 * Every parser's context pointer is a `cyajl_capture`; its first field is the Swift callback
 * target (YAJLParserBridge.swift). YAJL reads the callback table it was given at every event,
 * so the bridge switches one per-parser table between two sets:
 * - the Swift callbacks (`events`), which keep the path, deliver events to the handler and enforce
 *   the limits;
 * - while a `RecordCapture` records a selected container (it asks for this when the container
 *   starts), the callbacks below, which write each event straight onto its tape (tape_impl.h) with its
 *   source position, check the depth limit and the capture's byte limit, and count events, with
 *   no call into Swift. They are the only code that records the inside of a selected value. The
 *   event that closes the container
 *   switches the Swift set back and is delivered by it, so the handler completes the record as
 *   before.
 * The path stack (Swift) is not kept inside such a container: the bridge rebuilds it from the tape
 * when an error must be located there (YAJLParserBridge+Capture.swift).
 *
 */
#ifndef CYAJL_CAPTURE_IMPL_H
#define CYAJL_CAPTURE_IMPL_H

#include <yajl/yajl_parse.h>
#include "tape_impl.h"


static inline void cyajl_line_cursor_reset_impl(cyajl_line_cursor *cursor) {
    cursor->base = -1;
    cursor->offset = 0;
    cursor->newlines = 0;
    cursor->line_start = 0;
    cursor->next_newline = 0;
}

/* The index of the first newline of `chunk` at or after `from`; `length` when there is none. */
static inline long cyajl_first_newline(const unsigned char *chunk, size_t length, size_t from) {
    if (chunk == NULL || from >= length) return (long)length;
    const void *found = memchr(chunk + from, '\n', length - from);
    return found ? (long)((const unsigned char *)found - chunk) : (long)length;
}

/* The cursor moved to the chunk at `base` (or back): from the chunk's start. */
static inline void cyajl_line_cursor_restart(
    cyajl_line_cursor *cursor, const unsigned char *chunk, size_t length, long base, long newlines_before, long line_start_before
) {
    cursor->base = base;
    cursor->offset = base;
    cursor->newlines = newlines_before;
    cursor->line_start = line_start_before;
    cursor->next_newline = base + cyajl_first_newline(chunk, length, 0);
}

/* The cursor moved over the newlines before `end`. */
static inline void cyajl_line_cursor_pass_newlines(
    cyajl_line_cursor *cursor, const unsigned char *chunk, size_t length, long base, long end
) {
    while (cursor->next_newline < end) {
        cursor->newlines += 1;
        cursor->line_start = cursor->next_newline + 1;
        cursor->next_newline = base + cyajl_first_newline(chunk, length, (size_t)(cursor->next_newline + 1 - base));
    }
}

/*
 * Line and column (1-based, the column in bytes) of absolute `offset` in `chunk` (which starts at
 * absolute `base`, on the line after `newlines_before` newlines, that line starting at
 * `line_start_before`). A value on the line of the previous one costs a few comparisons.
 */
CYAJL_INLINE void cyajl_line_and_column_impl(
    cyajl_line_cursor *cursor,
    long offset,
    const unsigned char *chunk,
    size_t length,
    long base,
    long newlines_before,
    long line_start_before,
    long *line,
    long *column
) {
    long end = offset < base ? base : (offset > base + (long)length ? base + (long)length : offset);
    if (__builtin_expect(cursor->base != base || cursor->offset > end, 0)) {
        cyajl_line_cursor_restart(cursor, chunk, length, base, newlines_before, line_start_before);
    }
    if (__builtin_expect(cursor->next_newline < end, 0)) {
        cyajl_line_cursor_pass_newlines(cursor, chunk, length, base, end);
    }
    cursor->offset = end;
    *line = cursor->newlines + 1;
    long found = offset - cursor->line_start + 1;
    *column = found < 1 ? 1 : found;
}


/* Absolute offset just past the token being delivered. */
CYAJL_INLINE long cyajl_capture_end(cyajl_capture *capture) {
    size_t consumed = yajl_get_bytes_consumed(capture->handle);
    return capture->chunk_base + (long)(consumed < capture->chunk_length ? consumed : capture->chunk_length);
}

/* Line and column of the token that starts at `start` and ends at `end` (tokens hold no newline). */
CYAJL_INLINE void cyajl_capture_locate(cyajl_capture *capture, long start, long end, long *line, long *column) {
    long end_column;
    cyajl_line_and_column_impl(
        &capture->cursor, end, capture->chunk, capture->chunk_length, capture->chunk_base,
        capture->newlines_before, capture->line_start_before, line, &end_column
    );
    long found = end_column - (end - start);
    *column = found < 1 ? 1 : found;
}

/* A token of `length` bytes just delivered: note where it started. */
CYAJL_INLINE void cyajl_capture_token(cyajl_capture *capture, long length, long *offset, long *line, long *column) {
    long end = cyajl_capture_end(capture);
    *offset = end - length;
    cyajl_capture_locate(capture, *offset, end, line, column);
}

/* An event recorded: counted, and the capture stopped (YAJL's 0) once the tape is past its limit. */
CYAJL_INLINE int cyajl_capture_recorded(cyajl_capture *capture) {
    capture->event_count += 1;
    cyajl_tape *tape = capture->tape;
    long held = (long)(tape->count - tape->open[0].start) + (long)(tape->position_count - tape->open_position_start);
    if (__builtin_expect(held > capture->byte_limit, 0)) {
        capture->over_byte_limit = 1;
        return 0;
    }
    return 1;
}

static inline int cyajl_capture_null(void *context) {
    cyajl_capture *capture = (cyajl_capture *)context;
    long offset, line, column;
    cyajl_capture_token(capture, 4, &offset, &line, &column);
    cyajl_tape_scalar_impl(capture->tape, CYAJL_TAPE_NULL, 0, offset, line, column);
    return cyajl_capture_recorded(capture);
}

static inline int cyajl_capture_boolean(void *context, int value) {
    cyajl_capture *capture = (cyajl_capture *)context;
    long offset, line, column;
    cyajl_capture_token(capture, value ? 4 : 5, &offset, &line, &column);
    cyajl_tape_scalar_impl(capture->tape, CYAJL_TAPE_BOOL, value, offset, line, column);
    return cyajl_capture_recorded(capture);
}

static inline int cyajl_capture_number(void *context, const char *text, size_t length) {
    cyajl_capture *capture = (cyajl_capture *)context;
    long offset, line, column;
    cyajl_capture_token(capture, (long)length, &offset, &line, &column);
    cyajl_tape_number_impl(capture->tape, text, length, offset, line, column);
    return cyajl_capture_recorded(capture);
}

static inline int cyajl_capture_string(void *context, const unsigned char *bytes, size_t length) {
    cyajl_capture *capture = (cyajl_capture *)context;
    long end = cyajl_capture_end(capture);
    long offset;
    const unsigned char *chunk = capture->chunk;
    if (bytes != NULL && chunk != NULL && bytes > chunk && bytes < chunk + capture->chunk_length) {
        /* Without escapes and inside the chunk, YAJL passes the bytes in place, after the quote. */
        offset = capture->chunk_base + (long)(bytes - chunk) - 1;
    } else {
        offset = capture->string_start(context, bytes, length, end);
    }
    long line, column;
    cyajl_capture_locate(capture, offset, end, &line, &column);
    cyajl_tape_text_impl(capture->tape, CYAJL_TAPE_STRING, bytes, length, 1, offset, line, column);
    return cyajl_capture_recorded(capture);
}

static inline int cyajl_capture_key(void *context, const unsigned char *bytes, size_t length) {
    cyajl_capture *capture = (cyajl_capture *)context;
    cyajl_tape_text_impl(capture->tape, CYAJL_TAPE_KEY, bytes, length, 0, 0, 0, 0);
    return cyajl_capture_recorded(capture);
}

/* A container opens inside the capture, unless it would be deeper than allowed: then stop. */
CYAJL_INLINE int cyajl_capture_open(void *context, int kind) {
    cyajl_capture *capture = (cyajl_capture *)context;
    long depth = capture->base_depth + (long)capture->tape->open_count;
    long offset, line, column;
    cyajl_capture_token(capture, 1, &offset, &line, &column);
    if (depth > capture->max_depth) {
        /* It started as a value of its parent (the path names it) but is not recorded. */
        cyajl_tape_value_starts(capture->tape);
        capture->depth_error_offset = offset;
        return 0;
    }
    if (depth > capture->max_depth_seen) capture->max_depth_seen = depth;
    cyajl_tape_start_container_impl(capture->tape, kind, offset, line, column);
    return cyajl_capture_recorded(capture);
}

static inline int cyajl_capture_start_map(void *context) { return cyajl_capture_open(context, CYAJL_TAPE_OBJECT); }
static inline int cyajl_capture_start_array(void *context) { return cyajl_capture_open(context, CYAJL_TAPE_ARRAY); }

/* Ends the capture: the Swift callbacks again, from the next event on. */
static inline void cyajl_capture_finish_impl(cyajl_capture *capture) {
    *capture->live = capture->swift_callbacks;
    capture->tape = NULL;
}

/* A container closes; the captured one itself is delivered by the Swift callbacks. */
CYAJL_INLINE int cyajl_capture_close(void *context, int is_map) {
    cyajl_capture *capture = (cyajl_capture *)context;
    if (capture->tape->open_count <= 1) {
        cyajl_capture_finish_impl(capture);
        return is_map ? capture->swift_callbacks.yajl_end_map(context) : capture->swift_callbacks.yajl_end_array(context);
    }
    cyajl_tape_end_container_impl(capture->tape);
    return cyajl_capture_recorded(capture);
}

static inline int cyajl_capture_end_map(void *context) { return cyajl_capture_close(context, 1); }
static inline int cyajl_capture_end_array(void *context) { return cyajl_capture_close(context, 0); }

/*
 * Starts recording the inside of the container just opened on `tape` (at path depth `depth`),
 * stopping once that container takes more than `byte_limit` bytes of it.
 */
static inline void cyajl_capture_begin_impl(cyajl_capture *capture, cyajl_tape *tape, long depth, long byte_limit) {
    capture->tape = tape;
    capture->base_depth = depth;
    capture->byte_limit = byte_limit;
    yajl_callbacks table = {
        cyajl_capture_null,
        cyajl_capture_boolean,
        NULL,
        NULL,
        cyajl_capture_number,
        cyajl_capture_string,
        cyajl_capture_start_map,
        cyajl_capture_key,
        cyajl_capture_end_map,
        cyajl_capture_start_array,
        cyajl_capture_end_array,
    };
    *capture->live = table;
}

#endif /* CYAJL_CAPTURE_IMPL_H */
