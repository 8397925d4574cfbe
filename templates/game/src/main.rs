//! {{name}}: a PlayStation game on psx-sdk-rs that plays an imported character with psxanim.
#![no_std]
#![no_main]

use core::ptr::addr_of_mut;
use psx::dma::{self, LinkedList};
use psx::gpu::{Color, VideoMode};
use psx::Framebuffer;
use psxanim_runtime::anim::{Animator, Sampling};
use psxanim_runtime::console::gpu;
use psxanim_runtime::console::ordering::{clear_table, table_head, FramePackets};
use psxanim_runtime::gte::{self, Gte};
use psxanim_runtime::math::{Vec3i16, Vec3i32};
use psxanim_runtime::record::{status, Record};
use psxanim_runtime::render::ot::{OtSink, Shading};
use psxanim_runtime::render::light::Lighting;
use psxanim_runtime::render::{self, camera, Camera, Outcome, PoseStream, Scratch};
use psxanim_runtime::tables::textures::Rect;
use psxanim_runtime::tables::{stream, triangle_count_of, vertex_count_of, Tables};
use psxanim_runtime::vram::Placement;

// The character compiled by build.rs (`psxanim import --rust`): `CHARACTER`, its tables embedded with
// the 4-byte alignment they are read in place with, and `clip!("Walk")` / `event!("step")`, which stop
// the build on a name the model does not have, listing the names it has.
include!(concat!(env!("OUT_DIR"), "/character.rs"));
/// Decoder words per voice the character's clips need (3 per animated rotation, 6 per translation).
const STREAM_WORDS: usize = stream::words_for_blob(include_bytes!(concat!(env!("OUT_DIR"), "/character.pxsk")));
/// The vertices the renderer projects at once: the character's (8 bytes of scratch each; with several
/// characters, the largest).
const VERTICES: usize = vertex_count_of(include_bytes!(concat!(env!("OUT_DIR"), "/character.pxsk")));
/// Packet words a frame may need: every triangle at 5 words flat, 8 textured, 10 textured and lit
/// (about half face the camera).
const PACKET_WORDS: usize = 10 * triangle_count_of(include_bytes!(concat!(env!("OUT_DIR"), "/character.pxsk")));
/// The game's two frame buffers, where no texture may go.
const FRAME_BUFFERS: [Rect; 1] = [Rect { x: 0, y: 0, w: 320, h: 480 }];
/// One warm light from the upper left and in front (the direction points toward the light: -x left,
/// -y up, -z toward the camera) and a cool ambient; 128 draws a texel or colour as stored. Used when
/// the character was imported with `--lighting` (add it to build.rs's `psxanim import`).
const LIGHTING: Lighting = Lighting::one(Vec3i16::new(-2365, -2365, -2365), [150, 140, 120], [56, 56, 72]);

/// The frame psxanim draws into: an ordering table (entry 0 nearest) and a packet buffer.
static mut OT: [u32; 1024] = [0; 1024];
static mut PACKETS: [u32; PACKET_WORDS] = [0; PACKET_WORDS];
/// The renderer's working memory, shared by every character drawn.
static mut SCRATCH: Scratch<VERTICES> = Scratch::new();
/// What the game leaves in RAM for `psxanim run --expect expect.json` to check (psxanim's verification
/// record: a program code, a status, frames counted, result words). Remove it and expect.json if you
/// do not check the game in CI; it takes 33 KiB of RAM.
static mut RECORD: Record = Record::ZERO;

/// psx's DMA sends a list from its first header: for psxanim's table that is the last entry.
struct OrderingTable<'a>(&'a [u32]);
impl LinkedList for OrderingTable<'_> {
    fn address(&self) -> Option<&u32> {
        unsafe { table_head(self.0).as_ref() }
    }
}

/// Words the GPU DMA channel moves a block: the GPU's command FIFO.
const DMA_BLOCK_WORDS: usize = 16;

