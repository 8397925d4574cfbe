//! The bytes behind a glTF document: the `.gltf` JSON or the `.glb` container, its buffers (the GLB's
//! BIN chunk, files beside the document, `data:` URIs in base64), and accessors read by hand.
//!
//! Reader's choices, each tested:
//! - A buffer URI is a relative path inside the document's folder (percent-decoded); an absolute path,
//!   a scheme other than `data:`, or a path whose canonical form leaves the folder (`..`, a symbolic
//!   link) is refused, so a file can never make the tool read elsewhere on the disk.
//! - A GLB's header length must equal the file's length (a truncated `.glb` is named as such).
//! - Accessors are bounds-checked against their buffer view and the view against its buffer; the
//!   component type and element type are checked against what the use allows; float values must be
//!   finite. Sparse accessors are applied (indices below the count); an accessor without a view is
//!   zeros, as the specification says.
//! - Normalised integers become floats as the specification's table says (`c / 255`, `max(c / 127, -1)`...).

use std::path::{Component, Path, PathBuf};

use base64::Engine;
use gltf::accessor::{DataType, Dimensions};

use super::GltfError;

/// A parsed document and the bytes of every buffer.
pub struct Source {
    /// The file, for messages.
    pub path: String,
    pub doc: gltf::Document,
    pub buffers: Vec<Vec<u8>>,
}

/// Reads `path` (`.gltf` or `.glb`, told apart by the GLB magic).
pub fn open(path: &Path) -> Result<Source, GltfError> {
    let p = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| GltfError::Read { path: p.clone(), message: e.to_string() })?;
    let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
    parse(&p, &bytes, Some(&folder))
}

/// Parses `bytes`; external buffers are looked up in `folder` (None: refused, for in-memory input).
pub fn parse(p: &str, bytes: &[u8], folder: Option<&Path>) -> Result<Source, GltfError> {
    if bytes.starts_with(b"glTF") {
        if bytes.len() < 12 {
            return Err(GltfError::Parse { path: p.into(), message: format!("truncated GLB: {} bytes, the header alone takes 12", bytes.len()) });
        }
        let declared = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
        if declared != bytes.len() {
            return Err(GltfError::Parse {
                path: p.into(),
                message: format!("truncated or padded GLB: its header says {declared} bytes, the file has {}", bytes.len()),
            });
        }
    }
    let parse_err = |e: gltf::Error| GltfError::Parse { path: p.into(), message: e.to_string() };
    let gltf::Gltf { document, blob } = gltf::Gltf::from_slice_without_validation(bytes).map_err(parse_err)?;
    let root = document.into_json();
    // The crate's validation indexes a primitive's POSITION accessor before checking it (and panics on
    // one out of range), and never checks an animation channel's target (node and path; its accessors
    // panic on them): those first.
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (k, prim) in mesh.primitives.iter().enumerate() {
            if let Some(a) = prim.attributes.get(&gltf::json::validation::Checked::Valid(gltf::Semantic::Positions)) {
                if a.value() >= root.accessors.len() {
                    return Err(GltfError::Parse {
                        path: p.into(),
                        message: format!("mesh {m} primitive {k}: POSITION is accessor {}; the file has {}", a.value(), root.accessors.len()),
                    });
                }
            }
        }
    }
    for (a, anim) in root.animations.iter().enumerate() {
        for (c, channel) in anim.channels.iter().enumerate() {
            if !matches!(channel.target.path, gltf::json::validation::Checked::Valid(_)) {
                return Err(GltfError::Parse {
                    path: p.into(),
                    message: format!("animation {a} channel {c}: the target path is not translation, rotation, scale or weights"),
                });
            }
            if channel.target.node.value() >= root.nodes.len() {
                return Err(GltfError::Parse {
                    path: p.into(),
                    message: format!("animation {a} channel {c} targets node {}; the file has {}", channel.target.node.value(), root.nodes.len()),
                });
            }
        }
    }
    let document = gltf::Document::from_json(root).map_err(parse_err)?;
    let mut buffers = Vec::new();
    for buffer in document.buffers() {
        let bad = |message: String| GltfError::Buffer { path: p.into(), buffer: buffer.index(), message };
        let data = match buffer.source() {
            gltf::buffer::Source::Bin => {
                blob.clone().ok_or_else(|| bad("refers to the GLB's BIN chunk, and the file has none".into()))?
            }
            gltf::buffer::Source::Uri(uri) => load_uri(uri, folder).map_err(bad)?,
        };
        if data.len() < buffer.length() {
            return Err(bad(format!("declares {} bytes (byteLength) but holds {}", buffer.length(), data.len())));
        }
        buffers.push(data);
    }
    Ok(Source { path: p.into(), doc: document, buffers })
}

