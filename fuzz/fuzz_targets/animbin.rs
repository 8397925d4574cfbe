//! ANIMBIN reader: never panics; whatever it accepts is rewritten byte for byte (up to the bytes after
//! the last clip, which it reports and does not read).
#![no_main]
use libfuzzer_sys::fuzz_target;
use psxanim::formats::{animbin, AnimbinMode, Losses};

fuzz_target!(|data: &[u8]| {
    if let Ok(anim) = animbin::read(data) {
        let _ = psxanim::formats::json::to_json(&anim);
        let out = animbin::write(&anim, AnimbinMode::Correct, &mut Losses::default()).expect("a read file is writable");
        if anim.warnings.is_empty() {
            assert_eq!(out, data, "unedited rewrite must be byte-identical");
        } else {
            // Bytes after the last clip are not read (as by the original loader) and not written.
            assert!(data.starts_with(&out), "the rewrite is the part of the file that was read");
        }
    }
});
