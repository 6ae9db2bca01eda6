/*
 * tape_impl.h: the writer of the record tape (Records/Tape.swift), in C: the steps, inlined into
 * each capture callback (capture.c) and into the functions Swift calls (tape.c).
 *
 * `Tape` (Swift) owns one `cyajl_tape` and calls these functions for every value it records;
 * `TapeView` (Swift) reads what they write. The encoding is described in Tape.swift. They are
 * here, not in Swift, so that the callbacks of capture.h can record the inside of a selected value
 * without a call into Swift per event: one writer for both.
 *
 * Memory: three blocks grown by doubling with realloc (a large block is remapped, not copied).
 * Running out of memory ends the process, as a Swift buffer that cannot grow does.
 */
#ifndef CYAJL_TAPE_IMPL_H
#define CYAJL_TAPE_IMPL_H

#include "CYAJLSupport.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The writer's steps, inlined into each capture callback (capture.h) so that each is straight code. */
#define CYAJL_INLINE static inline __attribute__((always_inline))


static inline void *cyajl_tape_reallocate(void *block, size_t bytes) {
    void *grown = realloc(block, bytes > 0 ? bytes : 1);
    if (grown == NULL) {
        fprintf(stderr, "swift-yajl: out of memory growing a record tape to %zu bytes\n", bytes);
        abort();
    }
    return grown;
}

/*
 * Grows `*block` (of `*capacity` elements of `size` bytes) to at least `needed`, doubling. Out of
 * line and cold: the callbacks that may grow then save no registers for it on every event.
 */
static __attribute__((noinline, cold)) void cyajl_tape_grow(void **block, size_t *capacity, size_t needed, size_t size) {
    size_t grown = *capacity > 0 ? *capacity : 1;
    while (grown < needed) grown *= 2;
    *block = cyajl_tape_reallocate(*block, grown * size);
    *capacity = grown;
}

static inline void cyajl_tape_init_impl(cyajl_tape *tape) {
    memset(tape, 0, sizeof *tape);
    tape->capacity = 4096;
    tape->bytes = (unsigned char *)cyajl_tape_reallocate(NULL, tape->capacity);
    tape->position_capacity = 1024;
    tape->positions = (unsigned char *)cyajl_tape_reallocate(NULL, tape->position_capacity);
    tape->open_capacity = 16;
    tape->open = (cyajl_open_container *)cyajl_tape_reallocate(NULL, tape->open_capacity * sizeof *tape->open);
    tape->previous_line = 1;
    tape->previous_column = 1;
    tape->narrow_limit = UINT32_MAX;
}

static inline void cyajl_tape_destroy_impl(cyajl_tape *tape) {
    free(tape->bytes);
    free(tape->positions);
    free(tape->open);
}

/* Makes room for `extra` more bytes of values. */
CYAJL_INLINE void cyajl_tape_reserve(cyajl_tape *tape, size_t extra) {
    if (tape->count + extra > tape->capacity) {
        cyajl_tape_grow((void **)&tape->bytes, &tape->capacity, tape->count + extra, 1);
    }
}


/* Writes `value` as a varint at `at`; returns the byte after it. */
CYAJL_INLINE unsigned char *cyajl_tape_varint(unsigned char *at, uint64_t value) {
    while (value >= 0x80) {
        *at++ = (unsigned char)(value | 0x80);
        value >>= 7;
    }
    *at++ = (unsigned char)value;
    return at;
}

CYAJL_INLINE uint64_t cyajl_tape_nonnegative(long value) { return value > 0 ? (uint64_t)value : 0; }

/* Notes where the next value starts: whole for a record's first value, else relative. */
CYAJL_INLINE void cyajl_tape_note(cyajl_tape *tape, long offset, long line, long column) {
    size_t used = tape->position_count;
    if (used + 30 > tape->position_capacity) {
        cyajl_tape_grow((void **)&tape->positions, &tape->position_capacity, used + 30, 1);
    }
    /* A local cursor: stores through it cannot change the tape's fields (char pointers alias all). */
    unsigned char *at = tape->positions + used;
    if (tape->open_count == 0) {
        at = cyajl_tape_varint(at, cyajl_tape_nonnegative(offset));
        at = cyajl_tape_varint(at, cyajl_tape_nonnegative(line));
        at = cyajl_tape_varint(at, cyajl_tape_nonnegative(column));
    } else {
        uint64_t delta = cyajl_tape_nonnegative(offset - tape->previous_offset);
        if (line == tape->previous_line) {
            at = cyajl_tape_varint(at, delta << 1);
        } else {
            at = cyajl_tape_varint(at, delta << 1 | 1);
            at = cyajl_tape_varint(at, cyajl_tape_nonnegative(line - tape->previous_line));
            at = cyajl_tape_varint(at, cyajl_tape_nonnegative(column));
        }
    }
    tape->position_count = (size_t)(at - tape->positions);
    tape->previous_offset = offset;
    tape->previous_line = line;
    tape->previous_column = column;
}