/// The bytes of a buffer URI: a base64 `data:` URI, or a file inside `folder`.
fn load_uri(uri: &str, folder: Option<&Path>) -> Result<Vec<u8>, String> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (_, payload) = rest.split_once(";base64,").ok_or("a data: URI must be base64 (data:...;base64,...)")?;
        return base64::engine::general_purpose::STANDARD.decode(payload).map_err(|e| format!("data: URI: bad base64: {e}"));
    }
    let relative = PathBuf::from(percent_decode(uri)?);
    let scheme = uri.split_once(':').is_some_and(|(s, _)| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)));
    if scheme || relative.is_absolute() || relative.components().any(|c| matches!(c, Component::Prefix(_) | Component::RootDir)) {
        return Err(format!("URI '{uri}' is not a relative path; a buffer must be a file in the document's folder or a data: URI"));
    }
    let folder = folder.ok_or_else(|| format!("URI '{uri}': no folder to read external buffers from"))?;
    let file = folder.join(&relative);
    let base = folder.canonicalize().map_err(|e| format!("URI '{uri}': the folder {} cannot be read: {e}", folder.display()))?;
    let resolved = file.canonicalize().map_err(|_| format!("URI '{uri}': {} does not exist", file.display()))?;
    if !resolved.starts_with(&base) {
        return Err(format!("URI '{uri}' leaves the document's folder ({}); a buffer must be a file inside it", base.display()));
    }
    std::fs::read(&resolved).map_err(|e| format!("URI '{uri}': cannot read {}: {e}", resolved.display()))
}

fn percent_decode(uri: &str) -> Result<String, String> {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok()).and_then(|h| u8::from_str_radix(h, 16).ok());
            out.push(hex.ok_or_else(|| format!("URI '{uri}': bad percent escape at byte {i}"))?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("URI '{uri}' is not UTF-8 once decoded"))
}

/// What a use of an accessor allows.
pub struct Expect {
    /// What the accessor is for, e.g. "POSITION of mesh 'Body' primitive 0".
    pub usage: String,
    pub dimensions: &'static [Dimensions],
    /// Component types and whether each must be normalised (None: either).
    pub types: &'static [(DataType, Option<bool>)],
}

pub const FLOAT: (DataType, Option<bool>) = (DataType::F32, None);

/// Most elements of an accessor without a buffer view (all zeros until a sparse part sets some): far
/// above any character the profile allows, far below what would exhaust memory.
const MAX_ZERO_ELEMENTS: usize = 1 << 20;

fn dims_name(d: Dimensions) -> &'static str {
    match d {
        Dimensions::Scalar => "SCALAR",
        Dimensions::Vec2 => "VEC2",
        Dimensions::Vec3 => "VEC3",
        Dimensions::Vec4 => "VEC4",
        Dimensions::Mat2 => "MAT2",
        Dimensions::Mat3 => "MAT3",
        Dimensions::Mat4 => "MAT4",
    }
}

fn type_name(t: DataType, normalized: bool) -> String {
    let n = match t {
        DataType::I8 => "BYTE",
        DataType::U8 => "UNSIGNED_BYTE",
        DataType::I16 => "SHORT",
        DataType::U16 => "UNSIGNED_SHORT",
        DataType::U32 => "UNSIGNED_INT",
        DataType::F32 => "FLOAT",
    };
    if normalized { format!("normalized {n}") } else { n.to_string() }
}

fn component_size(t: DataType) -> usize {
    match t {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    }
}

