//! `#[kernel]`: turns one step function into a hawk kernel.
//!
//! From
//! `#[kernel(steps = "auto")] pub fn oscillator(omega: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) { .. }`
//! it generates:
//! - the function itself, generic over the lane type (the parameter is named `Scalar`),
//! - a kernel type `Oscillator` implementing `hawk::Kernel` (name, planes, steps, one step),
//! - a typed planes struct `OscillatorPlanes<'a>` (a missing plane is a compile error),
//! - the GPU entry point `hawk_oscillator` behind `cfg(target_arch = "nvptx64")`, and beside
//!   it the kernel's identity `hawk_id_oscillator` (see `identity`), which deploy compares.
//!
//! A `next_save: NextSave` argument (each lane's next save time, `+inf` when none) makes
//! `Kernel::step_to` the step (`NEXT_SAVE = true`); `step` and `step_or_fail` pass `+inf`.
//!
//! Authoring mistakes are compile errors at the offending code: wrong argument types, planes
//! sharing a name, a missing `&mut Terminated`, and in the body (see `checks`) per-sample
//! `if`/`while`/`match`/`&&`/`||` and anything that needs `std` or an allocator.
//!
//! The expansion is two steps: `parse` (the settings, the signature and, through `checks`,
//! the body, into a `KernelDef`) and `generate` (a `KernelDef` into the items above).

mod checks;
mod contract;
mod debug;
mod events;
mod generate;
pub(crate) mod helper;
mod identity;
mod parse;
pub(crate) mod problem;
mod sde;

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;

