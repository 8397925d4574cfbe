/*
 * c-game's start-up: what a C program needs before main on a bare PlayStation (no BIOS calls, no SDK).
 *
 * The EXE loader (BIOS or emulator) jumps here with the EXE loaded; the linker script
 * (linker/psexe.ld) puts this section first and defines __bss_start/__bss_end, _gp and __stack_top.
 *  1. COP2 (the GTE) on: COP0 Status |= bit 30 (CU2) and nothing else. Never bit 16 (IsC, isolate
 *     cache): with it set, stores stop reaching RAM.
 *  2. .bss zeroed, a word at a time (the script aligns both ends to 4).
 *  3. $gp (unused with -G0, set for any object built without it) and $sp, then main(), which does not
 *     return; if it does, spin.
 */
    .set noreorder
    .set noat
    .section .text.__start, "ax", @progbits
    .globl __start
    .type __start, @function
__start:
    mfc0    $8, $12             /* t0 = Status */
    nop                         /* mfc0's load delay */
    lui     $9, 0x4000          /* CU2 */
    or      $8, $8, $9
    mtc0    $8, $12
    nop
    nop

    la      $8, __bss_start
    la      $9, __bss_end
1:  beq     $8, $9, 2f
    nop
    sw      $0, 0($8)
    b       1b
    addiu   $8, $8, 4
2:
    la      $gp, _gp
    la      $sp, __stack_top
    jal     main
    nop
3:  b       3b
    nop
    .size __start, . - __start