/// One component at the start of `b` (little-endian), normalised if asked.
fn component(b: &[u8], t: DataType, normalized: bool) -> f64 {
    let raw = match t {
        DataType::I8 => b[0] as i8 as f64,
        DataType::U8 => b[0] as f64,
        DataType::I16 => i16::from_le_bytes([b[0], b[1]]) as f64,
        DataType::U16 => u16::from_le_bytes([b[0], b[1]]) as f64,
        DataType::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
        DataType::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
    };
    if !normalized {
        return raw;
    }
    match t {
        DataType::I8 => (raw / 127.0).max(-1.0),
        DataType::U8 => raw / 255.0,
        DataType::I16 => (raw / 32767.0).max(-1.0),
        DataType::U16 => raw / 65535.0,
        DataType::U32 => raw / 4294967295.0,
        DataType::F32 => raw,
    }
}

impl Source {
    /// The bytes of image `index` when the file holds them (a `data:` URI or a buffer view), None for
    /// an image given by a file URI or whose bytes cannot be read (the texture finder then names it).
    pub fn embedded_image(&self, index: usize) -> Option<Vec<u8>> {
        let json = self.doc.as_json().images.get(index)?;
        match (&json.uri, json.buffer_view) {
            (Some(uri), _) if uri.starts_with("data:") => load_uri(uri, None).ok(),
            (None, Some(view)) => {
                let view = self.doc.views().nth(view.value())?;
                self.view_bytes(&view, &|m| GltfError::Parse { path: self.path.clone(), message: m }).ok().map(<[u8]>::to_vec)
            }
            _ => None,
        }
    }

    /// The file an image URI names, percent-decoded (None for a `data:` URI or no URI).
    pub fn image_file(&self, index: usize) -> Option<String> {
        let uri = self.doc.as_json().images.get(index)?.uri.as_ref()?;
        (!uri.starts_with("data:")).then(|| percent_decode(uri).unwrap_or_else(|_| uri.clone()))
    }

    /// The bytes of a buffer view, checked against its buffer.
    fn view_bytes(&self, view: &gltf::buffer::View, bad: &dyn Fn(String) -> GltfError) -> Result<&[u8], GltfError> {
        let buffer = &self.buffers[view.buffer().index()];
        let end = view.offset().checked_add(view.length()).filter(|e| *e <= buffer.len());
        let Some(end) = end else {
            return Err(bad(format!(
                "buffer view {} spans bytes {}..{} of buffer {}, which holds {} bytes",
                view.index(),
                view.offset(),
                view.offset() as u128 + view.length() as u128,
                view.buffer().index(),
                buffer.len()
            )));
        };
        Ok(&buffer[view.offset()..end])
    }

