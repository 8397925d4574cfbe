/*
 * c-game: a C99 PlayStation program with no SDK that animates through psxanim's C API (psxanim.h,
 * libpsxanim_capi.a).
 *
 * The fixture character (tests/fixtures/fbx/character.fbx compiled rigid-gte, with the "wave" clip
 * added from wave.ani) plays Walk, crossfades to Idle, then to the one-shot "wave" with its events,
 * pauses and resumes, drawn every frame into this program's own ordering table and packet buffer and
 * sent to the GPU by DMA. Beside it an ANIMBIN file (tests/fixtures/formats/walk.animbin) is validated
 * and played on a six-bone skeleton, crossfaded, paused, its marker reported and its bone matrices
 * computed. Damaged files and bad calls get error codes with offsets, and the program goes on.
 *
 * For `cargo xtask verify --example c-game` it leaves the verification record in RAM (program "CGAM",
 * layout of runtime/src/record.rs): the words listed in xtask/src/expect/c_game.rs, which computes the
 * same calls on the host; and root counter 2 ticks (8 CPU cycles each) of the draw and the pose.
 * Start-up in start.S, memcpy/memset/memcmp in libc.c, the files in assets.S.
 */
#include <stddef.h>
#include <stdint.h>

#include "psxanim.h"

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
#define T2_VALUE REG16(0x1F801120)
#define T2_MODE REG16(0x1F801124)

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

/* ---- The verification record (runtime/src/record.rs, version 4) ---- */
#define RESULT_WORDS 8192
#define CYCLE_SLOTS 64
typedef struct record {
    uint32_t magic[2];
    uint32_t version;
    uint32_t program;
    uint32_t frames;
    uint32_t status; /* 0 booting, 1 running, 2 done, 3 failed */
    uint32_t error;
    uint32_t error_detail;
    uint32_t result_len;
    uint32_t cycle_len;
    uint32_t cycles[CYCLE_SLOTS];
    uint32_t results[RESULT_WORDS];
} record;
PSXANIM_STATIC_ASSERT(sizeof(record) == 40 + 4 * (CYCLE_SLOTS + RESULT_WORDS), "record layout");

static record rec;

static void push(uint32_t w)
{
    if (rec.result_len < RESULT_WORDS)
        rec.results[rec.result_len++] = w;
}

static void set_cycles(uint32_t slot, uint32_t ticks)
{
    rec.cycles[slot] = ticks;
    if (rec.cycle_len < slot + 1)
        rec.cycle_len = slot + 1;
}

static uint32_t fnv(uint32_t h, uint32_t w)
{
    for (int i = 0; i < 4; i++) {
        h = (h ^ (w & 0xFF)) * 0x01000193u;
        w >>= 8;
    }
    return h;
}

#define FNV_START 0x811C9DC5u

static uint32_t hash_matrices(const psxanim_matrix *m, int32_t n)
{
    uint32_t h = FNV_START;
    for (int32_t i = 0; i < n; i++) {
        const uint32_t *w = (const uint32_t *)&m[i];
        for (int k = 0; k < 8; k++)
            h = fnv(h, w[k]);
    }
    return h;
}

/* The GP0 words of the packets written (their link headers hold RAM addresses: skipped). */
static uint32_t hash_packets(const uint32_t *packets, uint32_t used)
{
    uint32_t h = FNV_START;
    uint32_t i = 0;
    while (i < used) {
        uint32_t len = packets[i] >> 24;
        for (uint32_t k = 1; k <= len && i + k < used; k++)
            h = fnv(h, packets[i + k]);
        i += 1 + len;
    }
    return h;
}

/* ---- The scene ---- */
extern const uint8_t character_pxsk[], character_pxsk_end[];
extern const uint8_t walk_animbin[], walk_animbin_end[];

#define OT_ENTRIES 1024
#define PACKET_WORDS 4096
#define BONES 6
#define MAX_EVENTS 8
#define FRAME_DONE 100
static const uint32_t MEASURED[4] = {20, 36, 64, 90};

static uint32_t ot[OT_ENTRIES];
static uint32_t packets[PACKET_WORDS];
static psxanim_animbin anim;
static psxanim_animbin scratch_anim;
static psxanim_controller controller;
static psxanim_character character;
static psxanim_character scratch_character;
static psxanim_actor actor;
static psxanim_actor unmade_actor;
static psxanim_scratch scratch;
static uint32_t damaged[64 * 1024 / 4];
static psxanim_matrix bones[PSXANIM_MAX_BONES];
static psxanim_matrix pose[BONES];

