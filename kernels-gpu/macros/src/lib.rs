//! `#[kernel]`: turns one step function into a hawk kernel.
//!
//! From
//! `#[kernel(steps = "auto")] pub fn oscillator(omega: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) { .. }`
//! it generates:
//! - the function itself, generic over the lane type (the parameter is named `Scalar`),
//! - a kernel type `Oscillator` implementing `hawk::Kernel` (name, planes, steps, one step),
//! - a typed planes struct `OscillatorPlanes<'a>` (a missing plane is a compile error),
//! - the GPU entry point `hawk_oscillator` behind `cfg(target_arch = "nvptx64")`.
//!
//! Authoring mistakes are compile errors at the offending code: wrong argument types, planes
//! sharing a name, a missing `&mut Terminated`, and in the body (see `checks`) per-sample
//! `if`/`while`/`match`/`&&`/`||` and anything that needs `std` or an allocator.

mod checks;

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, FnArg, Ident, ItemFn, Lit, Meta, Pat, Path, Token, Type};

#[derive(Clone, Copy, PartialEq)]
enum Role {
    In,
    Mut,
    Param,
    Terminated,
    Failed,
}

impl Role {
    /// A plane (given by the caller), not one of the per-sample flags.
    fn is_plane(self) -> bool {
        !matches!(self, Role::Terminated | Role::Failed)
    }
}

struct Arg {
    name: Ident,
    role: Role,
}

struct Settings {
    /// `None`: `Steps::Auto`; `Some(k)`: `Steps::Fixed(k)`.
    steps: Option<u32>,
    real: Ident,
    /// Where `hawk` is for the crate using the macro (`crate = eagle::hawk`); every path the
    /// macro emits starts with it.
    krate: Path,
}

/// Marks a step function as a hawk kernel. See the crate docs of `hawk` for the roles.
///
/// Settings: `steps = "auto"` (default) or `steps = 64` (a fixed k per launch),
/// `real = "f64"` (default) or `real = "f32"` for the element type of every plane, and
/// `crate = eagle::hawk` (default `::hawk`) for where the generated code finds `hawk`, in a
/// crate that depends on `eagle` only: `#[eagle#hawk::kernel(crate = eagle::hawk)]`.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand(attr.into(), item.into()) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn parse_settings(attr: TokenStream2) -> syn::Result<Settings> {
    let mut s = Settings {
        steps: None,
        real: Ident::new("f64", Span::call_site()),
        krate: syn::parse_quote!(::hawk),
    };
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attr)?;
    for m in metas {
        let nv = match m {
            Meta::NameValue(nv) => nv,
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    "expected `steps = \"auto\"`, `steps = <k>`, `real = \"f64\" | \"f32\"` \
                     or `crate = <path to hawk>`",
                ));
            }
        };
        let key = nv
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        if key == "crate" {
            s.krate = crate_path(&nv.value)?;
            continue;
        }
        let lit = match &nv.value {
            Expr::Lit(l) => l.lit.clone(),
            v => return Err(syn::Error::new(v.span(), "expected a literal")),
        };
        match (key.as_str(), lit) {
            ("steps", Lit::Str(s2)) if s2.value() == "auto" => {}
            ("steps", Lit::Int(i)) => {
                let k: u32 = i.base10_parse()?;
                if k == 0 {
                    return Err(syn::Error::new(i.span(), "steps must be at least 1"));
                }
                s.steps = Some(k);
            }
            ("real", Lit::Str(r)) if r.value() == "f64" || r.value() == "f32" => {
                s.real = Ident::new(&r.value(), r.span());
            }
            (_, l) => {
                return Err(syn::Error::new(
                    l.span(),
                    "unknown setting: write `steps = \"auto\"`, `steps = 64`, `real = \"f32\"` \
                     or `crate = eagle::hawk`",
                ));
            }
        }
    }
    Ok(s)
}

/// The value of `crate = ...`: a path (`eagle::hawk`), or one in a string (`"eagle::hawk"`,
/// as serde's `crate` takes it).
fn crate_path(v: &Expr) -> syn::Result<Path> {
    let bad = |span| {
        syn::Error::new(
            span,
            "`crate` takes the path to hawk as this crate sees it, e.g. `crate = eagle::hawk`",
        )
    };
    match v {
        Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => Ok(p.path.clone()),
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => s.parse::<Path>().map_err(|_| bad(s.span())),
            other => Err(bad(other.span())),
        },
        other => Err(bad(other.span())),
    }
}

