    .section .rodata.clip, "a", @progbits
    .balign 4
    .globl clip_animbin
clip_animbin:
    .incbin CLIP_ANIMBIN
    .globl clip_animbin_end
clip_animbin_end:
