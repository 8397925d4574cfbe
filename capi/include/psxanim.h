/*
 * psxanim.h: psxanim's PlayStation runtime for C and C++ games (libpsxanim_capi.a).
 *
 * Skeletal animation for the original PlayStation: ANIMBIN clip files played on a skeleton (bone
 * matrices out), and characters compiled by `psxanim import` (.pxsk) played, crossfaded and drawn with
 * the GTE into the game's own ordering table and packet buffer. The same Rust code as the Rust API,
 * bit for bit.
 *
 * Memory: no heap. Every object lives in storage the game provides (a static, a global, the stack):
 * declare a psxanim_animbin, psxanim_controller, psxanim_character, psxanim_actor or psxanim_scratch
 * and make it with its _load / _init function. After that an object must not be copied or moved (it
 * points into itself and at the file bytes and objects it was made from); the file bytes must outlive
 * every object made from them. A character's bytes must be 4-byte aligned.
 *
 * Errors: every function returns PSXANIM_OK (0) or a negative PSXANIM_E_* status (the _count / _find /
 * _update / _pose functions return a count or index >= 0 instead of OK). Given a non-null
 * psxanim_error, a function taking one fills it: the status, the runtime's own error code (`detail`:
 * which ANIMBIN or table check failed, the bone, the limit) and the byte offset in the file at fault.
 * Null pointers, misaligned storage, handles not made by their _load / _init, out-of-range indices,
 * short or damaged files: all answered by a status, never a crash.
 *
 * The GTE and the scratchpad: psxanim_controller_pose and psxanim_actor_draw enable COP2 and use the
 * GTE; afterwards its rotation/translation matrices, screen offset (OFX/OFY), H, ZSF3/ZSF4 and data
 * registers hold the library's values: set your own again before your GTE work. A draw overwrites the
 * first `materials` words of the scratchpad (0x1F800000), for a character with blended vertices its
 * first 32 bytes a bone (the bones' matrices, up to 30 bones) and 48 bytes at 0x1F8003C0, and for a
 * rigid one its first 960 bytes (its poses and its matrices' copies while they are composed), and for
 * a lit one its first 288 bytes and 40 at 0x1F8003C0 (the lit passes' parameters). Nothing else is
 * touched, no interrupt state is changed, no BIOS function is called.
 *
 * What the library needs from the game (see README "C and C++ games"):
 * - memcpy, memset and memcmp (standard C semantics). Link the SDK's libc (PSn00bSDK's libc, psyqo's
 *   own) or define them; the library defines none of them. 64-bit division helpers come inside the
 *   library as weak symbols (libgcc's win if linked).
 * - A panic is a bug in the library (bad input never panics): it calls
 *   `void psxanim_panic(uint32_t line)`, which must not return. The library holds a weak default
 *   that spins forever; define your own to report it.
 * - Compile and link for MIPS I, little-endian, no FPU, no abicalls, no gp-relative data:
 *   -march=r3000 (or -march=mips1) -EL -msoft-float -mno-abicalls -fno-pic -G0
 */
#ifndef PSXANIM_H
#define PSXANIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#define PSXANIM_STATIC_ASSERT(c, m) static_assert(c, m)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define PSXANIM_STATIC_ASSERT(c, m) _Static_assert(c, m)
#elif defined(__GNUC__)
/* C99 under GCC/Clang: the C11 keyword, marked as the extension it is there (-pedantic stays quiet). */
#define PSXANIM_STATIC_ASSERT(c, m) __extension__ _Static_assert(c, m)
#else
#define PSXANIM_STATIC_ASSERT(c, m) typedef char psxanim_static_assert_##__LINE__[(c) ? 1 : -1]
#endif

#define PSXANIM_API_VERSION 6

/* Statuses. */
#define PSXANIM_OK 0
#define PSXANIM_E_NULL (-1)      /* a pointer the function needs is null */
#define PSXANIM_E_ALIGN (-2)     /* storage or data not 4-byte aligned */
#define PSXANIM_E_HANDLE (-3)    /* not made by its _load/_init (or overwritten since) */
#define PSXANIM_E_ANIMBIN (-4)   /* invalid ANIMBIN file: detail = check (1 truncated, 2 magic, 3 version, ...), offset = byte */
#define PSXANIM_E_CHARACTER (-5) /* invalid .pxsk: detail = table check (1 too short, 2 magic, 3 version, ...), offset = byte */
#define PSXANIM_E_RANGE (-6)     /* index, count or rate out of range: detail = the limit */
#define PSXANIM_E_SKELETON (-7)  /* bad skeleton: detail = the bone (parents must come first; unit rotations) */
#define PSXANIM_E_PLAY (-8)      /* the clip animates joints the skeleton does not have */
#define PSXANIM_E_RENDER (-9)    /* the frame could not be drawn: detail = render error code */
#define PSXANIM_E_NOT_FOUND (-10) /* no clip of that name */

