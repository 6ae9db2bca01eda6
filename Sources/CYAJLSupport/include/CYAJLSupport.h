/*
 * CYAJLSupport.h: the package's own C, over libyajl: the record tape's writer, the callbacks that
 * capture a selected value without a call into Swift per event, the lean validation pass's
 * callbacks, the fast path of the strict UTF-8 check, the position tracker's newline scans,
 * number conversion in the "C" locale, and the Eisel-Lemire table. Compiled once, in this target's
 * .c files; Swift sees the types and functions declared here. (libyajl's own API, and the
 * wrappers of its variadic functions, are the system-library module CYAJL.)
 */
#ifndef CYAJL_SUPPORT_H
#define CYAJL_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <yajl/yajl_parse.h>

/* Kinds: the low 3 bits of a tag byte (Tape.Kind). */
enum {
    CYAJL_TAPE_OBJECT = 0,
    CYAJL_TAPE_ARRAY = 1,
    CYAJL_TAPE_KEY = 2,
    CYAJL_TAPE_STRING = 3,
    CYAJL_TAPE_NUMBER = 4,
    CYAJL_TAPE_BOOL = 5,
    CYAJL_TAPE_NULL = 6,
};

/* Sizes and the `small` values of the encoding (the high 5 bits of a tag byte). */
enum {
    CYAJL_TAPE_NARROW_HEADER = 9,
    CYAJL_TAPE_WIDE_HEADER = 17,
    CYAJL_TAPE_CONTAINER_WIDE = 1,
    CYAJL_TAPE_CONTAINER_EMPTY = 2,
    CYAJL_TAPE_TEXT_LONG = 31,
    CYAJL_TAPE_NUMBER_TEXT = 10,
    CYAJL_TAPE_NUMBER_LONG_TEXT = 12,
};

/* A container being recorded: where its tag is, and how many values it has so far. */
typedef struct {
    size_t start;
    size_t values;
} cyajl_open_container;

typedef struct {
    /* The recorded values. */
    unsigned char *bytes;
    size_t count;
    size_t capacity;
    /* Where each value starts in the source (varints; see Tape.swift). */
    unsigned char *positions;
    size_t position_count;
    size_t position_capacity;
    /* The containers being recorded, innermost last. */
    cyajl_open_container *open;
    size_t open_count;
    size_t open_capacity;
    /* The position of the last value noted. */
    long previous_offset;
    long previous_line;
    long previous_column;
    /* The largest length or count a narrow header holds (lowered by tests). */
    size_t narrow_limit;
    /* Where the positions of the outermost open container begin (what its capture holds of
     * them, counted by the capture's byte limit beside its bytes). */
    size_t open_position_start;
} cyajl_tape;

/*
 * Inline here, not in a .c file: Swift calls it for every short copy, where a call would cost more
 * than the copy.
 *
 * Copies `count` bytes (the destination must not overlap the source): up to 16 with two overlapping loads and stores, no call to memcpy (nearly
 * every key and most strings are that short).
 */
static inline __attribute__((always_inline)) void cyajl_copy_bytes(void *destination, const void *source, size_t count) {
    unsigned char *to = (unsigned char *)destination;
    const unsigned char *from = (const unsigned char *)source;
    if (count > 16) {
        memcpy(to, from, count);
    } else if (count >= 8) {
        uint64_t head, tail;
        memcpy(&head, from, 8);
        memcpy(&tail, from + count - 8, 8);
        memcpy(to, &head, 8);
        memcpy(to + count - 8, &tail, 8);
    } else if (count >= 4) {
        uint32_t head, tail;
        memcpy(&head, from, 4);
        memcpy(&tail, from + count - 4, 4);
        memcpy(to, &head, 4);
        memcpy(to + count - 4, &tail, 4);
    } else if (count > 0) {
        /* 1 to 3 bytes: the first, the middle and the last (some of them the same byte). */
        unsigned char first = from[0], middle = from[count >> 1], last = from[count - 1];
        to[0] = first;
        to[count >> 1] = middle;
        to[count - 1] = last;
    }
}

/*
 * A forward-only line cursor over one chunk (TextPosition.swift): the newlines before `offset`
 * and where its line starts, and the next newline at or after it (the chunk's end when none),
 * so that values on one line cost one comparison each and every newline is found once.
 */
typedef struct {
    long base;
    long offset;
    long newlines;
    long line_start;
    long next_newline;
} cyajl_line_cursor;

/*
 * Where a string token ending at absolute `end` starts (its opening quote), when YAJL did not pass
 * its bytes in place (escaped, or begun in an earlier read): answered by Swift, which keeps what
 * that needs (TextPosition).
 */
typedef long (*cyajl_string_start)(void *context, const unsigned char *bytes, size_t length, long end);

