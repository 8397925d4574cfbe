//! A textured character's blob parts: the converted textures (`crate::texture`), which material
//! draws with which, and each vertex's UV word once the seams are split (`seams`). The section's
//! layout is `psxanim_runtime::tables::textures`.

use psxanim_runtime::tables::textures::{TEXTURES_HEADER_SIZE, TEXTURE_ENTRY_SIZE, TEXTURE_TILED};

use super::seams::TexelGrid;
use crate::fbx::Character;
use crate::texture::tim::{Depth, Tim};
use crate::texture::Report;

/// One converted texture as the blob stores it.
#[derive(Clone, Debug)]
pub struct BlobTexture {
    pub tim: Tim,
    /// Texels.
    pub width: u32,
    pub height: u32,
    /// Its UVs repeat it (the GPU's texture window).
    pub tiled: bool,
}

/// The textures a character is compiled with.
#[derive(Clone, Debug, Default)]
pub struct Textures {
    pub textures: Vec<BlobTexture>,
    /// Per material of the character, its texture (None: drawn in its colour).
    pub by_material: Vec<Option<usize>>,
}

impl Textures {
    /// From `texture::convert_all`'s output for `c` (reports name their material).
    pub fn from_converted(c: &Character, converted: &[(Report, Tim)]) -> Textures {
        let textures: Vec<BlobTexture> = converted
            .iter()
            .map(|(r, tim)| BlobTexture { tim: tim.clone(), width: r.width, height: r.height, tiled: r.tiling == "texture window" })
            .collect();
        let by_material = c.materials.iter().map(|m| converted.iter().position(|(r, _)| r.material == m.name)).collect();
        Textures { textures, by_material }
    }

    pub fn is_empty(&self) -> bool {
        self.textures.is_empty()
    }

    /// Each material's texel grid, for the seam splitter.
    pub fn grids(&self) -> Vec<Option<TexelGrid>> {
        self.by_material
            .iter()
            .map(|t| t.map(|i| {
                let t = &self.textures[i];
                TexelGrid { width: t.width, height: t.height, tiled: t.tiled }
            }))
            .collect()
    }

    /// The material table's fourth byte: texture index + 1, 0 untextured.
    pub fn material_byte(&self, material: usize) -> u8 {
        self.by_material.get(material).copied().flatten().map_or(0, |i| i as u8 + 1)
    }
}

/// Appends the texture section to `out` (4-aligned) and returns its offset: the count, the entries,
/// then each texture's image and CLUT halfwords.
pub fn write_section(out: &mut Vec<u8>, textures: &[BlobTexture]) -> Result<usize, String> {
    if textures.len() > psxanim_runtime::tables::textures::MAX_TEXTURES {
        return Err(format!("{} textures: a character may have 8", textures.len()));
    }
    let start = out.len();
    out.extend_from_slice(&(textures.len() as u16).to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    let entries = out.len();
    out.resize(entries + TEXTURE_ENTRY_SIZE * textures.len(), 0);
    debug_assert_eq!(entries - start, TEXTURES_HEADER_SIZE);
    for (i, t) in textures.iter().enumerate() {
        let data = out.len();
        let tim = &t.tim;
        for h in &tim.image {
            out.extend_from_slice(&h.to_le_bytes());
        }
        while out.len() % 4 != 0 {
            out.push(0);
        }
        for k in 0..tim.depth.clut_entries() {
            out.extend_from_slice(&tim.clut.get(k).copied().unwrap_or(0).to_le_bytes());
        }
        while out.len() % 4 != 0 {
            out.push(0);
        }
        let clut = tim.clut_at.unwrap_or_default();
        let mut e = Vec::with_capacity(TEXTURE_ENTRY_SIZE);
        e.push(match tim.depth {
            Depth::Four => 4,
            Depth::Eight => 8,
            Depth::Fifteen => 15,
        });
        e.push(if t.tiled { TEXTURE_TILED } else { 0 });
        for v in [t.width as u16, t.height as u16, tim.depth.clut_entries() as u16, tim.image_at.x, tim.image_at.y, clut.x, clut.y] {
            e.extend_from_slice(&v.to_le_bytes());
        }
        e.extend_from_slice(&(data as u32).to_le_bytes());
        e.extend_from_slice(&0u32.to_le_bytes());
        let at = entries + i * TEXTURE_ENTRY_SIZE;
        out[at..at + TEXTURE_ENTRY_SIZE].copy_from_slice(&e);
    }
    Ok(start)
}