fn role_of(ty: &Type) -> Option<Role> {
    let path_name = |t: &Type| match t {
        Type::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    };
    match ty {
        Type::Reference(r) if r.mutability.is_some() => match path_name(&r.elem)?.as_str() {
            "Scalar" => Some(Role::Mut),
            "Terminated" => Some(Role::Terminated),
            "Failed" => Some(Role::Failed),
            _ => None,
        },
        t => match path_name(t)?.as_str() {
            "Scalar" => Some(Role::In),
            "Param" => Some(Role::Param),
            _ => None,
        },
    }
}

fn parse_args(f: &ItemFn) -> syn::Result<Vec<Arg>> {
    let mut args: Vec<Arg> = Vec::new();
    for input in &f.sig.inputs {
        let FnArg::Typed(pt) = input else {
            return Err(syn::Error::new(input.span(), "a kernel takes no `self`"));
        };
        let Pat::Ident(pi) = &*pt.pat else {
            return Err(syn::Error::new(
                pt.pat.span(),
                "kernel arguments must be plain names (they name the planes)",
            ));
        };
        let Some(role) = role_of(&pt.ty) else {
            return Err(syn::Error::new(
                pt.ty.span(),
                "unsupported kernel argument type: write `Scalar` (per-sample input), \
                 `&mut Scalar` (per-sample state), `Param` (one value for all samples), \
                 `&mut Terminated` (the done flag) or `&mut Failed` (the optional failure flag)",
            ));
        };
        let name = pi.ident.clone();
        if args.iter().any(|a| a.name == name) {
            return Err(syn::Error::new(
                name.span(),
                format!(
                    "two planes named `{name}`: each argument names one plane, \
                     so give every argument its own name"
                ),
            ));
        }
        args.push(Arg { name, role });
    }
    match args.iter().filter(|a| a.role == Role::Terminated).count() {
        1 => {}
        0 => {
            return Err(syn::Error::new(
                f.sig.paren_token.span.join(),
                "a kernel needs one `terminated: &mut Terminated` argument: set it when the \
                 sample is done (e.g. `*terminated = t.simd_ge(t_end);`)",
            ));
        }
        _ => {
            let second = args.iter().filter(|a| a.role == Role::Terminated).nth(1);
            return Err(syn::Error::new(
                second.map_or(f.sig.paren_token.span.join(), |a| a.name.span()),
                "a kernel takes exactly one `&mut Terminated` (one done flag per sample): \
                 combine conditions into it with masks (`*terminated = a | b;`)",
            ));
        }
    }
    if let Some(second) = args.iter().filter(|a| a.role == Role::Failed).nth(1) {
        return Err(syn::Error::new(
            second.name.span(),
            "a kernel takes at most one `&mut Failed` (one failure flag per sample): \
             combine conditions into it with masks (`*failed = a | b;`)",
        ));
    }
    if !args.iter().any(|a| a.role == Role::Mut) {
        return Err(syn::Error::new(
            f.sig.paren_token.span.join(),
            "a kernel needs at least one `&mut Scalar` state plane (e.g. `x: &mut Scalar`): \
             it is what the kernel advances",
        ));
    }
    Ok(args)
}

