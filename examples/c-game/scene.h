/*
 * The scene every C/C++ example plays through psxanim's C API (c-game with no SDK, psyqo-game,
 * psn00b-game), apart from the hardware: each program sets up its GPU its own way, calls scene_setup
 * once and scene_frame once per frame, then sends the ordering table (reverse-linked, from
 * psxanim_ot_head) by GPU DMA. The words it records are computed on the host by
 * xtask/src/expect/c_game.rs, which makes the same calls in the same order.
 */
#ifndef SCENE_H
#define SCENE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCENE_OT_ENTRIES 1024
#define SCENE_PACKET_WORDS 4096
/* The frame after which every result is in the record (status DONE). */
#define SCENE_FRAME_DONE 100

/* Starts the verification record of `program` (four characters, little-endian) and root counter 2
 * (system clock / 8), loads the files (damaged copies first), makes the objects, records the set-up. */
void scene_setup(uint32_t program);

/* Frame `frame` (0, 1, 2, ...): the scripted plays and crossfades, the character drawn into `ot`
 * (cleared here) and `packets`, the ANIMBIN skeleton posed, results recorded at the measured frames,
 * both players advanced one vsync. */
void scene_frame(uint32_t frame, uint32_t *ot, uint32_t *packets);

#ifdef __cplusplus
}
#endif

#endif
