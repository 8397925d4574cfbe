/* The fixture character (psxanim import, rigid-gte) and the ANIMBIN clip, embedded as they are.
 * CHARACTER_PXSK and WALK_ANIMBIN are paths given by the build (cargo xtask build-exe --example c-game). */
    .section .rodata.assets, "a", @progbits
    .balign 4
    .globl character_pxsk
character_pxsk:
    .incbin CHARACTER_PXSK
    .globl character_pxsk_end
character_pxsk_end:
    .balign 4
    .globl walk_animbin
walk_animbin:
    .incbin WALK_ANIMBIN
    .globl walk_animbin_end
walk_animbin_end:
