//! psx-game: a game written the psx-sdk-rs way that draws an imported character with psxanim.
//!
//! psx (0.1.8) owns the machine: its `__start` calls `main`, its panic handler prints, its
//! `Framebuffer` sets up the GPU and swaps buffers, its DMA channel sends the frame. psxanim's runtime
//! (default features: no entry point, no panic handler) only enables the GTE and, each vsync, poses the
//! four actors of `play.rs` and links their triangles into the game's own ordering table and packet
//! buffer. Built with cargo-psx:
//!
//! ```text
//! RUSTFLAGS="-Ccodegen-units=1 -Cllvm-args=-disable-mips-delay-filler" cargo psx build --toolchain nightly-2024-12-21
//! ```
//!
//! For `cargo xtask verify` it also leaves a verification record in RAM (program "GAME"): the words
//! of `play::actor_words` for each actor at `play::MEASURED_FRAME`, the frame's `digest::packet_words`
//! (its packets' count and hash), then the error code and offset of a damaged copy of the blob (the
//! game reports it and keeps playing); cycles of each stage at that frame.
#![no_std]
#![no_main]

use psx::dma::{self, LinkedList};
use psx::gpu::Color;
use psx::Framebuffer;
use psxanim_runtime::console::ordering::{clear_table, table_head, FramePackets};
use psxanim_runtime::console::{gpu, timer};
use psxanim_runtime::gte::{self, Gte};
use psxanim_runtime::record::digest::{self, RectReader, WordHash};
use psxanim_runtime::record::{status, Record};
use psxanim_runtime::render::ot::{OtSink, Shading};
use psxanim_runtime::render::{Scratch, Stage};
use psxanim_runtime::tables::textures::Rect;
use psxanim_runtime::tables::{vertex_count_of, Tables};

mod play;
use play::{Game, SetupError, MEASURED_FRAME, OT_DEPTHS, PACKET_WORDS, PROBE_WORDS, SLOT_DRAW, STAGES};

/// The characters, compiled by `psxanim import` (see build.rs), 4-byte aligned as the tables want.
#[repr(C, align(4))]
struct Aligned<T: ?Sized>(T);
static CHARACTER: &Aligned<[u8]> = &Aligned(*include_bytes!(env!("CHARACTER_RIGID")));
const CHARACTER_BYTES: usize = include_bytes!(env!("CHARACTER_RIGID")).len();
static DENSE: &Aligned<[u8]> = &Aligned(*include_bytes!(env!("CHARACTER_DENSE")));
static TEXTURED: &Aligned<[u8]> = &Aligned(*include_bytes!(env!("CHARACTER_TEXTURED")));
static ATLAS: &Aligned<[u8]> = &Aligned(*include_bytes!(env!("CHARACTER_ATLAS")));
static TILED: &Aligned<[u8]> = &Aligned(*include_bytes!(env!("CHARACTER_TILED")));

/// The renderer projects the largest character's vertices: its scratch is sized for them at compile
/// time (8 bytes a vertex).
const VERTICES: usize = {
    let (a, b) = (vertex_count_of(include_bytes!(env!("CHARACTER_RIGID"))), vertex_count_of(include_bytes!(env!("CHARACTER_DENSE"))));
    if a > b { a } else { b }
};

/// The game's frame: its ordering table and packet buffer (psxanim writes into them), the renderer's
/// scratch, the verification record, and room for the damaged copy of the blob. psx's start-up does not
/// zero `.bss`, so `main` initialises every one of them before use.
static mut OT: [u32; OT_DEPTHS] = [0; OT_DEPTHS];
static mut PACKETS: [u32; PACKET_WORDS] = [0; PACKET_WORDS];
static mut SCRATCH: Scratch<VERTICES> = Scratch::new();
static mut RECORD: Record = Record::ZERO;
static mut DAMAGED: Aligned<[u8; CHARACTER_BYTES]> = Aligned([0; CHARACTER_BYTES]);

/// The game's ordering table as psx's DMA channel sends it: from its last entry (see
/// `FramePackets`: the table is reverse-linked, as the OTC DMA channel writes it).
struct OrderingTable<'a>(&'a [u32]);
impl LinkedList for OrderingTable<'_> {
    fn address(&self) -> Option<&u32> {
        // SAFETY: `table_head` is the address of the table's last entry (or null when empty).
        unsafe { table_head(self.0).as_ref() }
    }
}

/// `Record::error` codes: the blob did not parse (detail: the offset), a frame could not be drawn
/// (detail: `RenderError::code`).
const ERROR_TABLES: u32 = u32::from_le_bytes(*b"TBLE");
const ERROR_RENDER: u32 = u32::from_le_bytes(*b"REND");
/// VRAM refused a texture's place (`play::SetupError::Placement`).
const ERROR_VRAM: u32 = u32::from_le_bytes(*b"VRAM");

/// Words the GPU DMA channel moves a block: the GPU's command FIFO.
const DMA_BLOCK_WORDS: usize = 16;

/// Sends `bytes` (little-endian halfwords filling `rect`, 4-aligned in the blob) to VRAM through the
/// game's GPU DMA channel, with psx's DMA registers: GP0(A0h) and the rectangle, then the words in
/// 16-word blocks in request mode (the GPU asks for each block as its FIFO empties), the last few
/// by GP0 writes. psx 0.1.8's own `dma::GPU::send_and` runs the channel in immediate mode, for
/// which the GPU does not wait (mednafen's then waits for data forever); its `send_blocks_and` keeps
/// whatever mode the channel last ran in (linked-list after a frame). Bytes that do not sit as
/// whole aligned words go word by word through GP0 (`console::gpu::load_image`).
fn upload(rect: Rect, bytes: &[u8]) {
    use psx::dma::{BlockMode, Direction, Step, TransferMode};
    use psx::hw::dma::{gpu as channel, BlockControl, ChannelControl, MemoryAddress};
    use psx::hw::Register;
    let words = rect.halfwords().div_ceil(2);
    if bytes.as_ptr() as usize % 4 != 0 || bytes.len() < 4 * words {
        return gpu::load_image(rect, bytes);
    }
    // SAFETY: `bytes` is 4-aligned and holds at least `words` words; every bit pattern is a u32.
    let data = unsafe { core::slice::from_raw_parts(bytes.as_ptr().cast::<u32>(), words) };
    gpu::send(&psxanim_runtime::console::prim::copy_to_vram(rect.x, rect.y, rect.w, rect.h));
    psx::hw::gpu::GP1::skip_load().dma_mode(Some(psx::gpu::DMAMode::GP0));
    let blocks = words / DMA_BLOCK_WORDS;
    if blocks > 0 {
        channel::Address::skip_load().set_address(&data[0]).store();
        let shape = BlockMode::Multi { words: DMA_BLOCK_WORDS as u16, blocks: blocks as u16 };
        let _ = channel::Block::skip_load().set_block(shape).map(|b| b.store());
        channel::Control::skip_load()
            .set_direction(Direction::FromMemory)
            .set_step(Step::Forward)
            .set_mode(TransferMode::Request)
            .start()
            .store()
            .wait();
    }
    for &w in &data[blocks * DMA_BLOCK_WORDS..] {
        gpu::wait_dma_ready();
        psx::hw::gpu::GP0::skip_load().assign(w).store();
    }
}

