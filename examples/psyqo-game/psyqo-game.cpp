/*
 * psyqo-game: the scene of examples/c-game (scene.c, through psxanim's C API) as a psyqo game (C++20,
 * PCSX-Redux's src/mips/psyqo). psyqo owns the machine: its start-up, the BIOS kernel's interrupts,
 * the GPU set-up, the double-buffered display and the DMA chain sent at each flip. psxanim draws into
 * its own reverse-linked ordering table, which the game hands to psyqo's chain after the screen clear
 * (psyqo's own OrderingTable has the same layout: entry 0 ends the list, entry z links to z - 1).
 *
 * The chain of frame N is sent while frame N + 1 is built, so the table and the packets are double
 * buffered. The verification record is program "QGAM" (cargo xtask verify --example psyqo-game).
 */
#include <stddef.h>
#include <stdint.h>

#include "psyqo/application.hh"
#include "psyqo/fragments.hh"
#include "psyqo/gpu.hh"
#include "psyqo/primitives/misc.hh"
#include "psyqo/scene.hh"

#include "psxanim.h"
#include "scene.h"

namespace {

// One entry of psxanim's ordering table, as psyqo's chain() takes it: a fragment of no words but its link.
struct OtEntry {
    uint32_t head;
    size_t getActualFragmentSize() const { return 0; }
};
static_assert(sizeof(OtEntry) == 4 && alignof(OtEntry) == 4);

class Game final : public psyqo::Application {
    void prepare() override;
    void createScene() override;
};

class Stage final : public psyqo::Scene {
    void start(StartReason reason) override;
    void frame() override;
    uint32_t m_frame = 0;
    psyqo::Fragments::SimpleFragment<psyqo::Prim::FastFill> m_clear[2];
};

Game game;
Stage stage;
uint32_t s_ot[2][SCENE_OT_ENTRIES];
uint32_t s_packets[2][SCENE_PACKET_WORDS];

}  // namespace

void Game::prepare() {
    psyqo::GPU::Configuration config;
    config.set(psyqo::GPU::Resolution::W320)
        .set(psyqo::GPU::VideoMode::NTSC)
        .set(psyqo::GPU::ColorMode::C15BITS)
        .set(psyqo::GPU::Interlace::PROGRESSIVE);
    gpu().initialize(config);
}

void Game::createScene() { pushScene(&stage); }

void Stage::start(StartReason reason) {
    if (reason == StartReason::Create) scene_setup(0x4D414751);  // "QGAM"
}

void Stage::frame() {
    unsigned b = m_frame & 1;
    scene_frame(m_frame, s_ot[b], s_packets[b]);
    psyqo::Color background;
    background.r = 0x10;
    background.g = 0x20;
    background.b = 0x40;
    gpu().getNextClear(m_clear[b].primitive, background);
    gpu().chain(m_clear[b]);
    auto *ot = reinterpret_cast<OtEntry *>(s_ot[b]);
    gpu().chain(&ot[SCENE_OT_ENTRIES - 1], &ot[0]);
    m_frame++;
}

int main() { return game.run(); }