static const uint8_t PARENTS[BONES] = {0xFF, 0, 1, 2, 3, 4};
static const psxanim_bind BIND[BONES] = {
    {{4096, 0, 0, 0}, {0, 0, 0}},         {{4096, 0, 0, 0}, {0, -2048, 0}},
    {{4096, 0, 0, 0}, {0, -2048, 0}},     {{2896, 2896, 0, 0}, {0, -2048, 0}},
    {{4096, 0, 0, 0}, {1024, -2048, 0}},  {{4096, 0, 0, 0}, {0, -2048, 512}},
};

/* Events: per source, the game frame and the event's name offset, clip frame and index. */
typedef struct event_log {
    uint32_t count;
    uint32_t words[MAX_EVENTS * 4];
} event_log;
static event_log actor_events, controller_events;

static void log_events(event_log *log, uint32_t frame, const psxanim_event *e, int32_t n)
{
    for (int32_t i = 0; i < n && i < 4; i++) {
        if (log->count < MAX_EVENTS) {
            uint32_t *w = &log->words[log->count * 4];
            w[0] = frame;
            w[1] = e[i].name_offset;
            w[2] = e[i].frame;
            w[3] = e[i].index;
        }
        log->count++;
    }
}

static void push_error(int32_t status, const psxanim_error *e)
{
    push((uint32_t)status);
    push(e->detail);
    push(e->offset);
}

