//! Three-component integer vectors: `i16` (GTE V0..V2 / IR1..3) and `i32` (MAC1..3, TR, translations).

/// A vector of `i16`: a GTE input vertex (V0..V2) or an FP12 direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Vec3i16 {
    pub x: i16,
    pub y: i16,
    pub z: i16,
}

/// A vector of `i32`: a translation (TR) or a GTE MAC1..3 result. `repr(C)` (x, y, z in order) for
/// [`super::Matrix`]'s stored layout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Vec3i32 {
    pub x: i32,
    pub y: i32,
    pub z: i32,
}

impl Vec3i16 {
    pub const ZERO: Self = Self::new(0, 0, 0);

    pub const fn new(x: i16, y: i16, z: i16) -> Self {
        Self { x, y, z }
    }

    pub const fn to_array(self) -> [i16; 3] {
        [self.x, self.y, self.z]
    }

    pub const fn from_array(a: [i16; 3]) -> Self {
        Self::new(a[0], a[1], a[2])
    }

    /// Widens every component to `i32`.
    pub const fn widen(self) -> Vec3i32 {
        Vec3i32::new(self.x as i32, self.y as i32, self.z as i32)
    }
}

impl Vec3i32 {
    pub const ZERO: Self = Self::new(0, 0, 0);

    pub const fn new(x: i32, y: i32, z: i32) -> Self {
        Self { x, y, z }
    }

    pub const fn to_array(self) -> [i32; 3] {
        [self.x, self.y, self.z]
    }

    pub const fn from_array(a: [i32; 3]) -> Self {
        Self::new(a[0], a[1], a[2])
    }

    /// Component-wise sum, wrapping on overflow (never panics).
    pub const fn wrapping_add(self, o: Self) -> Self {
        Self::new(self.x.wrapping_add(o.x), self.y.wrapping_add(o.y), self.z.wrapping_add(o.z))
    }

    /// Narrows to `i16` with saturation (what the GTE does to IR1..3 with lm=0).
    pub const fn saturate_i16(self) -> Vec3i16 {
        Vec3i16::new(
            super::saturate_i16(self.x as i64),
            super::saturate_i16(self.y as i64),
            super::saturate_i16(self.z as i64),
        )
    }
}