/// Sends `bytes` (little-endian halfwords filling `rect`, 4-aligned in the blob) to VRAM through the
/// GPU DMA channel with psx's DMA registers: GP0(A0h) and the rectangle, then the words in 16-word
/// blocks in request mode, the last few by GP0 writes. (psx 0.1.8's `dma::GPU::send_and` runs the
/// channel in immediate mode, which the GPU does not follow.) Bytes that do not sit as whole aligned
/// words go word by word through GP0 (`console::gpu::load_image`).
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
    let (ot, packets, scratch) = unsafe { (&mut *addr_of_mut!(OT), &mut *addr_of_mut!(PACKETS), &mut *addr_of_mut!(SCRATCH)) };
    let record = unsafe { &mut *addr_of_mut!(RECORD) };
    *record = Record::ZERO; // psx's start-up does not zero .bss
    record.begin(*b"GAME");
    gte::enable(); // COP2 on (psx's Status::enable_gte would also isolate the cache)
    let mut gte = Gte::new();
    let mut fb = Framebuffer::new((0, 0), (0, 240), (320, 240), VideoMode::NTSC, Some(Color::new(16, 24, 64))).unwrap();
    let mut gpu_dma = dma::GPU::new();

    let tables = match Tables::parse(&CHARACTER.0) {
        Ok(t) => t,
        Err(e) => panic!("character.pxsk: error {} at byte {:?}", e.code(), e.offset()),
    };
    // A textured character: its textures where the blob proposes (clear of the frame buffers),
    // uploaded once; the sink then draws its textured triangles.
    let placement = match tables.texture_count() {
        0 => None,
        _ => match Placement::default_of(&tables, &FRAME_BUFFERS) {
            Ok(p) => Some(p),
            Err(e) => panic!("character.pxsk: its textures do not fit: {e:?}"),
        },
    };
    if let Some(p) = &placement {
        fb.draw_sync();
        for (rect, halfwords) in p.uploads(&tables) {
            upload(rect, halfwords);
        }
    }
    // A character imported with --lighting is lit; without normals this stays unused.
    scratch.lighting = tables.has_normals().then_some(LIGHTING);
    let (walk, idle) = (clip!("Walk"), clip!("Idle"));
    let mut animator = Animator::new(60, Sampling::Interpolated);
    let _ = animator.play(&tables, walk, true);
    // The instance's forward decoder: each frame reads one record of deltas (a crossfade's outgoing
    // clip keeps the second voice), its words sized at compile time for the blob's clips.
    let mut stream = PoseStream::<STREAM_WORDS>::new();
    // An orbit camera (turned 22.5 degrees, looking 5.6 degrees down) framing every pose of every clip
    // (the tables' bounds) on the 320x240 screen, its depths scaled to the ordering table.
    let camera = Camera::frame(tables.bounds(), 0x1000, 0x0400, (320, 240), ot.len());
    let world = camera::placement(Vec3i32::new(0, 0, 0), 0);

    for frame in 1u32.. {
        clear_table(ot);
        let mut used = 0;
        let mut sink = OtSink::new(FramePackets::new(ot, packets, &mut used), Shading::Flat);
        sink.place_textures(placement.as_ref());
        camera.load(&mut gte);
        let drawn = match render::render_streamed(&mut gte, &tables, &mut stream, &camera, &world, &animator, scratch, &mut sink, &mut |_| {}) {
            Ok(Outcome::Drawn(stats)) => stats.drawn,
            Ok(Outcome::Culled) => 0,
            Err(_) => u32::MAX,
        };
        record.frames = frame;
        if frame == 60 {
            // The results expect.json names: the character's clips and the triangles drawn a second in.
            record.push(tables.clip_count() as u32);
            record.push(drawn);
            record.status = status::DONE;
        }

        fb.draw_sync();
        fb.wait_vblank();
        fb.dma_swap(&mut gpu_dma);
        gpu_dma.send_list(&OrderingTable(ot));

        animator.update(1); // one vsync of game time
        if frame % 240 == 0 {
            // Every four seconds, a half-second crossfade into the other clip.
            let next = if frame % 480 == 0 { walk } else { idle };
            let _ = animator.crossfade(&tables, next, true, 30);
        }
    }
}
