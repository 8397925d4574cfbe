//! `.panim` reader: never panics; whatever it accepts is rewritten byte for byte.
#![no_main]
use libfuzzer_sys::fuzz_target;
use psxanim::formats::{panim, Losses};

fuzz_target!(|data: &[u8]| {
    if let Ok(anim) = panim::read(data) {
        let _ = psxanim::formats::json::to_json(&anim);
        let out = panim::write(&anim, &mut Losses::default()).expect("a read file is writable");
        assert_eq!(out, data, "unedited rewrite must be byte-identical");
    }
});