CYAJL_INLINE unsigned char cyajl_tape_tag(int kind, unsigned small) { return (unsigned char)(kind | small << 3); }

/* A value starts in the innermost open container. */
CYAJL_INLINE void cyajl_tape_value_starts(cyajl_tape *tape) {
    if (tape->open_count > 0) tape->open[tape->open_count - 1].values += 1;
}

CYAJL_INLINE void cyajl_tape_start_container_impl(cyajl_tape *tape, int kind, long offset, long line, long column) {
    if (tape->open_count == 0) tape->open_position_start = tape->position_count;
    cyajl_tape_note(tape, offset, line, column);
    cyajl_tape_value_starts(tape);
    if (tape->open_count == tape->open_capacity) {
        cyajl_tape_grow((void **)&tape->open, &tape->open_capacity, tape->open_count + 1, sizeof *tape->open);
    }
    tape->open[tape->open_count].start = tape->count;
    tape->open[tape->open_count].values = 0;
    tape->open_count += 1;
    cyajl_tape_reserve(tape, CYAJL_TAPE_NARROW_HEADER);
    tape->bytes[tape->count] = cyajl_tape_tag(kind, 0);
    tape->count += CYAJL_TAPE_NARROW_HEADER;
}

CYAJL_INLINE void cyajl_tape_store32(unsigned char *at, uint32_t value) {
    for (int i = 0; i < 4; i++) at[i] = (unsigned char)(value >> (8 * i));
}

CYAJL_INLINE void cyajl_tape_store64(unsigned char *at, uint64_t value) {
    for (int i = 0; i < 8; i++) at[i] = (unsigned char)(value >> (8 * i));
}

/* Closes the innermost open container (there must be one: the caller checks). */
CYAJL_INLINE void cyajl_tape_end_container_impl(cyajl_tape *tape) {
    tape->open_count -= 1;
    size_t start = tape->open[tape->open_count].start;
    size_t values = tape->open[tape->open_count].values;
    unsigned char kind = tape->bytes[start] & 7;
    size_t length = tape->count - start - CYAJL_TAPE_NARROW_HEADER;
    if (values == 0) {
        tape->bytes[start] = cyajl_tape_tag(kind, CYAJL_TAPE_CONTAINER_EMPTY);
        tape->count = start + 1;
    } else if (length <= tape->narrow_limit && values <= tape->narrow_limit) {
        cyajl_tape_store32(tape->bytes + start + 1, (uint32_t)length);
        cyajl_tape_store32(tape->bytes + start + 5, (uint32_t)values);
    } else {
        /* Past 4 GiB: move the members up to make room for a wide header (once per such container). */
        size_t extra = CYAJL_TAPE_WIDE_HEADER - CYAJL_TAPE_NARROW_HEADER;
        cyajl_tape_reserve(tape, extra);
        memmove(tape->bytes + start + CYAJL_TAPE_WIDE_HEADER, tape->bytes + start + CYAJL_TAPE_NARROW_HEADER, length);
        tape->count += extra;
        tape->bytes[start] = cyajl_tape_tag(kind, CYAJL_TAPE_CONTAINER_WIDE);
        cyajl_tape_store64(tape->bytes + start + 1, (uint64_t)length);
        cyajl_tape_store64(tape->bytes + start + 9, (uint64_t)values);
    }
}

/* A key (`noted` 0: a key has no position) or a string (`noted` 1, at offset/line/column). */
CYAJL_INLINE void cyajl_tape_text_impl(
    cyajl_tape *tape, int kind, const void *text, size_t length, int noted, long offset, long line, long column
) {
    if (noted) cyajl_tape_note(tape, offset, line, column);
    if (kind != CYAJL_TAPE_KEY) cyajl_tape_value_starts(tape);
    cyajl_tape_reserve(tape, 9 + length);
    unsigned char *at = tape->bytes + tape->count;
    if (length < CYAJL_TAPE_TEXT_LONG) {
        *at++ = cyajl_tape_tag(kind, (unsigned)length);
    } else {
        *at = cyajl_tape_tag(kind, CYAJL_TAPE_TEXT_LONG);
        cyajl_tape_store64(at + 1, (uint64_t)length);
        at += 9;
    }
    if (length > 0) cyajl_copy_bytes(at, text, length);
    tape->count = (size_t)(at - tape->bytes) + length;
}

