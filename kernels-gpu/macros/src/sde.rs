//! A `#[problem]` with a stochastic method: the settings `diffusion = g` and `derivative =
//! dg | "finite_difference"`, and the kernel it becomes.
//!
//! ```text
//! #[problem(method = "milstein", diffusion = vol, derivative = "finite_difference")]
//! pub fn gbm(_t: Scalar, y: &[Scalar; 1], mu: Param, sigma: Param) -> [Scalar; 1] { [mu * y[0]] }
//! ```
//! The kernel takes the inputs as written, `dt`, `t_end` and `seed` (params), `path` (an
//! input plane: the sample's path number), and advances `y`, `t` and `step` (the steps
//! taken, which keys the step's draws with `seed` and `path`). Noise is diagonal: one
//! Wiener channel per component of `y`.

use crate::events::{path_of, string_of};
use crate::helper;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Meta, Path};

/// The stochastic methods a problem can name.
#[derive(Clone, Copy, PartialEq)]
pub enum SdeMethod {
    /// Euler-Maruyama.
    EulerMaruyama,
    /// Milstein for diagonal noise.
    Milstein,
    /// Rößler's SRA1, additive noise.
    Sra1,
}

impl SdeMethod {
    /// The method spelled `name`, if it is a stochastic one.
    pub fn named(name: &str) -> Option<SdeMethod> {
        Some(match name {
            "euler_maruyama" | "em" => SdeMethod::EulerMaruyama,
            "milstein" => SdeMethod::Milstein,
            "sra1" => SdeMethod::Sra1,
            _ => return None,
        })
    }
}

/// How Milstein gets `dg_i/dy_i`.
enum Derivative {
    /// A helper `fn(t, y, inputs...) -> [Scalar; N]`.
    Helper(Path),
    /// Platen's derivative-free difference.
    FiniteDifference,
}

/// The stochastic settings of a problem.
#[derive(Default)]
pub struct Sde {
    diffusion: Option<Path>,
    derivative: Option<Derivative>,
    span: Option<Span>,
    /// Where `derivative = ..` was written, for the error that refuses it.
    derivative_span: Option<Span>,
}

impl Sde {
    /// Takes `m` when it is a stochastic setting (`Ok(true)`).
    pub fn take(&mut self, m: &Meta) -> syn::Result<bool> {
        let key = if m.path().is_ident("diffusion") {
            "diffusion"
        } else if m.path().is_ident("derivative") {
            "derivative"
        } else {
            return Ok(false);
        };
        let Meta::NameValue(nv) = m else {
            return Err(syn::Error::new(
                m.span(),
                format!("write `{key} = <helper>`"),
            ));
        };
        self.span.get_or_insert(m.span());
        if key == "derivative" {
            self.derivative_span = Some(m.span());
        }
        let value: &Expr = &nv.value;
        if key == "diffusion" {
            self.diffusion = Some(path_of(value).ok_or_else(|| {
                syn::Error::new(
                    value.span(),
                    "`diffusion` names a #[helper] `fn(t, y, inputs...) -> [Scalar; N]`: \
                     g_i, the noise on component i (one Wiener channel per component)",
                )
            })?);
        } else {
            self.derivative = Some(match (string_of(value), path_of(value)) {
                (Some(s), _) if s.value() == "finite_difference" => Derivative::FiniteDifference,
                (None, Some(p)) => Derivative::Helper(p),
                _ => {
                    return Err(syn::Error::new(
                        value.span(),
                        "`derivative` names a #[helper] `fn(t, y, inputs...) -> [Scalar; N]` \
                         giving dg_i/dy_i, or is \"finite_difference\" (Platen's \
                         derivative-free Milstein)",
                    ));
                }
            });
        }
        Ok(true)
    }

