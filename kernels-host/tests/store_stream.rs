//! `Lane::store_stream` (the streaming stores of saved points) writes exactly what `store`
//! writes, at every offset from a cache line (the aligned path and the plain-store fallback),
//! for the host team's vector lanes in f64 and f32.
#![feature(portable_simd)]

use hawk::Lane;
use hawk::lane::Multi;
use std::simd::Simd;

#[repr(C, align(64))]
struct Line<T>([T; 256]);

fn same_bits<L: Lane>(seed: L::Elem, step: L::Elem)
where
    L::Elem: PartialEq + std::fmt::Debug + core::ops::Add<Output = L::Elem> + Copy,
{
    let mut vals = [seed; 128];
    for i in 1..vals.len() {
        vals[i] = vals[i - 1] + step;
    }
    // SAFETY: `vals` holds 128 elements, at least the widest lane tested (64).
    let v = unsafe { L::load(vals.as_ptr()) };
    for off in 0..16 {
        let (mut a, mut b) = (Line([seed; 256]), Line([seed; 256]));
        // SAFETY: `off + WIDTH <= 15 + 64 <= 256`: inside both lines; the `sfence` follows
        // the streaming store, as its contract asks.
        unsafe {
            v.store(a.0.as_mut_ptr().add(off));
            v.store_stream(b.0.as_mut_ptr().add(off));
            #[cfg(target_arch = "x86_64")]
            core::arch::x86_64::_mm_sfence();
        }
        assert_eq!(a.0, b.0, "width {} at offset {off}", L::WIDTH);
    }
}

#[test]
fn store_stream_writes_what_store_writes() {
    same_bits::<f64>(1.5, 0.25);
    same_bits::<Simd<f64, 2>>(1.5, 0.25);
    same_bits::<Simd<f64, 4>>(1.5, 0.25);
    same_bits::<Simd<f64, 8>>(-3.0, 0.125);
    same_bits::<Simd<f64, 32>>(-3.0, 0.125);
    same_bits::<Multi<Simd<f64, 8>, 4>>(7.0, -0.5);
    same_bits::<f32>(1.5, 0.25);
    same_bits::<Simd<f32, 4>>(1.5, 0.25);
    same_bits::<Simd<f32, 16>>(2.0, 0.75);
    same_bits::<Simd<f32, 64>>(2.0, 0.75);
    same_bits::<Multi<Simd<f32, 16>, 4>>(-1.0, 0.5);
}