/* Capacities. */
#define PSXANIM_CONTROLLER_MAX_BONES 32 /* bones of a controller's skeleton */
#define PSXANIM_ACTOR_STREAM_WORDS 192  /* decoder words a clip of an actor may need (3 a rotation, 6 a translation) */
#define PSXANIM_MAX_BONES 64            /* bones of a drawn character */
#define PSXANIM_SCRATCH_VERTICES 1024   /* vertices of a drawn character (more: PSXANIM_E_RENDER) */
/* ANIMBIN files are read with the original runtime's capacity: 5 clips, 50 tracks a clip, 30 keys a
 * track, 5 markers a clip. */

/* Storage of the opaque objects, in bytes (the console's sizes; checked against the library). */
#define PSXANIM_ANIMBIN_SIZE 1084
#define PSXANIM_CONTROLLER_SIZE 12380
#define PSXANIM_CHARACTER_SIZE 252
#define PSXANIM_ACTOR_SIZE 1740
#define PSXANIM_SCRATCH_SIZE 31804

typedef struct psxanim_animbin { uint32_t opaque[PSXANIM_ANIMBIN_SIZE / 4]; } psxanim_animbin;
typedef struct psxanim_controller { uint32_t opaque[PSXANIM_CONTROLLER_SIZE / 4]; } psxanim_controller;
typedef struct psxanim_character { uint32_t opaque[PSXANIM_CHARACTER_SIZE / 4]; } psxanim_character;
typedef struct psxanim_actor { uint32_t opaque[PSXANIM_ACTOR_SIZE / 4]; } psxanim_actor;
typedef struct psxanim_scratch { uint32_t opaque[PSXANIM_SCRATCH_SIZE / 4]; } psxanim_scratch;

/* What went wrong: status (the return value), the runtime's code, the byte offset in the file. */
typedef struct psxanim_error {
    int32_t status;
    uint32_t detail;
    uint32_t offset;
} psxanim_error;

/* A bone matrix as the GTE takes it: FP12 rotation (4096 = 1.0, row-major), translation in GTE units. */
typedef struct psxanim_matrix {
    int16_t m[3][3];
    int16_t pad;
    int32_t t[3];
} psxanim_matrix;

/* A bone's bind pose relative to its parent: unit FP12 quaternion w, x, y, z and FP12 translation. */
typedef struct psxanim_bind {
    int16_t rotation[4];
    int32_t translation[3];
} psxanim_bind;

/* A marker (ANIMBIN) or clip event (character) crossed by an update: its name is name_len bytes at
 * name_offset in the file it came from (not NUL-terminated). */
typedef struct psxanim_event {
    uint32_t name_offset;
    uint16_t name_len;
    uint16_t index; /* the marker's number in its clip */
    uint16_t frame; /* the clip frame it sits on */
    uint16_t reserved;
} psxanim_event;

/* Everything the GTE needs besides each actor's matrix. */
typedef struct psxanim_camera {
    psxanim_matrix view;      /* world to camera (+X right, +Y down, +Z forward) */
    int16_t center_x, center_y; /* screen position of the optical axis */
    uint16_t projection;      /* H */
    int16_t screen_w, screen_h;
    int16_t zsf3;             /* ordering-table depth = zsf3 * (sz0 + sz1 + sz2) >> 12 */
    uint16_t near_z;          /* triangles nearer than this SZ are not drawn */
    uint16_t reserved;
} psxanim_camera;

/* One directional light: the world-space direction from the surface toward it, FP12 unit length,
 * and the colour it adds to a surface facing it squarely (128 = the texel or material as stored;
 * 0, 0, 0: off). */
typedef struct psxanim_light {
    int16_t dx, dy, dz;
    uint8_t r, g, b;
    uint8_t reserved[3];
} psxanim_light;

/* Lights for psxanim_scratch_set_lighting: up to three lights, an ambient colour added everywhere
 * (128, 128, 128 alone draws everything as stored), and with fog = 1 depth cueing toward fog_colour,
 * none at view-space depth fog_near (SZ units) and nearer, wholly at fog_far and beyond. */
typedef struct psxanim_lighting {
    psxanim_light lights[3];
    uint8_t ambient[3];
    uint8_t fog;
    uint8_t fog_colour[3];
    uint8_t reserved;
    uint16_t fog_near, fog_far;
} psxanim_lighting;

typedef struct psxanim_draw_stats {
    uint32_t drawn;
    uint32_t back_facing;
    uint32_t rejected; /* too near, too large, or no room left in the packet buffer */
    uint32_t culled;   /* 1: off screen, nothing posed or drawn */
} psxanim_draw_stats;

