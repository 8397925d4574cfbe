//! Metroid Prime ANIM reader (versions 0 and 2): never panics; an accepted version 0 file rewrites
//! to one that reads back.
#![no_main]
use libfuzzer_sys::fuzz_target;
use psxanim::formats::{mp_anim, Losses};

fuzz_target!(|data: &[u8]| {
    if let Ok(anim) = mp_anim::read(data) {
        let _ = psxanim::formats::json::to_json(&anim);
        if anim.version == 0 {
            if let Ok(out) = mp_anim::write_v0(&anim, &mut Losses::default()) {
                mp_anim::read(&out).expect("the rewrite reads back");
            }
        }
    }
});
