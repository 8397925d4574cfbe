//! TIM reader: never panics; whatever it accepts writes back to the same blocks and reads back equal,
//! and its texels can be drawn (`rgba`) whatever their indices.
#![no_main]
use libfuzzer_sys::fuzz_target;
use psxanim::texture::tim::Tim;

fuzz_target!(|data: &[u8]| {
    if let Ok(t) = Tim::parse(data) {
        let again = Tim::parse(&t.to_bytes()).expect("a written TIM reads back");
        assert_eq!(again, t);
        assert_eq!(t.rgba().len(), 4 * t.texel_width() as usize * t.image_at.h as usize);
    }
});