/* A number: a one-digit integer in its tag alone, else its text. */
CYAJL_INLINE void cyajl_tape_number_impl(cyajl_tape *tape, const void *text, size_t length, long offset, long line, long column) {
    cyajl_tape_note(tape, offset, line, column);
    cyajl_tape_value_starts(tape);
    const unsigned char *digits = (const unsigned char *)text;
    cyajl_tape_reserve(tape, 9 + length);
    unsigned char *at = tape->bytes + tape->count;
    if (length == 1 && digits[0] >= '0' && digits[0] <= '9') {
        *at = cyajl_tape_tag(CYAJL_TAPE_NUMBER, (unsigned)(digits[0] - '0'));
        tape->count += 1;
        return;
    }
    if (length <= 255) {
        at[0] = cyajl_tape_tag(CYAJL_TAPE_NUMBER, CYAJL_TAPE_NUMBER_TEXT);
        at[1] = (unsigned char)length;
        at += 2;
    } else {
        at[0] = cyajl_tape_tag(CYAJL_TAPE_NUMBER, CYAJL_TAPE_NUMBER_LONG_TEXT);
        cyajl_tape_store64(at + 1, (uint64_t)length);
        at += 9;
    }
    if (length > 0) cyajl_copy_bytes(at, text, length);
    tape->count = (size_t)(at - tape->bytes) + length;
}

/* A boolean (`flag`) or null. */
CYAJL_INLINE void cyajl_tape_scalar_impl(cyajl_tape *tape, int kind, int flag, long offset, long line, long column) {
    cyajl_tape_note(tape, offset, line, column);
    cyajl_tape_value_starts(tape);
    cyajl_tape_reserve(tape, 1);
    tape->bytes[tape->count++] = cyajl_tape_tag(kind, flag ? 1 : 0);
}

/* Drops every byte before `start` and every position before `position_start`. */
static inline void cyajl_tape_discard_impl(cyajl_tape *tape, size_t start, size_t position_start) {
    if (start > 0) {
        memmove(tape->bytes, tape->bytes + start, tape->count - start);
        tape->count -= start;
        for (size_t i = 0; i < tape->open_count; i++) tape->open[i].start -= start;
    }
    if (position_start > 0) {
        memmove(tape->positions, tape->positions + position_start, tape->position_count - position_start);
        tape->position_count -= position_start;
        tape->open_position_start = tape->open_position_start > position_start ? tape->open_position_start - position_start : 0;
    }
}

/*
 * Moves the record being recorded in `other` (bytes from `start`, positions from
 * `position_start`) into `tape`, which is empty; `other` keeps its complete records.
 */
static inline void cyajl_tape_take_incomplete_record_impl(cyajl_tape *tape, cyajl_tape *other, size_t start, size_t position_start) {
    size_t length = other->count - start;
    cyajl_tape_reserve(tape, length);
    if (length > 0) memcpy(tape->bytes, other->bytes + start, length);
    tape->count = length;
    size_t position_length = other->position_count - position_start;
    if (position_length + 30 > tape->position_capacity) {
        cyajl_tape_grow((void **)&tape->positions, &tape->position_capacity, position_length + 30, 1);
    }
    if (position_length > 0) memcpy(tape->positions, other->positions + position_start, position_length);
    tape->position_count = position_length;
    tape->open_position_start =
        other->open_position_start > position_start ? other->open_position_start - position_start : 0;
    tape->previous_offset = other->previous_offset;
    tape->previous_line = other->previous_line;
    tape->previous_column = other->previous_column;
    if (other->open_count > tape->open_capacity) {
        cyajl_tape_grow((void **)&tape->open, &tape->open_capacity, other->open_count, sizeof *tape->open);
    }
    for (size_t i = 0; i < other->open_count; i++) {
        tape->open[i].start = other->open[i].start - start;
        tape->open[i].values = other->open[i].values;
    }
    tape->open_count = other->open_count;
    other->count = start;
    other->position_count = position_start;
    other->open_count = 0;
}

/* Exchanges the contents (and storage) of two tapes; each keeps its address. */
static inline void cyajl_tape_swap_impl(cyajl_tape *a, cyajl_tape *b) {
    cyajl_tape t = *a;
    *a = *b;
    *b = t;
}

#endif /* CYAJL_TAPE_IMPL_H */