    /// Every element of `accessor` as `count * components` numbers, after checking it against `expect`.
    pub fn read(&self, accessor: &gltf::Accessor, expect: &Expect) -> Result<Vec<f64>, GltfError> {
        let bad = |message: String| GltfError::Accessor {
            path: self.path.clone(),
            accessor: accessor.index(),
            name: accessor.name().map(|n| format!(" '{n}'")).unwrap_or_default(),
            usage: expect.usage.clone(),
            message,
        };
        let (t, normalized, dims) = (accessor.data_type(), accessor.normalized(), accessor.dimensions());
        let type_ok = expect.types.iter().any(|(et, en)| *et == t && en.is_none_or(|n| n == normalized));
        if !expect.dimensions.contains(&dims) || !type_ok {
            let wanted: Vec<String> = expect.types.iter().map(|(et, en)| type_name(*et, en.unwrap_or(false))).collect();
            let shapes: Vec<&str> = expect.dimensions.iter().map(|d| dims_name(*d)).collect();
            return Err(bad(format!(
                "is {} {}; expected {} of {}",
                dims_name(dims),
                type_name(t, normalized),
                shapes.join(" or "),
                wanted.join(" or ")
            )));
        }
        let n = dims.multiplicity();
        let size = component_size(t);
        let element = n * size;
        let count = accessor.count();
        // Bounds first, so that no count in the JSON makes the reader allocate more than the file holds.
        let view = match accessor.view() {
            Some(view) => {
                let bytes = self.view_bytes(&view, &bad)?;
                let stride = view.stride().unwrap_or(element);
                if stride < element {
                    return Err(bad(format!("byteStride {stride} is smaller than one element ({element} bytes)")));
                }
                if count > 0 {
                    let last = (count - 1) as u128 * stride as u128 + accessor.offset() as u128 + element as u128;
                    if last > bytes.len() as u128 {
                        return Err(bad(format!(
                            "{count} elements of {element} bytes (stride {stride}) from offset {} need {last} bytes; buffer view {} has {}",
                            accessor.offset(),
                            view.index(),
                            bytes.len()
                        )));
                    }
                }
                Some((bytes, stride))
            }
            None if count > MAX_ZERO_ELEMENTS => {
                return Err(bad(format!("has no buffer view and {count} elements; expected at most {MAX_ZERO_ELEMENTS}")));
            }
            None => None,
        };
        let mut out = vec![0.0; count * n];
        if let Some((bytes, stride)) = view {
            for i in 0..count {
                let at = accessor.offset() + i * stride;
                for c in 0..n {
                    out[i * n + c] = component(&bytes[at + c * size..], t, normalized);
                }
            }
        }
        if let Some(sparse) = accessor.sparse() {
            let k = sparse.count();
            let (iv, vv) = (sparse.indices().view(), sparse.values().view());
            let ibytes = self.view_bytes(&iv, &bad)?;
            let vbytes = self.view_bytes(&vv, &bad)?;
            let it = match sparse.indices().index_type() {
                gltf::accessor::sparse::IndexType::U8 => DataType::U8,
                gltf::accessor::sparse::IndexType::U16 => DataType::U16,
                gltf::accessor::sparse::IndexType::U32 => DataType::U32,
            };
            let isize = component_size(it);
            let (ioff, voff) = (sparse.indices().offset(), sparse.values().offset());
            if ioff as u128 + (k * isize) as u128 > ibytes.len() as u128 || voff as u128 + (k as u128) * element as u128 > vbytes.len() as u128 {
                return Err(bad(format!("its {k} sparse indices or values run past their buffer views")));
            }
            for j in 0..k {
                let index = component(&ibytes[ioff + j * isize..], it, false) as usize;
                if index >= count {
                    return Err(bad(format!("sparse index {j} is {index}; expected below the count {count}")));
                }
                for c in 0..n {
                    out[index * n + c] = component(&vbytes[voff + j * element + c * size..], t, normalized);
                }
            }
        }
        if let Some(i) = out.iter().position(|v| !v.is_finite()) {
            return Err(bad(format!("element {} component {} is {}; expected finite numbers", i / n, i % n, out[i])));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_escapes_decode_and_bad_ones_are_refused() {
        assert_eq!(percent_decode("my%20file.bin").unwrap(), "my file.bin");
        assert!(percent_decode("bad%2").is_err());
        assert!(percent_decode("bad%zz").is_err());
    }

    #[test]
    fn uris_outside_the_folder_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("model");
        std::fs::create_dir(&inner).unwrap();
        std::fs::write(dir.path().join("secret.bin"), [1, 2, 3]).unwrap();
        std::fs::write(inner.join("ok.bin"), [4, 5]).unwrap();
        assert_eq!(load_uri("ok.bin", Some(&inner)).unwrap(), [4, 5]);
        let escape = load_uri("../secret.bin", Some(&inner)).unwrap_err();
        assert!(escape.contains("leaves the document's folder"), "{escape}");
        let escape = load_uri("%2E%2E/secret.bin", Some(&inner)).unwrap_err();
        assert!(escape.contains("leaves the document's folder"), "{escape}");
        let absolute = dir.path().join("secret.bin").display().to_string();
        assert!(load_uri(&absolute, Some(&inner)).unwrap_err().contains("not a relative path"));
        assert!(load_uri("file:///etc/passwd", Some(&inner)).unwrap_err().contains("not a relative path"));
        assert!(load_uri("missing.bin", Some(&inner)).unwrap_err().contains("does not exist"));
        assert_eq!(load_uri("data:application/octet-stream;base64,AQID", None).unwrap(), [1, 2, 3]);
    }

    #[test]
    fn normalised_components_follow_the_specification() {
        assert_eq!(component(&[255], DataType::U8, true), 1.0);
        assert_eq!(component(&[0x80], DataType::I8, true), -1.0);
        assert_eq!(component(&[0x81], DataType::I8, true), -1.0);
        assert_eq!(component(&[0xff, 0x7f], DataType::I16, true), 1.0);
        assert_eq!(component(&[7, 0], DataType::U16, false), 7.0);
    }
}
