/*
 * The scene of the C/C++ examples (see scene.h): the fixture character (character.fbx compiled
 * rigid-gte, with the "wave" clip added from wave.ani) plays Walk, crossfades to Idle at frame 30 and
 * to the one-shot "wave" at 60 with its events, pauses at 80 and resumes at 84; an ANIMBIN file
 * (walk.animbin) is validated and played on a six-bone skeleton, crossfaded into itself at 35, paused
 * from 45 to 50, its marker reported and its bone matrices computed. Damaged files and bad calls get
 * error codes with offsets, and the scene goes on.
 *
 * It leaves the verification record in RAM (layout of runtime/src/record.rs): the words of
 * xtask/src/expect/c_game.rs, and root counter 2 ticks (8 CPU cycles) of the draw and the pose at the
 * measured frames (slots 0-7) and the slowest of frames 10-100 (slots 8, 9).
 */
#include <stddef.h>
#include <stdint.h>

#include "psxanim.h"
#include "scene.h"

#define T2_VALUE (*(volatile uint16_t *)0x1F801120)
#define T2_MODE (*(volatile uint16_t *)0x1F801124)
#define SCREEN_W 320
#define SCREEN_H 240

/* ---- The verification record (runtime/src/record.rs, version 4) ---- */
#define RESULT_WORDS 8192
#define CYCLE_SLOTS 80
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

#define OT_ENTRIES SCENE_OT_ENTRIES
#define PACKET_WORDS SCENE_PACKET_WORDS
#define BONES 6
#define MAX_EVENTS 8
#define FRAME_DONE SCENE_FRAME_DONE
static const uint32_t MEASURED[4] = {20, 36, 64, 90};

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

static psxanim_character_info info;
static psxanim_camera camera;
static psxanim_lighting lighting;
static int32_t walk, idle, wave;
static uint32_t max_draw, max_pose;

/* The library's panic hook, replacing its weak default (a bug in the library, never bad input): the
 * record says so as the Rust examples' panic handler does ("PANC" and the line), and the game stops. */
void psxanim_panic(uint32_t line)
{
    rec.error = 0x434E4150; /* "PANC" */
    rec.error_detail = line & 0xFFFF;
    rec.status = 3;
    for (;;)
        ;
}

void scene_setup(uint32_t program)
{
    psxanim_error e;
    rec.magic[0] = 0x4E415850; /* "PXAN" */
    rec.magic[1] = 0x43455256; /* "VREC" */
    rec.version = 5;
    rec.program = program;
    rec.status = 0;

    psxanim_gte_enable();
    T2_MODE = 0x0200; /* root counter 2: system clock / 8, free running */

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
    push((uint32_t)psxanim_character_get_info(&character, &info));
    push(info.bones);
    push(info.vertices);
    push(info.triangles);
    push(info.clips);
    walk = psxanim_character_find_clip(&character, "Walk");
    idle = psxanim_character_find_clip(&character, "Idle");
    wave = psxanim_character_find_clip(&character, "wave");
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

    camera.center_x = SCREEN_W / 2;
    camera.center_y = SCREEN_H / 2;
    camera.projection = 320;
    camera.screen_w = SCREEN_W;
    camera.screen_h = SCREEN_H;
    camera.zsf3 = 36;
    camera.near_z = 1000;
    push((uint32_t)psxanim_camera_orbit(&camera, 0, -3600, 0, 14000, 0, 0x0400));

    /* The character was imported with --lighting: one light from the upper left, a blue ambient. A
     * fog range too narrow for the GTE is refused (the lighting unchanged). No fog is drawn here:
     * pcsx_rearmed rounds NCDT its own way (psx-game checks fog on the console). */
    lighting.lights[0].dx = -2365;
    lighting.lights[0].dy = -2365;
    lighting.lights[0].dz = -2365;
    lighting.lights[0].r = 150;
    lighting.lights[0].g = 140;
    lighting.lights[0].b = 120;
    lighting.ambient[0] = 56;
    lighting.ambient[1] = 56;
    lighting.ambient[2] = 72;
    push_error(psxanim_scratch_set_lighting(&scratch, &lighting, &camera, &e), &e);
    lighting.fog = 1;
    lighting.fog_colour[0] = 16;
    lighting.fog_colour[1] = 24;
    lighting.fog_colour[2] = 64;
    lighting.fog_near = 30000;
    lighting.fog_far = 31000;
    push_error(psxanim_scratch_set_lighting(&scratch, &lighting, &camera, &e), &e);

    rec.status = 1;
}

void scene_frame(uint32_t frame, uint32_t *ot, uint32_t *packets)
{
    psxanim_error e;
    psxanim_event events[4];
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

    rec.frames = frame + 1;
}
