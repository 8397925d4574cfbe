/*
 * psn00b-game: the scene of examples/c-game (scene.c, through psxanim's C API) as a PSn00bSDK game (C).
 * PSn00bSDK owns the machine: its _start, the BIOS kernel's interrupts, ResetGraph, the display and
 * drawing environments (the drawing one clears the buffer), VSync, and DrawOTag, which sends a
 * reverse-linked ordering table from its last entry: the format psxanim_ot_clear writes (ClearOTagR's).
 * The table and packets are double buffered, as the GPU draws one frame while the next is built. The
 * verification record is program "NGAM" (cargo xtask verify --example psn00b-game).
 */
#include <stdint.h>
#include <psxgpu.h>

#include "psxanim.h"
#include "scene.h"

static uint32_t ot[2][SCENE_OT_ENTRIES];
static uint32_t packets[2][SCENE_PACKET_WORDS];
static DISPENV disp[2];
static DRAWENV draw[2];

int main(int argc, const char **argv)
{
    (void)argc;
    (void)argv;
    ResetGraph(0);
    for (int i = 0; i < 2; i++) {
        SetDefDispEnv(&disp[i], 0, i ? 0 : 240, 320, 240);
        SetDefDrawEnv(&draw[i], 0, i ? 240 : 0, 320, 240);
        draw[i].isbg = 1;
        setRGB0(&draw[i], 0x40, 0x20, 0x10);
    }
    scene_setup(0x4D41474E); /* "NGAM" */
    SetDispMask(1);
    for (uint32_t frame = 0;; frame++) {
        int b = (int)(frame & 1);
        scene_frame(frame, ot[b], packets[b]);
        DrawSync(0);
        VSync(0);
        PutDispEnv(&disp[b]);
        PutDrawEnv(&draw[b]);
        DrawOTag(psxanim_ot_head(ot[b], SCENE_OT_ENTRIES));
    }
    return 0;
}
