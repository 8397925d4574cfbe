/*
 * c-game: a C99 PlayStation program with no SDK that animates through psxanim's C API (psxanim.h,
 * libpsxanim_capi.a): the scene of scene.c, drawn every frame into this program's own ordering table
 * and packet buffer and sent to the GPU by DMA, double-buffered in VRAM.
 *
 * This file is the hardware a program without an SDK drives itself (GPU set-up, display buffers, the
 * linked-list DMA, vsync by polling I_STAT); start-up in start.S, memcpy/memset/memcmp in libc.c, the
 * files in assets.S. Its verification record is program "CGAM" (cargo xtask verify --example c-game).
 */
#include <stddef.h>
#include <stdint.h>

#include "psxanim.h"
#include "scene.h"

/* ---- Hardware registers ---- */
#define REG32(a) (*(volatile uint32_t *)(a))
#define REG16(a) (*(volatile uint16_t *)(a))
#define GP0 REG32(0x1F801810)
#define GP1 REG32(0x1F801814)
#define GPUSTAT REG32(0x1F801814)
#define I_STAT REG16(0x1F801070)
#define I_MASK REG16(0x1F801074)
#define D2_MADR REG32(0x1F8010A0)
#define D2_BCR REG32(0x1F8010A4)
#define D2_CHCR REG32(0x1F8010A8)
#define DPCR REG32(0x1F8010F0)

#define SCREEN_W 320
#define SCREEN_H 240

static void gpu_command(uint32_t word)
{
    while (!(GPUSTAT & (1u << 26))) /* ready for a command */
        ;
    GP0 = word;
}

static void gpu_init(void)
{
    GP1 = 0x00000000;                                     /* reset */
    GP1 = 0x08000001;                                     /* 320x240, NTSC, 15-bit */
    GP1 = 0x06000000 | 0x260 | ((0x260 + 320 * 8) << 12); /* horizontal range */
    GP1 = 0x07000000 | (0x88 - 120) | ((0x88 + 120) << 10); /* vertical range */
    GP1 = 0x04000002;                                     /* DMA: CPU to GP0 */
    gpu_command(0xE1000600);                              /* draw to display area, dither */
    gpu_command(0xE6000000);                              /* mask bit off */
    GP1 = 0x03000000;                                     /* display on */
    DPCR |= 0x800;                                        /* DMA channel 2 (GPU) on */
}

/* Shows buffer `shown`, draws into the other, clears it to the background colour. */
static void gpu_buffers(int shown)
{
    uint32_t dy = shown ? 0 : SCREEN_H;
    GP1 = 0x05000000 | ((uint32_t)(shown ? SCREEN_H : 0) << 10);
    gpu_command(0xE3000000 | (dy << 10));
    gpu_command(0xE4000000 | (SCREEN_W - 1) | ((dy + SCREEN_H - 1) << 10));
    gpu_command(0xE5000000 | (dy << 11));
    /* Fill rectangle, BGR 0x402010: one command of three words (bit 26 is clear until all arrive). */
    gpu_command(0x02402010);
    GP0 = dy << 16;
    GP0 = (SCREEN_H << 16) | SCREEN_W;
}

static void gpu_wait_idle(void)
{
    while (D2_CHCR & (1u << 24)) /* DMA busy */
        ;
    while (!(GPUSTAT & (1u << 26)))
        ;
}

static void gpu_send_list(const uint32_t *head)
{
    while (!(GPUSTAT & (1u << 28))) /* ready for DMA */
        ;
    D2_MADR = (uint32_t)(uintptr_t)head & 0x00FFFFFF;
    D2_BCR = 0;
    D2_CHCR = 0x01000401; /* linked list, from RAM, start */
}

static void vsync_wait(void)
{
    I_STAT = (uint16_t)~1u;
    while (!(I_STAT & 1))
        ;
    I_STAT = (uint16_t)~1u;
}

static uint32_t ot[SCENE_OT_ENTRIES];
static uint32_t packets[SCENE_PACKET_WORDS];

void main(void)
{
    gpu_init();
    I_MASK = 0; /* no interrupts: vsync is polled */
    scene_setup(0x4D414743); /* "CGAM" */
    int shown = 0;
    for (uint32_t frame = 0;; frame++) {
        gpu_wait_idle(); /* the previous frame's list is sent: its table and packets are free again */
        scene_frame(frame, ot, packets);
        vsync_wait();
        gpu_buffers(shown);
        shown ^= 1;
        gpu_send_list(psxanim_ot_head(ot, SCENE_OT_ENTRIES));
    }
}
