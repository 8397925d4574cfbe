//! The record the character example must leave: its probe words, computed by the same code on the GTE
//! model, then the corrupted blobs' errors, the packet loop's words, the pose cache's hash, the baked
//! decoder's paths and the crossfade probes.
use super::*;
/// The record the example must leave: its probe words, computed by the same code on the GTE model.
pub fn expectation(ws: &Path) -> Result<Expectation> {
    let blobs = Blobs::read(ws)?;
    let mut pose_buffer = blobs.pose_buffer();
    let models = blobs.models(&mut pose_buffer)?;
    let mut scratch = Box::<SceneScratch>::new(SceneScratch::new());
    let mut values = Vec::new();
    scene::probe_words(&models, &mut host_gte(), &mut scratch, &mut |w| values.push(w))
        .map_err(|e| anyhow::anyhow!("host probe failed: {e:?}"))?;
    let (bv, rv) = (models.baked.vertex_count(), models.rigid.vertex_count());
    let words = values
        .into_iter()
        .enumerate()
        .map(|(i, value)| {
            let (clip, frame, what, vertex) = scene::probe_word_name(i, bv, rv);
            Word { name: format!("{what}.{clip}{frame}.v{vertex}"), value }
        })
        .collect::<Vec<_>>();
    let cache = Word { name: "pose_cache.hash".to_string(), value: scene::pose_cache_hash(&models) };
    let paths = baked_path_expectation(&blobs, bv)?;
    let mut fades = Vec::new();
    scene::fade_probe_words(&models, &mut host_gte(), &mut scratch, &mut |value, l| {
        fades.push(Word { name: format!("{}.step{}.{}", l.what, l.step, l.index), value })
    })
    .map_err(|e| anyhow::anyhow!("host fade probe failed: {e:?}"))?;
    // Every blended vertex's SXY and SZ, from both pose sources and through crossfades.
    let mut blends = Vec::new();
    scene::blend_probe_words(&models, &mut host_gte(), &mut scratch, &mut |value, l| {
        let axis = if blends.len() % 2 == 0 { "sxy" } else { "sz" };
        blends.push(Word { name: format!("{}.step{}.{axis}.v{}", l.what, l.step, l.index), value })
    })
    .map_err(|e| anyhow::anyhow!("host blend probe failed: {e:?}"))?;
    ensure!(models.rigid.blended_vertex_count() == 0 || !blends.is_empty(), "no blend probe words for a rigid blob with blended vertices");
    // The blend loop on every group shape (a copy of the rigid blob with its groups rewritten).
    let mut copy = vec![0u8; blobs.rigid.len()];
    let shapes = scene::blend_shapes_word(&blobs.rigid, &mut copy, &mut host_gte(), &mut scratch)
        .map_err(|e| anyhow::anyhow!("host blend shapes probe failed: {e:?}"))?;
    let shapes = vec![Word { name: "blend.shapes.hash".to_string(), value: shapes }];
    Ok(Expectation {
        program: *b"CHAR",
        words: [
            words,
            corruption_expectation(&blobs)?,
            flat_packet_expectation(),
            vec![cache],
            paths,
            fades,
            blends,
            shapes,
            stream_expectation(&blobs)?,
            textured_expectation(models)?,
        ]
        .concat(),
    })
}

