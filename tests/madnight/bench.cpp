/*
 * The Madnight engine's own skeletal animation code against psxanim's C API, in one psyqo program,
 * on the same clip (written by the engine's Blender exporter) and the same 20-bone chain: per frame,
 * the engine's SkeletonController::PlayAnimation (one frame step) + UpdateSkeletonBoneMatrices, and
 * psxanim_controller_update + psxanim_controller_pose. Root counter 2 (8 CPU cycles a tick) times each
 * over frames 5-34; the record (program "MADN") holds per side the fastest, slowest and total ticks.
 *
 * Local runs only: run.sh copies the engine's sources from a checkout (never committed) beside this
 * file and builds with psyqo's make files. This file is ours; it reads the ANIMBIN file into the
 * engine's structures itself (the engine's AnimationManager loads from its CD archive in a coroutine).
 */
#include <stddef.h>
#include <stdint.h>

#include "psyqo/application.hh"
#include "psyqo/gpu.hh"
#include "psyqo/scene.hh"

#include "animation/animation.hh"
#include "mesh/skeleton/skeleton.hh"
#include "psxanim.h"

extern "C" const uint8_t clip_animbin[], clip_animbin_end[];

namespace {

constexpr int BONES = 20;
constexpr uint32_t FIRST = 5, LAST = 34;
static_assert(MAX_BONES >= BONES, "run.sh sets the engine's MAX_BONES to 20");

#define T2_VALUE (*(volatile uint16_t *)0x1F801120)
#define T2_MODE (*(volatile uint16_t *)0x1F801124)

struct Record {
    uint32_t magic[2], version, program, frames, status, error, error_detail, result_len, cycle_len;
    uint32_t cycles[80];  // psxanim_runtime::record::CYCLE_SLOTS
    uint32_t results[8192];
};
Record rec;
void push(uint32_t w) { rec.results[rec.result_len++] = w; }

AnimationBin bin = {0, {}};  // as the engine declares it (its Key union has no default constructor)
Skeleton skeleton;
psxanim_animbin anim;
psxanim_controller controller;
psxanim_matrix matrices[BONES];

uint16_t u16(const uint8_t *p) { return p[0] | p[1] << 8; }
uint32_t u32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

// The file into the engine's structures (the layout of tools/ANIMBIN.md, as its loader reads it).
void parse_for_engine(const uint8_t *p) {
    bin.numAnimations = p[8];
    p += 9;
    for (int a = 0; a < bin.numAnimations; a++) {
        Animation &anim = bin.animations[a];
        p += 32;
        anim.flags = u32(p);
        anim.length = u16(p + 4);
        anim.numTracks = u16(p + 6);
        anim.numMarkers = u16(p + 8);
        p += 10;
        for (int t = 0; t < anim.numTracks; t++) {
            Track &track = anim.tracks[t];
            track.type = p[0];
            track.jointId = p[1];
            track.numKeys = u16(p + 2);
            p += 4;
            for (int k = 0; k < track.numKeys; k++) {
                Key &key = track.keys[k];
                key.frame = u16(p);
                key.keyType = (KeyType)p[2];
                p += 3;
                if (key.keyType == KeyType::ROTATION) {
                    key.rotation.w.value = (int16_t)u16(p);
                    key.rotation.x.value = (int16_t)u16(p + 2);
                    key.rotation.y.value = (int16_t)u16(p + 4);
                    key.rotation.z.value = (int16_t)u16(p + 6);
                    p += 8;
                } else {
                    key.translation.x.value = (int32_t)u32(p);
                    key.translation.y.value = (int32_t)u32(p + 4);
                    key.translation.z.value = (int32_t)u32(p + 8);
                    p += 12;
                }
            }
        }
        p += anim.numMarkers * 34;
    }
}

struct Side {
    uint32_t fastest = 0xFFFFFFFF, slowest = 0, total = 0;
    void add(uint32_t ticks) {
        if (ticks < fastest) fastest = ticks;
        if (ticks > slowest) slowest = ticks;
        total += ticks;
    }
};
Side engine_side, psxanim_side;

class Bench final : public psyqo::Application {
    void prepare() override {
        psyqo::GPU::Configuration config;
        config.set(psyqo::GPU::Resolution::W320)
            .set(psyqo::GPU::VideoMode::NTSC)
            .set(psyqo::GPU::ColorMode::C15BITS)
            .set(psyqo::GPU::Interlace::PROGRESSIVE);
        gpu().initialize(config);
    }
    void createScene() override;
};

class Stage final : public psyqo::Scene {
    uint32_t m_frame = 0;
    void start(StartReason) override {
        rec.magic[0] = 0x4E415850;
        rec.magic[1] = 0x43455256;
        rec.version = 5;
        rec.program = 0x4E44414D;  // "MADN"
        rec.status = 1;
        T2_MODE = 0x0200;
        psxanim_gte_enable();
        parse_for_engine(clip_animbin);
        skeleton.numBones = BONES;
        uint8_t parents[BONES];
        psxanim_bind bind[BONES];
        for (int i = 0; i < BONES; i++) {
            auto &bone = skeleton.bones[i];
            bone.id = i;
            bone.parent = i - 1;
            bone.localPos = {0, -0.1_fp, 0};
            bone.isDirty = true;
            parents[i] = i == 0 ? 0xFF : i - 1;
            bind[i] = psxanim_bind{{4096, 0, 0, 0}, {0, -409, 0}};
        }
        SkeletonController::SetAnimation(&skeleton, &bin.animations[0]);
        psxanim_error e;
        uint32_t len = (uint32_t)(clip_animbin_end - clip_animbin);
        push((uint32_t)psxanim_animbin_load(&anim, clip_animbin, len, BONES, &e));
        push((uint32_t)psxanim_controller_init(&controller, parents, bind, BONES, &e));
        push((uint32_t)psxanim_controller_play(&controller, &anim, 0, 1, &e));
        push(bin.animations[0].numTracks);
    }
    void frame() override {
        uint16_t t0 = T2_VALUE;
        SkeletonController::PlayAnimation(&skeleton, 1);
        SkeletonController::UpdateSkeletonBoneMatrices(&skeleton);
        SkeletonController::MarkBonesClean(&skeleton);
        uint16_t t1 = T2_VALUE;
        psxanim_controller_update(&controller, 1, nullptr, 0);
        psxanim_controller_pose(&controller, matrices, BONES, nullptr);
        uint16_t t2 = T2_VALUE;
        if (m_frame >= FIRST && m_frame <= LAST) {
            engine_side.add((uint16_t)(t1 - t0));
            psxanim_side.add((uint16_t)(t2 - t1));
        }
        if (m_frame == LAST) {
            for (auto *s : {&engine_side, &psxanim_side}) {
                push(s->fastest * 8);
                push(s->slowest * 8);
                push(s->total * 8 / (LAST - FIRST + 1));
            }
            rec.status = 2;
        }
        gpu().clear();
        rec.frames = ++m_frame;
    }
};

Bench bench;
Stage stage;
void Bench::createScene() { pushScene(&stage); }

}  // namespace

int main() { return bench.run(); }
