//! Finding a material's image as users' files really are: embedded in the file, at the path the
//! file names (absolute paths from the artist's machine are normal, so a missing one is no error
//! while another place has the image), relative to the model's folder, the bare file name beside
//! the model, or in `--textures DIR`. The first that reads wins; when none does, the error lists every
//! place tried.

use std::path::{Path, PathBuf};

use crate::fbx::TextureRef;

/// Where an image was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    Embedded,
    File(PathBuf),
}

/// The image `texture` names, for a model in `model_dir`, also looking in `textures_dir`: its bytes
/// and where they came from, or every place tried.
pub fn find(texture: &TextureRef, model_dir: &Path, textures_dir: Option<&Path>) -> Result<(Vec<u8>, Found), Vec<String>> {
    if let Some(bytes) = texture.embedded.as_ref().filter(|b| !b.is_empty()) {
        return Ok((bytes.clone(), Found::Embedded));
    }
    let mut tried = Vec::new();
    let mut candidates: Vec<PathBuf> = Vec::new();
    let mut add = |p: PathBuf| {
        if !candidates.contains(&p) {
            candidates.push(p);
        }
    };
    for p in &texture.paths {
        // A path written on another system: both separators split it.
        let written = PathBuf::from(p.replace('\\', "/"));
        add(if written.is_absolute() { written.clone() } else { model_dir.join(&written) });
        if let Some(name) = written.file_name() {
            add(model_dir.join(name));
            if let Some(dir) = textures_dir {
                add(dir.join(name));
            }
        }
    }
    for c in candidates {
        match std::fs::read(&c) {
            Ok(bytes) => return Ok((bytes, Found::File(c))),
            Err(e) => tried.push(format!("{} ({})", c.display(), e.kind())),
        }
    }
    if texture.embedded.is_some() {
        tried.insert(0, "the file's embedded copy (empty)".into());
    }
    Err(tried)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_image_is_found_where_users_files_have_it_and_every_place_tried_is_named() {
        let model = tempfile::tempdir().unwrap();
        let extra = tempfile::tempdir().unwrap();
        std::fs::create_dir(model.path().join("tex")).unwrap();
        std::fs::write(model.path().join("tex/skin.png"), b"relative").unwrap();
        std::fs::write(model.path().join("beside.png"), b"beside").unwrap();
        std::fs::write(extra.path().join("elsewhere.png"), b"dir").unwrap();
        let t = |paths: &[&str]| TextureRef { name: paths[0].into(), embedded: None, paths: paths.iter().map(|s| s.to_string()).collect() };
        let found = |r: &TextureRef| find(r, model.path(), Some(extra.path())).map(|(b, _)| b);
        assert_eq!(found(&t(&["tex/skin.png"])).unwrap(), b"relative");
        // An absolute path from the artist's machine (either separator), the file beside the model.
        assert_eq!(found(&t(&["C:\\Users\\artist\\beside.png"])).unwrap(), b"beside");
        assert_eq!(found(&t(&["/home/artist/textures/beside.png"])).unwrap(), b"beside");
        assert_eq!(found(&t(&["/nowhere/elsewhere.png"])).unwrap(), b"dir");
        let embedded = TextureRef { name: "inside".into(), embedded: Some(b"embedded".to_vec()), paths: vec!["/nowhere/x.png".into()] };
        assert_eq!(find(&embedded, model.path(), None).unwrap(), (b"embedded".to_vec(), Found::Embedded));
        let tried = find(&t(&["/gone/missing.png"]), model.path(), Some(extra.path())).unwrap_err();
        assert_eq!(tried.len(), 3, "{tried:?}");
        assert!(tried[0].starts_with("/gone/missing.png") && tried[2].contains("missing.png"), "{tried:?}");
    }
}