void main(void)
{
    psxanim_error e;
    rec.magic[0] = 0x4E415850; /* "PXAN" */
    rec.magic[1] = 0x43455256; /* "VREC" */
    rec.version = 4;
    rec.program = 0x4D414743; /* "CGAM" */
    rec.status = 0;

    psxanim_gte_enable();
    gpu_init();
    T2_MODE = 0x0200; /* root counter 2: system clock / 8, free running */
    I_MASK = 0;

    uint32_t walk_len = (uint32_t)(walk_animbin_end - walk_animbin);
    uint32_t character_len = (uint32_t)(character_pxsk_end - character_pxsk);

    /* Setup: the library, damaged files, then the good ones. */
    push(psxanim_api_version());
    push_error(psxanim_animbin_load(&scratch_anim, walk_animbin, 40, BONES, &e), &e);
    uint8_t *bad = (uint8_t *)damaged;
    for (uint32_t i = 0; i < walk_len; i++)
        bad[i] = walk_animbin[i];
    bad[7] = 2;
    push_error(psxanim_animbin_load(&scratch_anim, bad, walk_len, BONES, &e), &e);
    push_error(psxanim_animbin_load(&anim, walk_animbin, walk_len, BONES, &e), &e);
    push((uint32_t)psxanim_animbin_clip_count(&anim));
    push((uint32_t)psxanim_animbin_find_clip(&anim, "Walk"));

    for (uint32_t i = 0; i < character_len && i < sizeof damaged; i++)
        bad[i] = character_pxsk[i];
    /* The second bone made its own parent (bones must come parent-first). */
    uint32_t bones_at = (uint32_t)bad[40] | (uint32_t)bad[41] << 8 | (uint32_t)bad[42] << 16 | (uint32_t)bad[43] << 24;
    bad[bones_at + 8] = 1;
    bad[bones_at + 9] = 0;
    push_error(psxanim_character_load(&scratch_character, bad, character_len, &e), &e);
    push_error(psxanim_character_load(&scratch_character, character_pxsk + 2, character_len - 2, &e), &e);
    push_error(psxanim_character_load(&scratch_character, 0, character_len, &e), &e);
    push_error(psxanim_character_load(&character, character_pxsk, character_len, &e), &e);
    psxanim_character_info info;
    push((uint32_t)psxanim_character_get_info(&character, &info));
    push(info.bones);
    push(info.vertices);
    push(info.triangles);
    push(info.clips);
    int32_t walk = psxanim_character_find_clip(&character, "Walk");
    int32_t idle = psxanim_character_find_clip(&character, "Idle");
    int32_t wave = psxanim_character_find_clip(&character, "wave");
    push((uint32_t)walk);
    push((uint32_t)idle);
    push((uint32_t)wave);
    push((uint32_t)psxanim_character_find_clip(&character, "Run"));
    push((uint32_t)psxanim_actor_update(&unmade_actor, 1, 0, 0));

    push_error(psxanim_controller_init(&controller, PARENTS, BIND, BONES, &e), &e);
    push_error(psxanim_controller_play(&controller, &anim, 0, 1, &e), &e);
    push_error(psxanim_controller_play(&controller, &anim, 3, 1, &e), &e);
    push((uint32_t)psxanim_actor_init(&actor, 60, 1));
    push((uint32_t)psxanim_actor_place(&actor, 0, 0, 0, 0x2000));
    push((uint32_t)psxanim_scratch_init(&scratch));
    push_error(psxanim_actor_play(&actor, &character, (uint32_t)walk, 1, &e), &e);

    psxanim_camera camera = {0};
    camera.center_x = SCREEN_W / 2;
    camera.center_y = SCREEN_H / 2;
    camera.projection = 320;
    camera.screen_w = SCREEN_W;
    camera.screen_h = SCREEN_H;
    camera.zsf3 = 36;
    camera.near_z = 1000;
    push((uint32_t)psxanim_camera_orbit(&camera, 0, -3600, 0, 14000, 0, 0x0400));

    rec.status = 1;
    uint32_t max_draw = 0, max_pose = 0;
    int shown = 0;
    psxanim_event events[4];
    for (uint32_t frame = 0;; frame++) {
        if (frame == 30)
            psxanim_actor_crossfade(&actor, &character, (uint32_t)idle, 1, 12, 0);
        if (frame == 60)
            psxanim_actor_crossfade(&actor, &character, (uint32_t)wave, 0, 8, 0);
        if (frame == 80)
            psxanim_actor_pause(&actor, 1);
        if (frame == 84)
            psxanim_actor_pause(&actor, 0);
        if (frame == 35)
            psxanim_controller_crossfade(&controller, &anim, 0, 1, 4, 0);
        if (frame == 45)
            psxanim_controller_pause(&controller, 1);
        if (frame == 50)
            psxanim_controller_pause(&controller, 0);

        gpu_wait_idle(); /* the previous frame's list is sent: its table and packets are free again */
        psxanim_ot_clear(ot, OT_ENTRIES);
        uint32_t used = 0;
        psxanim_draw_stats stats;
        uint16_t t0 = T2_VALUE;
        int32_t drawn = psxanim_actor_draw(&actor, &character, &camera, &scratch, ot, OT_ENTRIES, packets, PACKET_WORDS,
                                           &used, &stats, &e);
        uint16_t t1 = T2_VALUE;
        int32_t posed = psxanim_controller_pose(&controller, pose, BONES, &e);
        uint16_t t2 = T2_VALUE;
        uint32_t draw_ticks = (uint16_t)(t1 - t0), pose_ticks = (uint16_t)(t2 - t1);
        if (frame >= 10 && frame <= FRAME_DONE) {
            if (draw_ticks > max_draw)
                max_draw = draw_ticks;
            if (pose_ticks > max_pose)
                max_pose = pose_ticks;
        }

        for (int k = 0; k < 4; k++) {
            if (frame != MEASURED[k])
                continue;
            set_cycles(2 * k, draw_ticks);
            set_cycles(2 * k + 1, pose_ticks);
            push((uint32_t)drawn);
            push(stats.drawn);
            push(stats.back_facing);
            push(stats.rejected);
            push(stats.culled);
            push(used);
            push(hash_packets(packets, used));
            int32_t n = psxanim_scratch_bone_matrices(&scratch, bones, info.bones);
            push((uint32_t)n);
            push(hash_matrices(bones, n));
            push((uint32_t)posed);
            push(hash_matrices(pose, posed));
            psxanim_play_state st;
            psxanim_actor_state(&actor, &st);
            push(st.time);
            push(st.flags);
            psxanim_controller_state(&controller, &st);
            push(st.time);
            push(st.flags);
        }

        log_events(&actor_events, frame, events, psxanim_actor_update(&actor, 1, events, 4));
        log_events(&controller_events, frame, events, psxanim_controller_update(&controller, 1, events, 4));

        if (frame == FRAME_DONE) {
            const event_log *logs[2] = {&actor_events, &controller_events};
            for (int l = 0; l < 2; l++) {
                push(logs[l]->count);
                for (int i = 0; i < MAX_EVENTS * 4; i++)
                    push(logs[l]->words[i]);
            }
            set_cycles(8, max_draw);
            set_cycles(9, max_pose);
            rec.status = 2;
        }

        vsync_wait();
        gpu_buffers(shown);
        shown ^= 1;
        gpu_send_list(psxanim_ot_head(ot, OT_ENTRIES));
        rec.frames = frame + 1;
    }
}
