//! `#[helper]`: a function a kernel or a problem calls, written with `Scalar` like a
//! kernel, made generic over the lane. Event conditions and actions of a `#[problem]` are
//! helpers.
//!
//! ```text
//! #[helper]
//! fn ground(t: Scalar, y: &[Scalar; 2], e: Scalar) -> Scalar { y[0] }
//! ```
//! becomes `fn ground<Scalar: hawk::Lane<Elem = f64>>(t: Scalar, y: &[Scalar; 2], e:
//! Scalar) -> Scalar` (`Param` arguments are lanes too), `#[inline(always)]`, with the
//! kernel's body checks. Beside it, a hidden constant `__HAWK_ID_GROUND` holds a hash of
//! its text, which a problem that calls it folds into its identity.

use crate::{checks, identity, parse};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{FnArg, Ident, ItemFn, Pat};

/// The name of the identity constant beside helper `name`.
pub fn id_const(name: &Ident) -> Ident {
    format_ident!("__HAWK_ID_{}", name.to_string().to_uppercase())
}

/// The path of the identity constant beside the helper at `path` (`m::ground` ->
/// `m::__HAWK_ID_GROUND`), for a problem to fold into its identity.
pub fn id_path(path: &syn::Path) -> TokenStream {
    let mut p = path.clone();
    let last = p.segments.last_mut().expect("a path has a segment");
    last.ident = id_const(&last.ident);
    quote!(#p)
}

/// Expands `#[helper(attr)]` on `item`.
pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    // The settings `#[kernel]` reads (`crate`, `real`).
    let settings = parse::parse_settings(attr)?;
    let (hawk, real) = (&settings.krate, &settings.real);
    let mut f: ItemFn = syn::parse2(item)?;
    if !f.sig.generics.params.is_empty() {
        return Err(syn::Error::new(
            f.sig.generics.span(),
            "a helper is not generic itself: #[helper] makes it generic over the lane type",
        ));
    }
    let mut names = Vec::new();
    for input in &f.sig.inputs {
        let FnArg::Typed(pt) = input else {
            return Err(syn::Error::new(input.span(), "a helper takes no `self`"));
        };
        let Pat::Ident(pi) = &*pt.pat else {
            return Err(syn::Error::new(pt.pat.span(), "name each argument"));
        };
        names.push(pi.ident.clone());
    }
    checks::check_body(&f.block, &names)?;
    let id = identity::extend(
        identity::extend(0, &quote!(#f).to_string()),
        &settings.real.to_string(),
    );
    let id = if settings.contract {
        identity::extend(id, "contract")
    } else {
        id
    };
    if settings.contract {
        crate::contract::Contract::new(hawk).visit_block_mut(&mut f.block);
    }
    // `Param` is a lane like `Scalar` (in the signature only: the body names `Scalar`).
    for input in f.sig.inputs.iter_mut() {
        if let FnArg::Typed(pt) = input {
            ParamToScalar.visit_type_mut(&mut pt.ty);
        }
    }
    f.sig.generics = syn::parse_quote!(<Scalar: #hawk::Lane<Elem = #real>>);
    f.attrs.push(syn::parse_quote!(#[inline(always)]));
    f.attrs
        .push(syn::parse_quote!(#[allow(clippy::too_many_arguments)]));
    let id_name = id_const(&f.sig.ident);
    let vis = &f.vis;
    Ok(quote! {
        #f
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code)]
        #vis const #id_name: u64 = #id;
    })
}

/// Rewrites the type `Param` to `Scalar`.
struct ParamToScalar;

impl VisitMut for ParamToScalar {
    fn visit_type_path_mut(&mut self, p: &mut syn::TypePath) {
        if p.qself.is_none() && p.path.is_ident("Param") {
            *p = syn::parse_quote!(Scalar);
        }
        syn::visit_mut::visit_type_path_mut(self, p);
    }
}
