#!/usr/bin/env python3
"""Writes Sources/CYAJLSupport/powers_of_five.c: 5^q for q in [-342, 308], normalized and truncated to
128 bits, high word first (the construction of fast_float's table_generation.py)."""
import pathlib

lines = []


def emit(c):
    lines.append(f"    0x{c >> 64:016x}ULL, 0x{c & ((1 << 64) - 1):016x}ULL,")


for q in range(-342, 0):
    power5 = 5 ** -q
    z = 0
    while (1 << z) < power5:
        z += 1
    if q >= -27:
        emit(2 ** (z + 127) // power5 + 1)
    else:
        c = 2 ** (2 * z + 2 * 64) // power5 + 1
        while c >= (1 << 128):
            c //= 2
        emit(c)
for q in range(0, 309):
    power5 = 5 ** q
    while power5 < (1 << 127):
        power5 *= 2
    while power5 >= (1 << 128):
        power5 //= 2
    emit(power5)

header = f"""/*
 * powers_of_five.c: 5^q for q in [-342, 308], normalized and truncated to 128 bits (high word
 * first), for the Eisel-Lemire number parser (Sources/YAJLCore/Events/EiselLemire.swift). Generated
 * by scripts/generate-powers-of-five.py, the construction of fast_float's table_generation.py.
 */
#include "CYAJLSupport.h"

static const uint64_t cyajl_powers_of_five[{len(lines) * 2}] = {{
""" + "\n".join(lines) + """
};

const uint64_t *cyajl_powers_of_five_table(void) { return cyajl_powers_of_five; }
"""
pathlib.Path(__file__).resolve().parent.parent.joinpath("Sources/CYAJLSupport/powers_of_five.c").write_text(header)
