#!/usr/bin/env python3
"""Independent PS-EXE header check, written from psx-spx ("CDROM File Formats: PS-X EXE")
separately from xtask/src/psexe.rs, so a mistake in the writer is not repeated in its check.

Usage: check_psexe.py FILE...   Exit status 0 when every file passes, 1 otherwise.
"""
import struct
import sys

HEADER = 0x800
RAM_LO, RAM_HI = 0x80000000, 0x80200000  # KSEG0 view of the 2 MiB main RAM
USER_LO = 0x80010000                     # first 64 KiB belong to the BIOS/kernel


def check(path):
    """Returns a list of problems (empty when the file is a good PS-EXE)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < HEADER:
        return [f"{len(data)} bytes, shorter than the 2048-byte header"]
    problems = []
    if data[0:8] != b"PS-X EXE":
        problems.append(f"magic {data[0:8]!r} is not b'PS-X EXE'")
    (pc0, gp0, t_addr, t_size, d_addr, d_size, b_addr, b_size, s_addr, s_size) = struct.unpack_from("<10I", data, 0x10)
    body = len(data) - HEADER
    if t_size % 2048:
        problems.append(f"t_size {t_size:#x} is not a multiple of 2048")
    if t_size != body:
        problems.append(f"t_size {t_size:#x} != file size - 2048 = {body:#x}")
    if not (USER_LO <= t_addr < RAM_HI) or t_addr % 4:
        problems.append(f"t_addr {t_addr:#010x} is not an aligned RAM address >= {USER_LO:#x}")
    if not (t_addr <= pc0 < t_addr + t_size) or pc0 % 4:
        problems.append(f"pc0 {pc0:#010x} is not inside the text {t_addr:#010x}+{t_size:#x}")
    if t_addr + t_size > RAM_HI:
        problems.append("text runs past the end of RAM")
    if b_size and not (t_addr <= b_addr and b_addr + b_size <= RAM_HI):
        problems.append(f"bss {b_addr:#010x}+{b_size:#x} is outside RAM")
    sp = s_addr + s_size if s_addr else 0x801FFF00
    if not (USER_LO < sp <= RAM_HI):
        problems.append(f"initial sp {sp:#010x} is outside RAM")
    if gp0 and not (RAM_LO <= gp0 < RAM_HI + 0x8000):
        problems.append(f"gp0 {gp0:#010x} is not near RAM")
    marker = data[0x4C:HEADER].split(b"\0", 1)[0]
    if marker and not marker.startswith(b"Sony Computer Entertainment Inc. for "):
        problems.append(f"region marker {marker[:60]!r} is not a Sony licence string")
    # The first instruction must not be all zeros (a text that was never copied in).
    if body >= 4 and struct.unpack_from("<I", data, HEADER + (pc0 - t_addr))[0] == 0 and not problems:
        problems.append(f"the word at pc0 {pc0:#010x} is zero")
    return problems


def main(paths):
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    bad = 0
    for path in paths:
        problems = check(path)
        if problems:
            bad += 1
            for p in problems:
                print(f"{path}: {p}")
        else:
            print(f"{path}: valid PS-EXE (independent check)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