typedef struct {
    /* The Swift callback target (unretained): the first field, read by every Swift callback. */
    void *target;
    /* The Swift callbacks' ParserState (the target's too): read straight from the context, it saves
     * every callback one dependent load before the path stack. */
    void *state;
    /* The table YAJL reads (owned by the bridge), and the Swift set it holds outside captures. */
    yajl_callbacks *live;
    yajl_callbacks swift_callbacks;
    yajl_handle handle;
    /* The tape being recorded on, or NULL outside a capture. */
    cyajl_tape *tape;
    /* The path depth of the captured container (the depth limit counts from there). */
    long base_depth;
    long max_depth;
    /* The deepest nesting seen inside captures, and the events they recorded, since the bridge
     * last took them. */
    long max_depth_seen;
    long event_count;
    /* Where a container past `max_depth` would have opened, or -1. */
    long depth_error_offset;
    /* The bytes the captured value may take on its tape, its source positions included, before the
     * capture stops (a value held whole for its query's sake is limited by maxBufferedBytes),
     * LONG_MAX when none; and whether it did stop there. Counted from the captured container's
     * tag and its first position, which move when handed-out records are dropped before them. */
    long byte_limit;
    int over_byte_limit;
    /* The chunk being parsed, its absolute offset, and its line (TextPosition's, at its start). */
    const unsigned char *chunk;
    size_t chunk_length;
    long chunk_base;
    long newlines_before;
    long line_start_before;
    cyajl_line_cursor cursor;
    cyajl_string_start string_start;
} cyajl_capture;

/* What the callbacks keep (YAJL's context pointer). */
typedef struct {
    long depth;
    long max_depth;
    /* A value (not a string or key) was seen since the last read. */
    int saw_value;
    /* A container opened or closed since the last read. */
    int saw_container;
} cyajl_lean_state;


/* The record tape (Records/Tape.swift describes the encoding; tape.c). */
void cyajl_tape_init(cyajl_tape *tape);
void cyajl_tape_destroy(cyajl_tape *tape);
void cyajl_tape_start_container(cyajl_tape *tape, int kind, long offset, long line, long column);
void cyajl_tape_end_container(cyajl_tape *tape);
void cyajl_tape_text(
    cyajl_tape *tape, int kind, const void *text, size_t length, int noted, long offset, long line, long column
);
void cyajl_tape_number(cyajl_tape *tape, const void *text, size_t length, long offset, long line, long column);
void cyajl_tape_scalar(cyajl_tape *tape, int kind, int flag, long offset, long line, long column);
/* Drops the bytes before `start` and the positions before `position_start`. */
void cyajl_tape_discard(cyajl_tape *tape, size_t start, size_t position_start);
/* Moves the record that `other` had begun at `start` (positions at `position_start`) onto `tape`. */
void cyajl_tape_take_incomplete_record(cyajl_tape *tape, cyajl_tape *other, size_t start, size_t position_start);
void cyajl_tape_swap(cyajl_tape *a, cyajl_tape *b);

/* Line and column tracking (TextPosition.swift; capture.c). */
void cyajl_line_cursor_reset(cyajl_line_cursor *cursor);
/*
 * Line and column (1-based, the column in bytes) of absolute `offset` in `chunk` (which starts at
 * absolute `base`, on the line after `newlines_before` newlines, that line starting at
 * `line_start_before`).
 */
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
);

/* Capturing a selected container in C (capture.c; YAJLParserBridge+Capture.swift). */
/* Starts recording the inside of the container just opened on `tape` (at path depth `depth`),
 * stopping once that container takes more than `byte_limit` bytes of it. */
void cyajl_capture_begin(cyajl_capture *capture, cyajl_tape *tape, long depth, long byte_limit);
/* Ends the capture: the Swift callbacks again, from the next event on. */
void cyajl_capture_finish(cyajl_capture *capture);

/* The lean validation pass (lean_validation.c): containers always, scalars when `scalars` is set. */
yajl_callbacks cyajl_lean_callbacks(int scalars);
/* The open-string probe's table: a string callback that stops the parse. */
yajl_callbacks cyajl_probe_callbacks(void);

/* The strict UTF-8 check's fast path (utf8_prefix.c): how many leading bytes are certainly fine. */
size_t cyajl_valid_utf8_prefix(const uint8_t *data, size_t length, int useSSSE3);
/* Whether cyajl_valid_utf8_prefix can use SSSE3 on this CPU. */
int cyajl_utf8_prefix_available(void);

/* Scans of plain bytes (text.c). */
/* The index of the last byte equal to `byte` among the first `length` bytes of `data`, or -1. */
long cyajl_last_index_of(const void *data, int byte, size_t length);
/* The number of newlines among the `length` bytes at `data`. */
long cyajl_count_newlines(const unsigned char *data, size_t length);
/* strtod over `length` bytes that are not NUL-terminated, in the "C" locale; *ok is 0 only when
 * memory for a long copy could not be had. */
double cyajl_strtod(const char *text, size_t length, int *ok);

/* 5^q for q in [-342, 308], 128 bits each, high word first (powers_of_five.c). */
const uint64_t *cyajl_powers_of_five_table(void);

#endif /* CYAJL_SUPPORT_H */