#define PSXANIM_PLAYING 1u
#define PSXANIM_FADING 2u
#define PSXANIM_FINISHED 4u
#define PSXANIM_PAUSED 8u
typedef struct psxanim_play_state {
    uint32_t time;  /* the playing clip's time, 4096 per clip frame */
    uint32_t flags; /* PSXANIM_PLAYING | PSXANIM_FADING | PSXANIM_FINISHED | PSXANIM_PAUSED */
} psxanim_play_state;

typedef struct psxanim_character_info {
    uint32_t bones, vertices, triangles, clips, materials;
    uint32_t storage; /* 0 rigid-gte, 1 baked-vertices */
} psxanim_character_info;

PSXANIM_STATIC_ASSERT(sizeof(psxanim_animbin) == PSXANIM_ANIMBIN_SIZE, "psxanim_animbin");
PSXANIM_STATIC_ASSERT(sizeof(psxanim_controller) == PSXANIM_CONTROLLER_SIZE, "psxanim_controller");
PSXANIM_STATIC_ASSERT(sizeof(psxanim_character) == PSXANIM_CHARACTER_SIZE, "psxanim_character");
PSXANIM_STATIC_ASSERT(sizeof(psxanim_actor) == PSXANIM_ACTOR_SIZE, "psxanim_actor");
PSXANIM_STATIC_ASSERT(sizeof(psxanim_scratch) == PSXANIM_SCRATCH_SIZE, "psxanim_scratch");
PSXANIM_STATIC_ASSERT(sizeof(psxanim_error) == 12, "psxanim_error");
PSXANIM_STATIC_ASSERT(sizeof(psxanim_matrix) == 32, "psxanim_matrix");
PSXANIM_STATIC_ASSERT(sizeof(psxanim_bind) == 20, "psxanim_bind");
PSXANIM_STATIC_ASSERT(sizeof(psxanim_event) == 12, "psxanim_event");
PSXANIM_STATIC_ASSERT(sizeof(psxanim_camera) == 48, "psxanim_camera");
PSXANIM_STATIC_ASSERT(sizeof(psxanim_light) == 12, "psxanim_light");
PSXANIM_STATIC_ASSERT(sizeof(psxanim_lighting) == 48, "psxanim_lighting");
PSXANIM_STATIC_ASSERT(sizeof(psxanim_draw_stats) == 16, "psxanim_draw_stats");
PSXANIM_STATIC_ASSERT(sizeof(psxanim_play_state) == 8, "psxanim_play_state");
PSXANIM_STATIC_ASSERT(sizeof(psxanim_character_info) == 24, "psxanim_character_info");

/* The library's PSXANIM_API_VERSION. */
uint32_t psxanim_api_version(void);
/* Sets COP0 Status bit 30 (CU2) only, never bit 16 (isolate cache). The pose and draw functions call it too. */
void psxanim_gte_enable(void);

/* ---- ANIMBIN clips on a skeleton ---- */

/* Validates `len` bytes as an ANIMBIN file for a skeleton of `bone_count` bones (<= 32). */
int32_t psxanim_animbin_load(psxanim_animbin *out, const void *bytes, uint32_t len, uint32_t bone_count, psxanim_error *err);
int32_t psxanim_animbin_clip_count(const psxanim_animbin *a);
/* Index of the clip called `name` (NUL-terminated, <= 32 bytes), or PSXANIM_E_NOT_FOUND. */
int32_t psxanim_animbin_find_clip(const psxanim_animbin *a, const char *name);

/* A skeleton of `bones` bones (1..32): parents[i] is 0xFF for a root or a bone before i. Both arrays are copied. */
int32_t psxanim_controller_init(psxanim_controller *out, const uint8_t *parents, const psxanim_bind *bind, uint32_t bones, psxanim_error *err);
/* Cut to clip `clip` of `a` at frame 0 (looping 0/1). */
int32_t psxanim_controller_play(psxanim_controller *c, const psxanim_animbin *a, uint32_t clip, uint32_t looping, psxanim_error *err);
/* Start clip `clip` and blend to it from the current pose over `frames` clip frames. */
int32_t psxanim_controller_crossfade(psxanim_controller *c, const psxanim_animbin *a, uint32_t clip, uint32_t looping, uint32_t frames, psxanim_error *err);
int32_t psxanim_controller_pause(psxanim_controller *c, uint32_t paused);
/* Clip frames per second shown at display_hz vsyncs a second (60 and 50 for 60 Hz clips on PAL). */
int32_t psxanim_controller_set_rates(psxanim_controller *c, uint32_t clip_hz, uint32_t display_hz);
/* Advance by `vsyncs`; the markers crossed go to events[0..capacity]. Returns how many were crossed. */
int32_t psxanim_controller_update(psxanim_controller *c, uint32_t vsyncs, psxanim_event *events, uint32_t capacity);
int32_t psxanim_controller_state(const psxanim_controller *c, psxanim_play_state *out);
/* Model-space matrices of the first min(count, bones) bones. Returns how many were written. Uses the GTE. */
int32_t psxanim_controller_pose(psxanim_controller *c, psxanim_matrix *out, uint32_t count, psxanim_error *err);

