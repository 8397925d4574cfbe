//! ANIMBIN reader: never panics; whatever it accepts is rewritten byte for byte.
#![no_main]
use libfuzzer_sys::fuzz_target;
use psxanim::formats::{animbin, AnimbinMode, Losses};

fuzz_target!(|data: &[u8]| {
    if let Ok(anim) = animbin::read(data) {
        let _ = psxanim::formats::json::to_json(&anim);
        let out = animbin::write(&anim, AnimbinMode::Correct, &mut Losses::default()).expect("a read file is writable");
        assert_eq!(out, data, "unedited rewrite must be byte-identical");
    }
});
