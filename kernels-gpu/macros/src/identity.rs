//! A kernel's identity: a 64-bit hash of what decides the code its GPU entries run (the
//! signature, hence the planes and their roles; the body; the settings `steps`, `real`,
//! `time` and `contract`) and of hawk's entry ABI. The GPU module stores it beside the entries
//! (`hawk_id_<name>`) and deploy compares it with `Kernel::IDENTITY`, so a module holding
//! another kernel of the same name is refused. Docs, other attributes and the `crate`
//! setting do not change it.
//!
//! The hash is FNV-1a over the tokens as text: it must be the same in every build of the
//! same source (host and `nvptx64` builds run this macro separately), which `std`'s
//! `DefaultHasher` does not promise across Rust versions. Five lines, so no crate for it.

use crate::parse::Settings;
use quote::ToTokens;
use syn::{Block, Signature};

/// The version of the entry ABI (parameter layout, save targets, flags): bump it when the
/// entries' contract with the runtime changes without their parameter sizes changing.
const ENTRY_ABI: &str = "hawk-entry-abi-2";

/// `id` extended with `text` (what else the kernel's code depends on: a problem's
/// right-hand side).
pub fn extend(id: u64, text: &str) -> u64 {
    fnv(id, text)
}

/// The identity of the kernel with signature `sig`, body `body` and `settings`.
pub fn of(sig: &Signature, body: &Block, settings: &Settings) -> u64 {
    let parts = [
        ENTRY_ABI.to_owned(),
        env!("CARGO_PKG_VERSION").to_owned(),
        sig.to_token_stream().to_string(),
        body.to_token_stream().to_string(),
        format!("{:?}", settings.steps),
        settings.real.to_string(),
        settings
            .time
            .as_ref()
            .map(|t| t.to_string())
            .unwrap_or_default(),
    ];
    let id = parts.iter().fold(FNV_OFFSET, |h, p| fnv(h, p));
    // Kernels without `positive` or `counters` keep the identity they had before the
    // settings existed.
    let id = settings
        .positive
        .iter()
        .fold(id, |h, p| fnv(h, &format!("positive {p}")));
    let id = settings
        .counters
        .iter()
        .fold(id, |h, p| fnv(h, &format!("counter {p}")));
    // Likewise `contract`, which changes the code the body compiles to.
    if settings.contract {
        fnv(id, "contract")
    } else {
        id
    }
}

/// FNV-1a from state `h` over `text` and a 0 byte (so moving text between parts changes
/// the hash).
fn fnv(h: u64, text: &str) -> u64 {
    text.bytes()
        .chain([0])
        .fold(h, |h, b| (h ^ u64::from(b)).wrapping_mul(FNV_PRIME))
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

#[cfg(test)]
mod tests {
    use crate::parse::parse;
    use quote::quote;

    fn id(attr: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> u64 {
        parse(attr, item).unwrap_or_else(|e| panic!("{e}")).identity
    }

    /// The body, a plane's role and the settings change the identity; docs, layout and
    /// the `crate` setting do not.
    #[test]
    fn identity_follows_the_code() {
        let base = id(
            quote!(steps = 4),
            quote! { pub fn decay(rate: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
                *x = *x - rate * *x * dt;
                *terminated = x.simd_lt(Scalar::splat(0.5));
            } },
        );
        let same = id(
            quote!(crate = eagle::hawk, steps = 4),
            quote! {
            /// Docs.
            pub fn decay(rate: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
            *x = *x - rate * *x * dt; *terminated = x.simd_lt(Scalar::splat(0.5)); } },
        );
        assert_eq!(base, same);
        let others = [
            id(
                quote!(steps = 4),
                quote! { pub fn decay(rate: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
                    *x = *x - rate * *x * dt * dt;
                    *terminated = x.simd_lt(Scalar::splat(0.5));
                } },
            ),
            id(
                quote!(steps = 8),
                quote! { pub fn decay(rate: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
                    *x = *x - rate * *x * dt;
                    *terminated = x.simd_lt(Scalar::splat(0.5));
                } },
            ),
            id(
                quote!(steps = 4, real = "f32"),
                quote! { pub fn decay(rate: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
                    *x = *x - rate * *x * dt;
                    *terminated = x.simd_lt(Scalar::splat(0.5));
                } },
            ),
            id(
                quote!(steps = 4),
                quote! { pub fn decay(rate: Param, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
                    *x = *x - rate * *x * dt;
                    *terminated = x.simd_lt(Scalar::splat(0.5));
                } },
            ),
        ];
        for (i, o) in others.iter().enumerate() {
            assert_ne!(base, *o, "change {i}");
        }
    }
}