    /// The settings against the method (`None`: an ODE method) and the events.
    pub fn check(&self, method: Option<SdeMethod>, events: bool) -> syn::Result<()> {
        let span = self.span.unwrap_or_else(Span::call_site);
        match method {
            None if self.diffusion.is_some() || self.derivative.is_some() => Err(syn::Error::new(
                span,
                "`diffusion` and `derivative` belong to a stochastic method: write `method = \
                 \"euler_maruyama\"`, `\"milstein\"` or `\"sra1\"`",
            )),
            None => Ok(()),
            Some(_) if events => Err(syn::Error::new(
                Span::call_site(),
                "events and stops are not available with stochastic methods yet",
            )),
            Some(_) if self.diffusion.is_none() => Err(syn::Error::new(
                Span::call_site(),
                "a stochastic method needs the noise: add `diffusion = <helper>`, a #[helper] \
                 `fn(t, y, inputs...) -> [Scalar; N]` giving g_i for dy_i = f_i dt + g_i dW_i",
            )),
            Some(SdeMethod::Milstein) if self.derivative.is_none() => Err(syn::Error::new(
                Span::call_site(),
                "method \"milstein\" needs dg_i/dy_i: add `derivative = <helper>` (a #[helper] \
                 `fn(t, y, inputs...) -> [Scalar; N]`) or `derivative = \"finite_difference\"` \
                 (Platen's derivative-free scheme)",
            )),
            Some(SdeMethod::EulerMaruyama | SdeMethod::Sra1) if self.derivative.is_some() => {
                Err(syn::Error::new(
                    self.derivative_span.unwrap_or(span),
                    "`derivative` is Milstein's: this method does not use it",
                ))
            }
            Some(_) => Ok(()),
        }
    }

    /// The identity constants of the helpers the method calls.
    pub fn helper_ids(&self) -> Vec<TokenStream> {
        let id = helper::id_path;
        let derivative = match &self.derivative {
            Some(Derivative::Helper(p)) => Some(id(p)),
            _ => None,
        };
        self.diffusion.iter().map(id).chain(derivative).collect()
    }

    /// The helpers a caller struct is needed for: `(struct, local, helper)`.
    pub fn helpers(&self) -> Vec<(Ident, Ident, Path)> {
        let mut out = Vec::new();
        if let Some(g) = &self.diffusion {
            out.push((
                Ident::new("__HawkDiffusion", Span::call_site()),
                Ident::new("__g", Span::call_site()),
                g.clone(),
            ));
        }
        if let Some(Derivative::Helper(d)) = &self.derivative {
            out.push((
                Ident::new("__HawkDerivative", Span::call_site()),
                Ident::new("__dg", Span::call_site()),
                d.clone(),
            ));
        }
        out
    }

    /// The step's statements: the new state `__y1` from `__t0`, `__y0`, `dt`, the stream
    /// `__stream` and `__sqrt_h`, with `__f`, `__g` (and `__dg`) in scope.
    pub fn step(&self, hawk: &Path, method: SdeMethod, n: &Expr) -> TokenStream {
        let m = quote!(#hawk::methods::sde);
        let dw = quote!(let __dw: [Scalar; #n] = #m::wiener(&__stream, 0, __sqrt_h););
        match (method, &self.derivative) {
            (SdeMethod::EulerMaruyama, _) => quote! {
                #dw
                let __y1 = #m::euler_maruyama_step(&__f, &__g, __t0, &__y0, dt, &__dw);
            },
            (SdeMethod::Milstein, Some(Derivative::Helper(_))) => quote! {
                #dw
                let __y1 = #m::milstein_step(&__f, &__g, &__dg, __t0, &__y0, dt, &__dw);
            },
            (SdeMethod::Milstein, _) => quote! {
                #dw
                let __y1 = #m::milstein_free_step(&__f, &__g, __t0, &__y0, dt, &__dw);
            },
            (SdeMethod::Sra1, _) => quote! {
                #dw
                // The second set of draws starts at block N (the first uses at most N).
                let __dz: [Scalar; #n] = #m::wiener(&__stream, (#n) as u32, __sqrt_h);
                let __y1 = #m::sra1_step(&__f, &__g, __t0, &__y0, dt, &__dw, &__dz);
            },
        }
    }
}
