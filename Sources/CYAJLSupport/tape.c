/* tape.c: the tape functions Swift calls (Records/Tape.swift), over the inlined steps. */
#include "tape_impl.h"

void cyajl_tape_init(cyajl_tape *tape) { cyajl_tape_init_impl(tape); }
void cyajl_tape_destroy(cyajl_tape *tape) { cyajl_tape_destroy_impl(tape); }
void cyajl_tape_start_container(cyajl_tape *tape, int kind, long offset, long line, long column) {
    cyajl_tape_start_container_impl(tape, kind, offset, line, column);
}
void cyajl_tape_end_container(cyajl_tape *tape) { cyajl_tape_end_container_impl(tape); }
void cyajl_tape_text(
    cyajl_tape *tape, int kind, const void *text, size_t length, int noted, long offset, long line, long column
) {
    cyajl_tape_text_impl(tape, kind, text, length, noted, offset, line, column);
}
void cyajl_tape_number(cyajl_tape *tape, const void *text, size_t length, long offset, long line, long column) {
    cyajl_tape_number_impl(tape, text, length, offset, line, column);
}
void cyajl_tape_scalar(cyajl_tape *tape, int kind, int flag, long offset, long line, long column) {
    cyajl_tape_scalar_impl(tape, kind, flag, offset, line, column);
}
void cyajl_tape_discard(cyajl_tape *tape, size_t start, size_t position_start) {
    cyajl_tape_discard_impl(tape, start, position_start);
}
void cyajl_tape_take_incomplete_record(cyajl_tape *tape, cyajl_tape *other, size_t start, size_t position_start) {
    cyajl_tape_take_incomplete_record_impl(tape, other, start, position_start);
}
void cyajl_tape_swap(cyajl_tape *a, cyajl_tape *b) { cyajl_tape_swap_impl(a, b); }