fn camel(name: &str) -> String {
    name.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn expand(attr: TokenStream2, item: TokenStream2) -> syn::Result<TokenStream2> {
    let settings = parse_settings(attr)?;
    let f: ItemFn = syn::parse2(item)?;
    if !f.sig.generics.params.is_empty() {
        return Err(syn::Error::new(
            f.sig.generics.span(),
            "a kernel is not generic itself: #[kernel] makes it generic over the lane type",
        ));
    }
    let args = parse_args(&f)?;
    let names: Vec<Ident> = args.iter().map(|a| a.name.clone()).collect();
    checks::check_body(&f.block, &names)?;
    let real = &settings.real;
    let hawk = &settings.krate;
    let steps = match settings.steps {
        None => quote!(#hawk::Steps::Auto),
        Some(k) => quote!(#hawk::Steps::Fixed(#k)),
    };
    let vis = &f.vis;
    let fname = &f.sig.ident;
    let fname_s = fname.to_string();
    let kty = format_ident!("{}", camel(&fname_s));
    let pty = format_ident!("{}Planes", kty);
    let entry = format!("hawk_{fname_s}");
    let entry_id = format_ident!("{}", entry);
    let attrs = &f.attrs;
    let body = &f.block;

    let of = |r: Role| args.iter().filter(move |a| a.role == r);
    let (n_in, n_par, n_mut) = (
        of(Role::In).count(),
        of(Role::Param).count(),
        of(Role::Mut).count(),
    );

    // The generic body: `Param` becomes the lane, `Terminated` its mask.
    let sig_args = args.iter().map(|a| {
        let n = &a.name;
        match a.role {
            Role::In | Role::Param => quote!(#n: Scalar),
            Role::Mut => quote!(#n: &mut Scalar),
            Role::Terminated | Role::Failed => quote!(#n: &mut <Scalar as #hawk::Lane>::Mask),
        }
    });

    // Kernel::step: map arrays back to the declared argument order.
    let mut_binds: Vec<Ident> = (0..n_mut).map(|j| format_ident!("__m{}", j)).collect();
    let (mut ii, mut pi, mut mi) = (0usize, 0usize, 0usize);
    let call_args: Vec<TokenStream2> = args
        .iter()
        .map(|a| match a.role {
            Role::In => {
                ii += 1;
                let j = ii - 1;
                quote!(ins[#j])
            }
            Role::Param => {
                pi += 1;
                let j = pi - 1;
                quote!(params[#j])
            }
            Role::Mut => {
                mi += 1;
                let b = &mut_binds[mi - 1];
                quote!(#b)
            }
            Role::Terminated => quote!(terminated),
            Role::Failed => quote!(&mut __failed),
        })
        .collect();

    let fails = args.iter().any(|a| a.role == Role::Failed);
    let step_fns = if fails {
        quote! {
            const FAILS: bool = true;
            #[inline(always)]
            fn step<L: #hawk::Lane<Elem = #real>>(
                ins: &[L; #n_in],
                params: &[L; #n_par],
                muts: &mut [L; #n_mut],
                terminated: &mut L::Mask,
            ) {
                let mut failed = <L::Mask as #hawk::Mask>::splat(false);
                Self::step_or_fail(ins, params, muts, terminated, &mut failed)
            }
            #[inline(always)]
            #[allow(unused_variables)]
            fn step_or_fail<L: #hawk::Lane<Elem = #real>>(
                ins: &[L; #n_in],
                params: &[L; #n_par],
                muts: &mut [L; #n_mut],
                terminated: &mut L::Mask,
                failed: &mut L::Mask,
            ) {
                let [#(#mut_binds),*] = muts;
                let mut __failed = <L::Mask as #hawk::Mask>::splat(false);
                #fname::<L>(#(#call_args),*);
                *failed |= __failed;
            }
        }
    } else {
        quote! {
            #[inline(always)]
            #[allow(unused_variables)]
            fn step<L: #hawk::Lane<Elem = #real>>(
                ins: &[L; #n_in],
                params: &[L; #n_par],
                muts: &mut [L; #n_mut],
                terminated: &mut L::Mask,
            ) {
                let [#(#mut_binds),*] = muts;
                #fname::<L>(#(#call_args),*)
            }
        }
    };

    let specs = args.iter().filter(|a| a.role.is_plane()).map(|a| {
        let n = a.name.to_string();
        let r = match a.role {
            Role::In => quote!(#hawk::Role::In),
            Role::Mut => quote!(#hawk::Role::Mut),
            _ => quote!(#hawk::Role::Param),
        };
        quote!(#hawk::PlaneSpec { name: #n, role: #r })
    });

    let fields = args.iter().filter(|a| a.role.is_plane()).map(|a| {
        let n = &a.name;
        let doc = format!("Plane `{n}`.");
        match a.role {
            Role::In => quote!(#[doc = #doc] pub #n: &'a [#real]),
            Role::Mut => quote!(#[doc = #doc] pub #n: &'a mut [#real]),
            _ => quote!(#[doc = #doc] pub #n: #real),
        }
    });
    let visits = args.iter().filter(|a| a.role.is_plane()).map(|a| {
        let n = &a.name;
        let s = n.to_string();
        match a.role {
            Role::In => quote!(v.input(#s, self.#n);),
            Role::Mut => quote!(v.mutable(#s, self.#n);),
            _ => quote!(v.param(#s, self.#n);),
        }
    });

    // GPU entries: one description each (`hawk::device_entry!`): the launch side builds it
    // from a `StepLaunch` by role and index, the entry takes its fields, the body reads them.
    let plane_field = |a: &Arg| format_ident!("plane_{}", a.name);
    let plane_fields: Vec<TokenStream2> = args
        .iter()
        .filter(|a| a.role.is_plane())
        .map(|a| {
            let f = plane_field(a);
            match a.role {
                Role::In => quote!(#f: *const #real),
                Role::Mut => quote!(#f: *mut #real),
                _ => quote!(#f: #real),
            }
        })
        .collect();
    let (mut ii, mut pi, mut mi) = (0usize, 0usize, 0usize);
    let plane_inits: Vec<TokenStream2> = args
        .iter()
        .filter(|a| a.role.is_plane())
        .map(|a| {
            let f = plane_field(a);
            match a.role {
                Role::In => {
                    ii += 1;
                    let j = ii - 1;
                    quote!(#f: #hawk::device::address(l.ins[#j]))
                }
                Role::Mut => {
                    mi += 1;
                    let j = mi - 1;
                    quote!(#f: #hawk::device::address(l.muts[#j]))
                }
                _ => {
                    pi += 1;
                    let j = pi - 1;
                    quote!(#f: l.params[#j])
                }
            }
        })
        .collect();
    let ins_f: Vec<Ident> = of(Role::In).map(plane_field).collect();
    let par_f: Vec<Ident> = of(Role::Param).map(plane_field).collect();
    let mut_f: Vec<Ident> = of(Role::Mut).map(plane_field).collect();
    let step_ty = format_ident!("__Hawk{}Step", kty);
    let step_idx_ty = format_ident!("__Hawk{}StepIndexed", kty);
    let entry_idx_id = format_ident!("{}_indexed", entry);
    let step_doc = format!(
        "GPU entry of kernel `{fname_s}`: advances samples `0..n` by up to `k` steps, one \
         per thread, and counts the samples still active into `active`."
    );
    let step_idx_doc = format!(
        "GPU entry of kernel `{fname_s}` over an index list: thread `i < n` advances sample \
         `ids[i]` by up to `k` steps and counts it into `active` if still running."
    );
    let kdoc = format!("The hawk kernel `{fname_s}` (element type `{real}`): pass it to `deploy`.");
    let pdoc = format!("The planes of kernel `{fname_s}`, one field per argument.");

    Ok(quote! {
        #(#attrs)*
        #[allow(clippy::too_many_arguments)]
        #[inline(always)]
        #vis fn #fname<Scalar: #hawk::Lane<Elem = #real>>(#(#sig_args),*) #body

        #[doc = #kdoc]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        #vis struct #kty;

        #[doc = #pdoc]
        #vis struct #pty<'a> {
            #(#fields,)*
        }

        impl<'a> #hawk::PlaneSource<'a, #real> for #pty<'a> {
            fn visit(self, v: &mut impl #hawk::PlaneVisitor<'a, #real>) {
                #(#visits)*
            }
        }

        impl #hawk::Kernel for #kty {
            type Real = #real;
            type Ins<L: #hawk::Lane<Elem = #real>> = [L; #n_in];
            type Params<L: #hawk::Lane<Elem = #real>> = [L; #n_par];
            type Muts<L: #hawk::Lane<Elem = #real>> = [L; #n_mut];
            type Planes<'a> = #pty<'a>;
            const NAME: &'static str = #fname_s;
            const PLANES: &'static [#hawk::PlaneSpec] = &[#(#specs),*];
            const STEPS: #hawk::Steps = #steps;
            const ENTRY: &'static str = #entry;
            type Step = #step_ty;
            type StepIndexed = #step_idx_ty;
            #step_fns
        }

        #hawk::device_entry! {
            #[doc = #step_doc]
            #[doc(hidden)]
            #vis #step_ty => #entry_id {
                n: u32, k: u32, #(#plane_fields,)* terminated: *mut u8, active: *mut u32,
            }
            |a, i| {
                #hawk::device::step_thread::<#kty>(
                    i, a.n, a.k, &[#(a.#ins_f),*], &[#(a.#par_f),*], &[#(a.#mut_f),*],
                    a.terminated, a.active,
                )
            }
        }

        impl #hawk::device::StepEntry<#real> for #step_ty {
            #[inline]
            fn new(l: &#hawk::device::StepLaunch<'_, #real>) -> Self {
                Self {
                    n: l.slots, k: l.k, #(#plane_inits,)*
                    terminated: #hawk::device::address(l.terminated),
                    active: #hawk::device::address(l.active),
                }
            }
        }

        #hawk::device_entry! {
            #[doc = #step_idx_doc]
            #[doc(hidden)]
            #vis #step_idx_ty => #entry_idx_id {
                n: u32, k: u32, ids: *const u32, #(#plane_fields,)* terminated: *mut u8,
                active: *mut u32,
            }
            |a, i| {
                #hawk::device::step_indexed_thread::<#kty>(
                    i, a.n, a.k, a.ids, &[#(a.#ins_f),*], &[#(a.#par_f),*], &[#(a.#mut_f),*],
                    a.terminated, a.active,
                )
            }
        }

        impl #hawk::device::StepEntry<#real> for #step_idx_ty {
            #[inline]
            fn new(l: &#hawk::device::StepLaunch<'_, #real>) -> Self {
                Self {
                    n: l.slots, k: l.k, ids: #hawk::device::address(l.ids), #(#plane_inits,)*
                    terminated: #hawk::device::address(l.terminated),
                    active: #hawk::device::address(l.active),
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::expand;
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