/* ---- Characters (psxanim import, .pxsk) and their actors ---- */

/* Validates `len` bytes (4-byte aligned) as a compiled character. */
int32_t psxanim_character_load(psxanim_character *out, const void *bytes, uint32_t len, psxanim_error *err);
int32_t psxanim_character_get_info(const psxanim_character *c, psxanim_character_info *out);
int32_t psxanim_character_find_clip(const psxanim_character *c, const char *name);

/* An idle actor for a display of display_hz vsyncs a second (60 NTSC, 50 PAL), interpolate 0 (stepped) or 1. */
int32_t psxanim_actor_init(psxanim_actor *out, uint32_t display_hz, uint32_t interpolate);
/* Turned `yaw` (65536 = one turn) about the vertical axis, at (x, y, z) in GTE units. */
int32_t psxanim_actor_place(psxanim_actor *a, int32_t x, int32_t y, int32_t z, uint32_t yaw);
int32_t psxanim_actor_play(psxanim_actor *a, const psxanim_character *c, uint32_t clip, uint32_t looping, psxanim_error *err);
/* Fade to `clip` over `frames` of its samples. */
int32_t psxanim_actor_crossfade(psxanim_actor *a, const psxanim_character *c, uint32_t clip, uint32_t looping, uint32_t frames, psxanim_error *err);
int32_t psxanim_actor_pause(psxanim_actor *a, uint32_t paused);
/* Advance by `vsyncs`; the playing clip's events crossed go to events[0..capacity]. Returns how many. */
int32_t psxanim_actor_update(psxanim_actor *a, uint32_t vsyncs, psxanim_event *events, uint32_t capacity);
int32_t psxanim_actor_state(const psxanim_actor *a, psxanim_play_state *out);

/* The renderer's working memory, shared by every actor in turn. */
int32_t psxanim_scratch_init(psxanim_scratch *out);
/* Model-view matrices of the first min(count, bones) bones of the rigid character drawn last. */
int32_t psxanim_scratch_bone_matrices(const psxanim_scratch *s, psxanim_matrix *out, uint32_t count);
/* Lights every character drawn with this scratch that was imported with --lighting (one without
 * normals stays unlit): its triangles are drawn Gouraud, each corner's colour from the GTE (NCS, NCDS
 * with fog). lighting NULL: unlit again. With fog the camera's H is the one the fog holds for.
 * PSXANIM_E_RANGE (the lighting unchanged): detail 1 fog_far not beyond fog_near (or fog_near 0),
 * 2 the camera's H is 0, 3 the range too narrow for the GTE's depth cue at that H (widen it). */
int32_t psxanim_scratch_set_lighting(psxanim_scratch *s, const psxanim_lighting *lighting, const psxanim_camera *camera,
                                     psxanim_error *err);

/* Writes camera->view: `distance` from (tx, ty, tz), turned `yaw`, looking down `pitch` (65536 = one turn). */
int32_t psxanim_camera_orbit(psxanim_camera *camera, int32_t tx, int32_t ty, int32_t tz, int32_t distance, uint32_t yaw, uint32_t pitch);

/* Ordering tables are reverse-linked (PsyQ's ClearOTagR, DMA channel 6): entry z holds the address of
 * entry z-1, entry 0 ends the list (0x00FFFFFF); send from psxanim_ot_head (the last entry) with GPU
 * DMA (channel 2) in linked-list mode. A larger depth is drawn first (farther). */
int32_t psxanim_ot_clear(uint32_t *ot, uint32_t entries);
const uint32_t *psxanim_ot_head(const uint32_t *ot, uint32_t entries);

/* Poses actor `a` of character `c` and links its front faces as flat GP0 packets (POLY_F3 5 words
 * with their link header, POLY_F4 6) after entry min(otz, ot_entries - 2) of `ot` (the last entry is
 * left for the game's background), writing them from packets[*packets_used] on and advancing
 * *packets_used; a full buffer rejects the rest (stats->rejected). Loads the camera's screen
 * registers. After it, the scratch holds the actor's bone matrices. stats may be null. */
int32_t psxanim_actor_draw(psxanim_actor *a, const psxanim_character *c, const psxanim_camera *camera, psxanim_scratch *s,
                           uint32_t *ot, uint32_t ot_entries, uint32_t *packets, uint32_t packet_words,
                           uint32_t *packets_used, psxanim_draw_stats *stats, psxanim_error *err);

/* Called on a bug (never on bad input); must not return. The library's weak default spins. */
void psxanim_panic(uint32_t line);

#ifdef __cplusplus
}
#endif

#endif /* PSXANIM_H */
