/* capture.c: the capture callbacks (capture_impl.h), and the functions Swift calls to start and end
 * a capture and to locate a value. */
#include "capture_impl.h"

void cyajl_line_cursor_reset(cyajl_line_cursor *cursor) { cyajl_line_cursor_reset_impl(cursor); }

void cyajl_line_and_column(
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
    cyajl_line_and_column_impl(cursor, offset, chunk, length, base, newlines_before, line_start_before, line, column);
}

void cyajl_capture_begin(cyajl_capture *capture, cyajl_tape *tape, long depth, long byte_limit) {
    cyajl_capture_begin_impl(capture, tape, depth, byte_limit);
}

void cyajl_capture_finish(cyajl_capture *capture) { cyajl_capture_finish_impl(capture); }