#[no_mangle]
fn main() {
    // SAFETY: the only references to these statics, taken once; one thread, no interrupt handlers.
    let (ot, packets, scratch, record, damaged) = unsafe {
        let record = &mut *core::ptr::addr_of_mut!(RECORD);
        *record = Record::ZERO;
        let scratch = &mut *core::ptr::addr_of_mut!(SCRATCH);
        *scratch = Scratch::new();
        (
            &mut *core::ptr::addr_of_mut!(OT),
            &mut *core::ptr::addr_of_mut!(PACKETS),
            scratch,
            record,
            &mut (*core::ptr::addr_of_mut!(DAMAGED)).0,
        )
    };
    record.begin(play::PROGRAM);
    gte::enable();
    let mut gte = Gte::new();
    let mut fb = Framebuffer::new((0, 0), (0, 240), (320, 240), psx::gpu::VideoMode::NTSC, Some(Color::new(16, 24, 64)))
        .unwrap_or_default();
    let mut gpu_dma = dma::GPU::new();
    timer::start();
    psx::println!("psx-game: psxanim runtime linked");

    // A damaged blob is an error the game can read; the game goes on with the good one.
    damaged.copy_from_slice(&CHARACTER.0);
    play::corrupt(damaged);
    let corruption = play::corruption_words(damaged);

    let game = Tables::parse(&CHARACTER.0)
        .and_then(|a| Ok([a, Tables::parse(&DENSE.0)?, Tables::parse(&TEXTURED.0)?, Tables::parse(&ATLAS.0)?, Tables::parse(&TILED.0)?]))
        .map_err(SetupError::Tables)
        .and_then(Game::new);
    let mut game = match game {
        Ok(g) => Some(g),
        Err(SetupError::Tables(e)) => {
            record.fail(ERROR_TABLES, e.offset().unwrap_or(0) as u32);
            None
        }
        Err(SetupError::Placement(e)) => {
            record.fail(ERROR_VRAM, e.code());
            None
        }
    };
    // The textures, uploaded once through the game's GPU DMA channel (`upload`), then read back for
    // the record.
    let mut vram = [0u32; play::VRAM_FIELDS.len()];
    if let Some(game) = &game {
        fb.draw_sync();
        for (placement, tables) in game.placements.iter().zip(&game.tables) {
            for (rect, bytes) in placement.iter().flat_map(|p| p.uploads(tables)) {
                upload(rect, bytes);
            }
        }
        fb.draw_sync();
        let mut hash = WordHash::new();
        for (placement, tables) in game.placements.iter().zip(&game.tables) {
            for (rect, _) in placement.iter().flat_map(|p| p.uploads(tables)) {
                let mut read = RectReader::new(&mut hash, rect);
                gpu::read_image(rect, &mut |w| read.add(w));
            }
        }
        vram = hash.words();
    }

    let mut frame = 0u32;
    let mut probe = [0u32; PROBE_WORDS];
    loop {
        clear_table(ot);
        let mut used = 0;
        if let Some(game) = &mut game {
            let measured = frame == MEASURED_FRAME;
            let mut sink = OtSink::new(FramePackets::new(ot, packets, &mut used), Shading::Flat);
            let mut last = timer::now();
            // The whole draw, summed span by span: it can outlast the 16-bit root counter's wrap
            // (524,288 cycles), each stage does not.
            let mut whole = 0u32;
            // The rigid ranges' projection, to which the blended vertices' stage adds.
            let mut projected = 0u32;
            let outcomes = game.draw(&mut gte, scratch, &mut sink, &mut |actor, stage| {
                let now = timer::now();
                let spent = now.wrapping_sub(last) as u32;
                whole += spent;
                let slot = match stage {
                    Stage::Bounds => None,
                    Stage::Decode => Some((0, spent)),
                    Stage::Pose => Some((1, spent)),
                    Stage::Project => {
                        projected = spent;
                        Some((2, spent))
                    }
                    // The blended vertices and the light stage count with the projection.
                    Stage::Blend | Stage::Light => {
                        projected += spent;
                        Some((2, projected))
                    }
                    Stage::Triangles => Some((3, spent)),
                };
                if let (true, Some((s, ticks))) = (measured, slot) {
                    record.set_cycles(STAGES * actor + s, ticks);
                }
                last = now;
            }, measured.then_some(&mut probe));
            // A frame that cannot be drawn (a blob that fails to decode) is reported; the game goes on.
            for outcome in outcomes {
                if let Err(e) = outcome {
                    record.fail(ERROR_RENDER, e.code());
                }
            }
            if measured {
                record.set_cycles(SLOT_DRAW, whole + timer::now().wrapping_sub(last) as u32);
                let frame_words = digest::packet_words(&packets[..used]);
                for w in probe.iter().chain(&frame_words).chain(&corruption).chain(&vram) {
                    record.push(*w);
                }
                if record.status == status::RUNNING {
                    record.status = status::DONE;
                }
            }
        }
        fb.draw_sync();
        fb.wait_vblank();
        fb.dma_swap(&mut gpu_dma);
        gpu_dma.send_list(&OrderingTable(ot));
        if let Some(game) = &mut game {
            game.update(1);
        }
        frame += 1;
        record.frames = frame;
    }
}