/// The 20-bone character's forward-decoded frames (`stream_bench`): every interpolated frame's, each
/// seek's, each stepped frame's and each crossfade frame's matrices hashed, the crossfade's paths
/// (`crossfade_paths`, a hash per weight), then the decoder words of one voice, then each of
/// the fixture character's clips played at 60 Hz (its poses or samples hashed).
pub(super) fn stream_expectation(blobs: &Blobs) -> Result<Vec<Word>> {
    let twenty = Tables::parse(&blobs.twenty).map_err(|e| anyhow::anyhow!("twenty_bones tables: {e:?}"))?;
    let rigid = Tables::parse(&blobs.rigid).map_err(|e| anyhow::anyhow!("rigid tables: {e:?}"))?;
    let walk = twenty.find_clip("Walk").and_then(|c| twenty.clip(c).ok()).context("the 20-bone Walk")?;
    let at = walk.data_offset as usize;
    let block_frames = blobs.twenty.get(at..at + 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
    ensure!(block_frames == Some(stream_bench::BLOCK_FRAMES), "the 20-bone Walk's blocks: {block_frames:?} frames, the bench assumes {}", stream_bench::BLOCK_FRAMES);
    let mut scratch = Box::<SceneScratch>::new(SceneScratch::new());
    let mut values = Vec::new();
    let object = scene::camera_at(0).view;
    stream_bench::stream_words(&twenty, &rigid, &object, &mut host_gte(), &mut scratch, &mut || 0, &mut |_, _| {}, &mut |w| values.push(w))
        .map_err(|e| anyhow::anyhow!("host stream bench failed: {e:?}"))?;
    ensure!(values.len() == stream_bench::WORDS, "stream words: {}", values.len());
    let frames = stream_bench::FRAMES as usize;
    let stepped_end = frames + stream_bench::SEEKS.len() + stream_bench::STEPPED_FRAMES as usize;
    let fades_end = stepped_end + stream_bench::FADE_FRAMES as usize;
    Ok(values
        .into_iter()
        .enumerate()
        .map(|(i, value)| {
            let name = match i {
                i if i < frames => format!("stream.interpolated.frame{i}.hash"),
                i if i < frames + stream_bench::SEEKS.len() => format!("stream.seek.frame{}.hash", stream_bench::SEEKS[i - frames]),
                i if i < stepped_end => format!("stream.stepped.frame{}.hash", i - frames - stream_bench::SEEKS.len()),
                i if i < fades_end => format!("stream.crossfade.frame{}.hash", i - stepped_end),
                i if i < fades_end + crossfade_paths::WORDS => format!("stream.crossfade_paths.weight{}.hash", crossfade_paths::WEIGHTS[i - fades_end]),
                i if i == stream_bench::WORDS - stream_bench::CLIP_HASHES - 1 => "stream.state_words".to_string(),
                i => format!("stream.clip{}.hash", i + stream_bench::CLIP_HASHES - stream_bench::WORDS),
            };
            Word { name, value }
        })
        .collect())
}

/// The baked decoder's paths (`baked_paths`: synthetic delta and raw frames, shared frames, an
/// escape past the vertices), after the pose cache hash; checked here to take those paths.
pub(super) fn baked_path_expectation(blobs: &Blobs, vertices: usize) -> Result<Vec<Word>> {
    let mut buffer = vec![0u8; blobs.baked.len()];
    let mut scratch = Box::<SceneScratch>::new(SceneScratch::new());
    let mut values = Vec::new();
    baked_paths::baked_path_words(&blobs.baked, &mut buffer, &mut scratch, &mut |w| values.push(w));
    let per = 2 * vertices;
    ensure!(values.len() == baked_paths::PATH_PROBES.len() * per + baked_paths::ERROR_WORDS, "baked path words: {} words ({:x?})", values.len(), values.first());
    for error in values[values.len() - baked_paths::ERROR_WORDS..].chunks_exact(3) {
        ensure!(error[0] == 18 && error[1] > 64, "an escape past the vertices must fail (code 18), found {error:?}");
    }
    Ok(values
        .into_iter()
        .enumerate()
        .map(|(i, value)| {
            let name = if i < baked_paths::PATH_PROBES.len() * per {
                let within = i % per;
                let axis = if within & 1 == 0 { "xy" } else { "z" };
                format!("baked.path.{}.{axis}.v{}", baked_paths::PATH_PROBES[i / per], within / 2)
            } else {
                let k = i - baked_paths::PATH_PROBES.len() * per;
                let what = ["code", "offset", "output_hash"][k % 3];
                format!("baked.path.bad_escape{}.{what}", baked_paths::BAD_ESCAPES[k / 3])
            };
            Word { name, value }
        })
        .collect())
}

/// The words the corrupted blob copies leave after the probes (same code as the console's), checked
/// here to be real errors: a corruption the runtime accepted would prove nothing.
pub(super) fn corruption_expectation(blobs: &Blobs) -> Result<Vec<Word>> {
    let mut buffer = vec![0u8; blobs.rigid.len().max(blobs.baked.len())];
    let mut scratch = Box::<SceneScratch>::new(SceneScratch::new());
    let mut values = Vec::new();
    scene::corruption_words(&blobs.rigid, &blobs.baked, &mut buffer, &mut host_gte(), &mut scratch, &mut |w| values.push(w));
    ensure!(values.len() == scene::CORRUPTIONS.len() * scene::WORDS_PER_CORRUPTION, "corruption words: {} words", values.len());
    let mut words = Vec::new();
    for (c, pair) in scene::CORRUPTIONS.iter().zip(values.chunks_exact(scene::WORDS_PER_CORRUPTION)) {
        ensure!(pair[0] != 0, "corrupted blob {} was accepted by the runtime (no error to check)", c.name());
        words.push(Word { name: format!("corrupt.{}.code", c.name()), value: pair[0] });
        words.push(Word { name: format!("corrupt.{}.offset", c.name()), value: pair[1] });
    }
    Ok(words)
}

/// The packet loop's words on the synthetic triangles (same code as the console's, on the model).
pub(super) fn flat_packet_expectation() -> Vec<Word> {
    let mut values = Vec::new();
    scene::flat_packet_words(&mut host_gte(), &mut |w| values.push(w));
    values
        .into_iter()
        .enumerate()
        .map(|(i, value)| {
            let (run, at) = (i / scene::FLAT_RUN_WORDS, i % scene::FLAT_RUN_WORDS);
            let what = match at {
                0 => "drawn".to_string(),
                1 => "rejected".to_string(),
                2 => "words".to_string(),
                t if t < 3 + 8 => format!("table{}", t - 3),
                w => format!("arena{}", w - 11),
            };
            Word { name: format!("flat.run{run}.{what}"), value }
        })
        .collect()
}

/// The textures' words in VRAM (the console reads them back after its upload: their count and hash),
/// then the textured instance's packet words (count and hash of its GP0 words: UVs, page and CLUT
/// words, the GTE's lit colours, points) of every frame below `scene::TEXTURED_FRAMES`, drawn by the
/// scene's own code into an ordering table as on the console.
pub(super) fn textured_expectation(models: scene::Models) -> Result<Vec<Word>> {
    use psxanim_runtime::console::ordering::DrawList;
    use psxanim_runtime::record::digest;
    use psxanim_runtime::render::ot::{OtSink, Shading};
    let placement = models.textures.context("the textured character has no place in VRAM")?;
    let mut hash = digest::WordHash::new();
    placement.uploads(&models.textured).flat_map(|(rect, bytes)| digest::upload_words(rect, bytes)).for_each(|w| hash.add(w));
    let [count, vram_hash] = hash.words();
    ensure!(count > 0, "the textured character uploads no texture: the VRAM check proves nothing");
    let mut words = vec![Word { name: "textured.vram_words".into(), value: count }, Word { name: "textured.vram_hash".into(), value: vram_hash }];
    let mut s = scene::Scene::new(models).map_err(|e| anyhow::anyhow!("scene: {e:?}"))?;
    let mut list = Box::new(DrawList::<{ scene::OT_DEPTHS }, { scene::PACKET_WORDS }>::new());
    let mut scratch = Box::<SceneScratch>::new(SceneScratch::new());
    for frame in 0..scene::TEXTURED_FRAMES {
        list.clear();
        let mut sink = OtSink::new(list.frame(), Shading::Flat);
        let (outcomes, textured) = s.render(&s.camera(), &mut host_gte(), &mut scratch, &mut sink, &|k: &OtSink| k.packets.used_words(), &mut |_, _| {});
        if let Some((i, e)) = outcomes.iter().enumerate().find_map(|(i, o)| o.err().map(|e| (i, e))) {
            bail!("the host cannot draw instance {i} at frame {frame}: {e:?}");
        }
        ensure!(list.used_words() + 256 < scene::PACKET_WORDS, "frame {frame}: {} packet words, near the buffer's {}", list.used_words(), scene::PACKET_WORDS);
        let [n, h] = digest::packet_words(&list.packets()[textured]);
        ensure!(n > 0, "the textured instance draws nothing at frame {frame}");
        words.push(Word { name: format!("textured.frame{frame}.packet_words"), value: n });
        words.push(Word { name: format!("textured.frame{frame}.packets_hash"), value: h });
        s.step();
    }
    Ok(words)
}