/// Marks a step function as a hawk kernel. See the crate docs of `hawk` for the roles.
///
/// Settings: `steps = "auto"` (default) or `steps = 64` (a fixed k per launch),
/// `real = "f64"` (default) or `real = "f32"` for the element type of every plane,
/// `time = t` to name the kernel's time plane (a `&mut Scalar` argument; needed to save
/// points at times, see `Kernel::TIME`), `positive = [dt]` for params a run refuses
/// unless positive (`Kernel::POSITIVE`), `counters = [seed, path, step]` for params and
/// single-value planes that must hold whole numbers keying random numbers
/// (`Kernel::COUNTERS`, `hawk::random::Stream`), `host_loops = "portable"` to compile
/// the host team's portable loops only (a test's or an example's kernel: a third of the
/// build; `Kernel::HOST_LOOPS`), `host_code = "where_used"` to leave the host loops to
/// each crate that runs the kernel instead of compiling them once in the kernel's own
/// crate (the default, `"here"`; for a crate of many kernels of which a program runs a
/// few, like hawk's built-ins; `Kernel::host_loops`), `contract` to fuse the body's multiply-adds (`a * b + c`,
/// `c - a * b`, `x += a * b`, ..: one rounding instead of two, the same bits on every team;
/// the rules are `#[contract]`'s), and `crate = eagle::hawk` (default `::hawk`) for where
/// the generated code finds `hawk`, in a crate that depends on `eagle` only:
/// `#[eagle::hawk::kernel(crate = eagle::hawk)]`.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand(attr.into(), item.into()) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// Makes an ODE right-hand side and a method into a hawk kernel: the kernel, its planes
/// (state, time, step size, counters, status) and the save-time landing are generated.
///
/// The function is the right-hand side, `fn name(t: Scalar, y: &[Scalar; N], inputs...)
/// -> [Scalar; N]`, each input a `Scalar` or `[Scalar; K]` (per sample), a `Param` or a
/// `&[Param; M]` table (shared). It becomes `name_rhs` (generic over the lane), and the
/// kernel `name` takes the inputs as written, then:
/// - `method = "rk4"`: params `dt`, `t_end`; state `y: &mut [Scalar; N]` and time `t`;
/// - `method = "tsit5"`, `"dp87"` (Dormand-Prince 8(7)) or `"rk78"` (Fehlberg 7(8)):
///   params `t_end`, `rtol`, `atol`; state `y`, time `t`, step size `h` (give the first
///   step), counters `accepted` and `rejected`; a sample whose step size collapses fails,
///   and steps land on save times;
/// - `method = "euler_maruyama"` (`"em"`), `"milstein"` or `"sra1"`: an Itô SDE with
///   diagonal noise, `diffusion = g` (a `#[helper]` with the right-hand side's arguments
///   giving `[Scalar; N]`) and for Milstein `derivative = dg | "finite_difference"`;
///   params `dt`, `t_end`, `seed`, the input plane `path`, the flag `failed`, state `y`,
///   time `t` and the step count `step` (the noise is keyed by `seed`, `path` and `step`:
///   `hawk::random::Stream`; eagle's guide, chapter 11).
///
/// The state and time planes take the names of the function's arguments (`_t` gives `t`).
///
/// Events and stops (eagle's guide, chapter 10): `event(when = g, direction = "falling",
/// then = action | "terminate" | "count")` (any number), `max_events = M` and
/// `when_full = "fail" | "stop"` for a record of each sample's events, and `stop(times =
/// S, then = action)` for steps that land on given times. They add the param `event_tol`
/// and the planes `events`, `event_t`, `event_kind`, `event_y` and `stop_t`; `rk4` then
/// also takes `failed` and shortens its last step to land on `t_end`.
///
/// Other settings (`steps`, `real`, `contract`, `crate`) are `#[kernel]`'s; `contract`
/// fuses the right-hand side's multiply-adds and the kernel's, and with `rk4` its stage
/// updates too (`hawk::methods::rk4_step_fma`); the adaptive and stochastic methods'
/// own arithmetic is the same with or without it.
#[proc_macro_attribute]
pub fn problem(attr: TokenStream, item: TokenStream) -> TokenStream {
    match problem::expand(attr.into(), item.into()) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// Fuses the multiply-adds of an item (a function, an `impl` block, a module), as
/// `#[kernel(contract)]` does a kernel's body: `a * b + c` and `c + a * b` become
/// `hawk::Fused::fused_mul_add(a, b, c)`, `a * b - c` `fused_mul_sub(a, b, c)`, `c - a * b`
/// `fused_neg_mul_add(a, b, c)`, and `x += a * b`, `x -= a * b` assignments of those.
/// Innermost first; where both operands of a sum are products, the left one is fused. A
/// product in parentheses is a product (bind it with `let` to keep it apart); macro calls,
/// types, patterns and constant expressions are left as written. Lanes and reals fuse
/// (`mul_add`), integers compute as written. Setting: `crate = eagle::hawk`.
#[proc_macro_attribute]
pub fn contract(attr: TokenStream, item: TokenStream) -> TokenStream {
    let expand = || -> syn::Result<TokenStream2> {
        let settings = parse::parse_settings(attr.into())?;
        let mut item: syn::Item = syn::parse2(item.into())?;
        syn::visit_mut::VisitMut::visit_item_mut(
            &mut contract::Contract::new(&settings.krate),
            &mut item,
        );
        Ok(quote::quote!(#item))
    };
    match expand() {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// Makes a function that kernels and problems call (an event's condition or action)
/// generic over the lane: written with `Scalar` (and `Param`) like a kernel, with the
/// kernel's body checks, it becomes `fn name<Scalar: Lane<Elem = f64>>(..)`. Settings:
/// `real = "f32"`, `contract` and `crate = eagle::hawk`, as `#[kernel]`'s.
#[proc_macro_attribute]
pub fn helper(attr: TokenStream, item: TokenStream) -> TokenStream {
    match helper::expand(attr.into(), item.into()) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// The expansion: the parse step (settings, signature and body checked into a
/// `KernelDef`), then the generate step.
fn expand(attr: TokenStream2, item: TokenStream2) -> syn::Result<TokenStream2> {
    Ok(generate::generate(&parse::parse(attr, item)?))
}

#[cfg(test)]
mod tests {
    use super::{expand, parse};
    use quote::quote;

    fn kernel() -> proc_macro2::TokenStream {
        quote! {
            pub fn decay(rate: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
                *x = *x - rate * *x * dt;
                *terminated = x.simd_lt(Scalar::splat(0.5));
            }
        }
    }

    /// Every path the expansion names starts with the `crate` setting.
    #[test]
    fn crate_setting_prefixes_every_path() {
        for attr in [
            quote!(crate = eagle::hawk, steps = 4),
            quote!(crate = "eagle::hawk"),
        ] {
            let out = expand(attr, kernel()).unwrap().to_string();
            let hawk_paths = out.matches("hawk ::").count();
            assert!(hawk_paths > 10, "{out}");
            assert_eq!(out.matches("eagle :: hawk ::").count(), hawk_paths, "{out}");
        }
        let out = expand(quote!(), kernel()).unwrap().to_string();
        assert_eq!(
            out.matches(":: hawk ::").count(),
            out.matches("hawk ::").count(),
            "{out}"
        );
    }

    /// `contract` fuses the body's multiply-adds (at the `crate` path) and gives the kernel
    /// another identity; without it nothing is fused.
    #[test]
    fn contract_setting_fuses_the_body_and_changes_the_identity() {
        let plain = parse::parse(quote!(steps = 4), kernel()).unwrap();
        let fused = parse::parse(quote!(steps = 4, contract), kernel()).unwrap();
        assert_ne!(plain.identity, fused.identity);
        let body = |k: &parse::KernelDef| {
            let b = &k.body;
            quote!(#b).to_string()
        };
        assert!(!body(&plain).contains("Fused"), "{}", body(&plain));
        // `*x - rate * *x * dt`: the right product is fused with the left operand.
        assert!(
            body(&fused).contains(":: hawk :: Fused :: fused_neg_mul_add (rate * * x , dt , * x)"),
            "{}",
            body(&fused)
        );
        let e = expand(quote!(contract = 1), kernel())
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown setting"), "{e}");
    }

    #[test]
    fn crate_setting_must_be_a_path() {
        for attr in [
            quote!(crate = 5),
            quote!(crate = "not a path"),
            quote!(crate = a + b),
        ] {
            let e = expand(attr, kernel()).unwrap_err().to_string();
            assert!(e.contains("`crate` takes the path to hawk"), "{e}");
        }
    }
}
