//! `#[problem]`: an ODE right-hand side `f(t, y, inputs...) -> dy` and a method become a
//! kernel, with its planes (state, time, step, counters, status) and the save-time landing
//! generated. The expansion writes the kernel a user would write by hand and hands it to
//! `#[kernel]`'s own parse and generate steps, so it gets every check and every team.
//!
//! ```text
//! #[problem(method = "tsit5")]
//! pub fn van_der_pol(t: Scalar, y: &[Scalar; 2], mu: Scalar) -> [Scalar; 2] { .. }
//! ```
//! gives the right-hand side `van_der_pol_rhs` (generic over the lane) and the kernel
//! `van_der_pol` (type `VanDerPol`) with planes `mu` (as written), `t_end`, `rtol`, `atol`
//! (params), `y: &mut [Scalar; 2]`, `t`, `h`, `accepted`, `rejected`; `rk4` takes `dt` and
//! `t_end` and has `y` and `t` only. A stochastic method (`sde.rs`) adds the noise's key
//! and counter: `seed`, `path` and `step`.

use crate::events::Events;
use crate::parse::{self, Role};
use crate::sde::{Sde, SdeMethod};
use crate::{checks, generate, identity};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, FnArg, Ident, ItemFn, Lit, Meta, Pat, ReturnType, Token, Type};

/// A problem's method family: what the kernel's planes are and which hawk step it calls.
#[derive(Clone, Copy, PartialEq)]
enum Family {
    /// A `hawk::methods::FixedMethod` at a fixed `dt` (params `dt`, `t_end`).
    Fixed,
    /// A `hawk::methods::AdaptiveMethod` with a controller (params `t_end`, `rtol`,
    /// `atol`; planes `h`, `accepted`, `rejected`).
    Adaptive,
    /// A fixed-step method for an Itô SDE with diagonal noise (`hawk::methods::sde`).
    Sde(SdeMethod),
}

/// The method a problem names: its family and the value the kernel steps with.
struct Method {
    family: Family,
    /// An expression of the method's value (a path to a const), for the family's trait.
    value: TokenStream,
    /// The right-hand side needs its Jacobian (`hawk::methods::rosenbrock::Jacobian`): a
    /// built-in Rosenbrock method, or any method named by a path (it may be one).
    jacobian: bool,
    /// A built-in Rosenbrock method (its state length is limited, checked here).
    stiff: bool,
}

const METHOD_HELP: &str = "write `method = \"rk4\"` (fixed dt), `\"tsit5\"` (Tsitouras \
    5(4)), `\"vern7\"`, `\"vern9\"` (Verner 7(6), 9(8)), `\"dp87\"` (Dormand-Prince 8(7)) or \
    `\"rk78\"` (Fehlberg 7(8)); for a stiff system `\"rosenbrock23\"` (MATLAB's ode23s pair), \
    `\"rodas4\"` (Hairer and Wanner's order 4) or `\"rodas5p\"` (Steinebach's order 5); the \
    adaptive ones take rtol, atol and t_end; for an SDE `\"euler_maruyama\"`, `\"milstein\"` \
    or `\"sra1\"` with `diffusion = <helper>`. A method is also a value: `method = \
    hawk::methods::TSIT5` or your own `Tableau` const (adaptive), `method = fixed(MY_TABLEAU)` \
    (fixed dt)";

impl Method {
    /// The short names: sugar for the library's values.
    fn named(lit: &syn::LitStr, hawk: &syn::Path) -> syn::Result<Method> {
        let m = quote!(#hawk::methods);
        let r = quote!(#hawk::methods::rosenbrock);
        let (family, value, stiff) = match lit.value().as_str() {
            "rk4" => (Family::Fixed, quote!(#m::RK4), false),
            "tsit5" => (Family::Adaptive, quote!(#m::TSIT5), false),
            "vern7" => (Family::Adaptive, quote!(#m::VERN7), false),
            "vern9" => (Family::Adaptive, quote!(#m::VERN9), false),
            "dp87" => (Family::Adaptive, quote!(#m::DORMAND_PRINCE87), false),
            "rk78" => (Family::Adaptive, quote!(#m::FEHLBERG78), false),
            "rosenbrock23" => (Family::Adaptive, quote!(#r::ROSENBROCK23), true),
            "rodas4" => (Family::Adaptive, quote!(#r::RODAS4), true),
            "rodas5p" => (Family::Adaptive, quote!(#r::RODAS5P), true),
            other => match SdeMethod::named(other) {
                Some(sde) => (Family::Sde(sde), quote!(), false),
                None => {
                    return Err(syn::Error::new(
                        lit.span(),
                        format!("unknown method: {METHOD_HELP}"),
                    ));
                }
            },
        };
        Ok(Method {
            family,
            value,
            jacobian: stiff,
            stiff,
        })
    }

    /// `method = "name"`, `method = path::TO_VALUE` (adaptive) or `method = fixed(VALUE)`.
    fn parse(value: &Expr, hawk: &syn::Path) -> syn::Result<Method> {
        // A value passed through `macro_rules!` (`method = $m`) arrives in a group.
        let mut value = value;
        while let Expr::Group(g) = value {
            value = &g.expr;
        }
        match value {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) => Method::named(s, hawk),
            Expr::Path(p) => Ok(Method {
                family: Family::Adaptive,
                value: quote!(#p),
                jacobian: true,
                stiff: false,
            }),
            Expr::Call(c)
                if matches!(&*c.func, Expr::Path(f) if f.path.is_ident("fixed"))
                    && c.args.len() == 1 =>
            {
                let v = &c.args[0];
                Ok(Method {
                    family: Family::Fixed,
                    value: quote!(#v),
                    jacobian: false,
                    stiff: false,
                })
            }
            other => Err(syn::Error::new(other.span(), METHOD_HELP)),
        }
    }
}

/// Expands `#[problem(attr)]` on `item`.
pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    // `method`, `controller` and `debug` are the problem's; every other setting goes to
    // `#[kernel]` as written.
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attr.clone())?;
    let mut method = None;
    let mut controller = None;
    let mut debug = false;
    let mut passed = Vec::new();
    let mut ev = Events::default();
    let mut sde = Sde::default();
    for m in metas {
        if ev.take(&m)? || sde.take(&m)? {
            continue;
        }
        if m.path().is_ident("method") {
            let Meta::NameValue(nv) = &m else {
                return Err(syn::Error::new(m.span(), METHOD_HELP));
            };
            method = Some(nv.value.clone());
        } else if m.path().is_ident("controller") {
            let Meta::NameValue(nv) = &m else {
                return Err(syn::Error::new(
                    m.span(),
                    "write `controller = <value>`: a `hawk::methods::StepControl` or \
                     `PiControl` const, or any `hawk::methods::Controller`",
                ));
            };
            controller = Some(nv.value.clone());
        } else if m.path().is_ident("debug") {
            if !matches!(m, Meta::Path(_)) {
                return Err(syn::Error::new(m.span(), "write `debug` alone"));
            }
            debug = true;
        } else if m.path().is_ident("time") {
            return Err(syn::Error::new(
                m.span(),
                "a problem's time plane is named by the right-hand side's first argument",
            ));
        } else {
            passed.push(m);
        }
    }
    // The settings `#[kernel]` reads (`crate`, `real`), for the paths and types below.
    let settings_probe = parse::parse(quote!(#(#passed),*), probe_kernel())?.settings;
    let (hawk, real) = (&settings_probe.krate, &settings_probe.real);
    let method = method.ok_or_else(|| {
        syn::Error::new(
            Span::call_site(),
            "a problem needs a method: `#[problem(method = \"tsit5\")]` (or \"rk4\", \"dp87\", \
             \"rk78\", or a method's value)",
        )
    })?;
    let method = Method::parse(&method, hawk)?;
    let f: ItemFn = syn::parse2(item)?;
    let rhs = Rhs::parse(&f)?;
    ev.check()?;
    let sde_method = match method.family {
        Family::Sde(m) => Some(m),
        _ => None,
    };
    sde.check(sde_method, ev.rich())?;
    if let (Some(c), false) = (&controller, method.family == Family::Adaptive) {
        return Err(syn::Error::new(
            c.span(),
            "a controller sets an adaptive method's steps: this problem's method has a fixed \
             step (`dt`)",
        ));
    }

    let name = &f.sig.ident;
    let rhs_name = format_ident!("{}_rhs", name);
    let (y, n, time) = (&rhs.state, &rhs.len, &rhs.time_plane);
    let vis = &f.vis;
    let attrs = &f.attrs;
    // `contract`: the right-hand side's multiply-adds fused, and a fixed method's updates.
    let mut body = f.block.clone();
    let fixed_step = if settings_probe.contract {
        crate::contract::Contract::new(hawk).visit_block_mut(&mut body);
        quote!(step_fused)
    } else {
        quote!(step)
    };

    // The right-hand side, generic over the lane like a kernel's function.
    let rhs_args = rhs.extras.iter().map(|a| {
        let (an, ty) = (&a.name, lane_type(a));
        quote!(#an: #ty)
    });
    let t_arg = &rhs.time_arg;
    let rhs_doc = format!("The right-hand side of problem `{name}`, generic over the lane.");
    let rhs_fn = quote! {
        #[doc = #rhs_doc]
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        #vis fn #rhs_name<Scalar: #hawk::Lane<Elem = #real>>(
            #t_arg: Scalar, #y: &[Scalar; #n], #(#rhs_args),*
        ) -> [Scalar; #n] #body
    };

    // The kernel: the inputs as written, the method's params, the flags, the state.
    let extras_sig = rhs.extras.iter().map(|a| {
        let (an, ty) = (&a.name, &a.ty);
        quote!(#an: #ty)
    });
    let fields = rhs.extras.iter().map(|a| {
        let an = &a.name;
        let ty = match (a.role, &a.len) {
            (Role::In, Some(len)) => quote!([S; #len]),
            (Role::Param, Some(len)) => quote!(&'a [S; #len]),
            _ => quote!(S),
        };
        quote!(#an: #ty)
    });
    let field_names: Vec<&Ident> = rhs.extras.iter().map(|a| &a.name).collect();
    // A function of `(t, y, inputs...)` as a `hawk::methods::Rhs` with this lane group's
    // inputs: the right-hand side `__f`, and an SDE's diffusion `__g` and derivative `__dg`.
    let fields: Vec<TokenStream> = fields.collect();
    let caller = |ty: &Ident, local: &Ident, func: TokenStream| {
        quote! {
            struct #ty<'a, S> {
                #(#fields,)*
                _lanes: ::core::marker::PhantomData<&'a S>,
            }
            impl<'a, S: #hawk::Lane<Elem = #real>> #hawk::methods::Rhs<S, { #n }> for #ty<'a, S> {
                #[inline(always)]
                fn eval(&self, t: S, y: &[S; #n]) -> [S; #n] {
                    #func::<S>(t, y, #(self.#field_names),*)
                }
            }
            let #local = #ty { #(#field_names,)* _lanes: ::core::marker::PhantomData };
        }
    };
    let mut rhs_struct = caller(
        &Ident::new("__HawkRhs", Span::call_site()),
        &Ident::new("__f", Span::call_site()),
        quote!(#rhs_name),
    );
    for (ty, local, func) in sde.helpers() {
        rhs_struct.extend(caller(&ty, &local, quote!(#func)));
    }
    if method.stiff {
        check_stiff_len(n)?;
    }
    if method.jacobian {
        rhs_struct.extend(jacobian_impl(hawk, real, &rhs, &rhs_name));
    }
    let input_names: Vec<Ident> = rhs.extras.iter().map(|a| a.name.clone()).collect();
    let ev_code = ev.rich().then(|| ev.code(hawk, y, n, time, &input_names));
    let (ev_params, ev_flags, ev_planes, pre) = match &ev_code {
        Some(c) => (&c.params, &c.flags, &c.planes, &c.pre),
        None => (
            &TokenStream::new(),
            &TokenStream::new(),
            &TokenStream::new(),
            &TokenStream::new(),
        ),
    };
    let value = &method.value;
    let kernel_item = match method.family {
        Family::Sde(m) => {
            let step = sde.step(hawk, m, n);
            quote! {
                #(#attrs)*
                #vis fn #name(
                    #(#extras_sig,)*
                    dt: Param,
                    t_end: Param,
                    seed: Param,
                    path: Scalar,
                    terminated: &mut Terminated,
                    failed: &mut Failed,
                    #y: &mut [Scalar; #n],
                    #time: &mut Scalar,
                    step: &mut Scalar,
                ) {
                    #rhs_struct
                    let (__t0, __y0) = (*#time, *#y);
                    // This step's draws: keyed by (seed, path), counted by (step, block).
                    let __stream = #hawk::random::Stream::new(seed, path, *step);
                    let __sqrt_h = dt.sqrt();
                    #step
                    *#y = __y1;
                    *#time = __t0 + dt;
                    // A step count at the counter limit has no draws of its own left.
                    *failed = step.simd_ge(#hawk::methods::splat_f64::<Scalar>(
                        #hawk::random::counter_limit::<#real>(),
                    ));
                    *step += #hawk::methods::splat_f64::<Scalar>(1.0);
                    *terminated = #time.simd_ge(t_end - dt * #hawk::methods::splat_f64::<Scalar>(0.5));
                }
            }
        }
        Family::Fixed => {
            let fixed = quote!(#hawk::methods::FixedMethod::#fixed_step);
            // Without events or stops: one step of `dt`; with them, the step lands on the
            // next stop or `t_end` exactly (events move the grid), as an adaptive step
            // lands on a save time, and the events are located inside it.
            let (advance, terminated) = match &ev_code {
                None => (
                    quote! {
                        *#y = #fixed(&#value, &__f, __t0, &__y0, dt);
                        *#time += dt;
                    },
                    quote!(#time.simd_ge(t_end - dt * Scalar::splat(0.5))),
                ),
                Some(c) => {
                    let tail = &c.tail;
                    (
                        quote! {
                            let #hawk::methods::StepLength { step: __h, t_new: __t1, last: __last, .. } =
                                #hawk::methods::step_length(__t0, dt, t_end, __next_stop);
                            let __y1 = #hawk::methods::events::with_step(__last, dt, __h, |__h| {
                                #fixed(&#value, &__f, __t0, &__y0, __h)
                            });
                            let __active = <<Scalar as #hawk::Lane>::Mask as #hawk::Mask>::splat(true);
                            let __step = |__tau: Scalar| #fixed(&#value, &__f, __t0, &__y0, __tau);
                            #tail
                            *failed = __ev_fail;
                        },
                        quote!(#time.simd_ge(t_end) | __ev_stop),
                    )
                }
            };
            quote! {
                #(#attrs)*
                #vis fn #name(
                    #(#extras_sig,)*
                    dt: Param,
                    t_end: Param,
                    #ev_params
                    terminated: &mut Terminated,
                    #ev_flags
                    #y: &mut [Scalar; #n],
                    #time: &mut Scalar,
                    #ev_planes
                ) {
                    #rhs_struct
                    let __t0 = *#time;
                    let __y0 = *#y;
                    #pre
                    #advance
                    *terminated = #terminated;
                }
            }
        }
        Family::Adaptive => {
            // The controller, and its memory plane `err_prev` where one is named.
            let (ctl, memory_plane, step_call, memory_arg) = match &controller {
                Some(c) => (
                    quote!(#c),
                    quote!(err_prev: &mut Scalar,),
                    quote!(#hawk::methods::adaptive_step_with),
                    quote!(, err_prev),
                ),
                None => (
                    quote!(#hawk::methods::StepControl::DEFAULT),
                    quote!(),
                    quote!(#hawk::methods::adaptive_step_to),
                    quote!(),
                ),
            };
            // Steps land on save times, and with events or stops on stop times too.
            let target = match &ev_code {
                None => quote!(next_save),
                Some(_) => quote!(next_save.min(__next_stop)),
            };
            let (conclude, terminated, ev_fail) = match &ev_code {
                None => (
                    quote! {
                        *#y = __s.y;
                        *#time = __s.t;
                    },
                    quote!(__out.terminated),
                    quote!(),
                ),
                Some(c) => {
                    let tail = &c.tail;
                    (
                        quote! {
                            let __h = #hawk::methods::step_length(__t0, *h, t_end, __target).step;
                            let (__t1, __y1, __active) = (__s.t, __s.y, __out.accepted);
                            // The continuous extension: a step of the same method from the
                            // step's start.
                            let __step = |__tau: Scalar| {
                                #hawk::methods::AdaptiveMethod::attempt(
                                    &#value, &__f, __t0, &__y0, __tau, __t0 + __tau,
                                ).y
                            };
                            #tail
                        },
                        quote!(#time.simd_ge(t_end) | __ev_stop),
                        quote!(| __ev_fail),
                    )
                }
            };
            quote! {
                #(#attrs)*
                #vis fn #name(
                    #(#extras_sig,)*
                    t_end: Param,
                    rtol: Param,
                    atol: Param,
                    #ev_params
                    terminated: &mut Terminated,
                    failed: &mut Failed,
                    #y: &mut [Scalar; #n],
                    #time: &mut Scalar,
                    h: &mut Scalar,
                    accepted: &mut Scalar,
                    rejected: &mut Scalar,
                    #memory_plane
                    #ev_planes
                    next_save: NextSave,
                ) {
                    #rhs_struct
                    let __t0 = *#time;
                    let __y0 = *#y;
                    #pre
                    let __target = #target;
                    let mut __s = #hawk::methods::AdaptiveState {
                        t: __t0,
                        y: __y0,
                        h: *h,
                        accepted: *accepted,
                        rejected: *rejected,
                    };
                    let __out = #step_call(
                        &__f,
                        &#value,
                        &mut __s,
                        &#hawk::methods::Settings { rtol, atol, t_end },
                        &#ctl,
                        __target
                        #memory_arg
                    );
                    #conclude
                    *h = __s.h;
                    *accepted = __s.accepted;
                    *rejected = __s.rejected;
                    *terminated = #terminated;
                    *failed = __out.collapsed | __out.singular #ev_fail;
                }
            }
        }
    };
    let mut kernel_attr = passed.clone();
    kernel_attr.push(syn::parse_quote!(time = #time));
    let positive = match method.family {
        Family::Fixed | Family::Sde(_) => quote!(dt),
        Family::Adaptive => quote!(rtol),
    };
    if let Family::Sde(_) = method.family {
        kernel_attr.push(syn::parse_quote!(positive = [dt]));
        kernel_attr.push(syn::parse_quote!(counters = [seed, path, step]));
    } else if ev.any() {
        kernel_attr.push(syn::parse_quote!(positive = [#positive, event_tol]));
    } else if ev.rich() {
        kernel_attr.push(syn::parse_quote!(positive = [#positive]));
    }
    let mut def = parse::parse(quote!(#(#kernel_attr),*), kernel_item)?;
    // The kernel calls the right-hand side: its identity covers it too, and the event
    // helpers' identities are folded in where it is emitted.
    def.identity = identity::extend(def.identity, &rhs_fn.to_string());
    def.helper_ids = ev.helper_ids();
    def.helper_ids.extend(sde.helper_ids());
    let mut out = rhs_fn;
    out.extend(generate::generate(&def));
    if debug {
        crate::debug::print(&format!("#[problem] {name}"), &out);
    }
    Ok(out)
}

/// The Rosenbrock methods' limit on the state's length (`hawk::linalg::MAX_DIM`), checked
/// here where the length is a literal (a named constant is checked when the kernel is
/// compiled).
fn check_stiff_len(n: &Expr) -> syn::Result<()> {
    if let Expr::Lit(syn::ExprLit {
        lit: Lit::Int(i), ..
    }) = n
        && i.base10_parse::<usize>()? > 16
    {
        return Err(syn::Error::new(
            n.span(),
            "a Rosenbrock method solves a linear system of the state's length: at most 16 \
             components (hawk::linalg::MAX_DIM)",
        ));
    }
    Ok(())
}

/// `hawk::methods::rosenbrock::Jacobian` for the problem's `__HawkRhs`: the right-hand side
/// evaluated once on dual numbers (`hawk::dual::linearize`), the inputs as constants.
fn jacobian_impl(hawk: &syn::Path, real: &Ident, rhs: &Rhs, rhs_name: &Ident) -> TokenStream {
    let n = &rhs.len;
    let dual = quote!(#hawk::dual::Dual<S, { #n + 1 }>);
    let mut lifts = Vec::new();
    let mut args = Vec::new();
    for a in &rhs.extras {
        let (an, local) = (&a.name, format_ident!("__lift_{}", a.name));
        lifts.push(match (a.role, &a.len) {
            (Role::Param, Some(_)) => {
                quote!(let #local = (*self.#an).map(#hawk::dual::Dual::constant);)
            }
            (_, Some(_)) => quote!(let #local = self.#an.map(#hawk::dual::Dual::constant);),
            _ => quote!(let #local = #hawk::dual::Dual::constant(self.#an);),
        });
        args.push(match (a.role, &a.len) {
            (Role::Param, Some(_)) => quote!(&#local),
            _ => quote!(#local),
        });
    }
    quote! {
        impl<'a, S: #hawk::Lane<Elem = #real>> #hawk::methods::rosenbrock::Jacobian<S, { #n }>
            for __HawkRhs<'a, S>
        {
            #[inline(always)]
            fn linearize(&self, t: S, y: &[S; #n]) -> #hawk::dual::Linearization<S, { #n }> {
                #(#lifts)*
                #hawk::dual::linearize::<S, { #n }, { #n + 1 }>(
                    |__t, __y| #rhs_name::<#dual>(__t, __y, #(#args),*),
                    t,
                    y,
                )
            }
        }
    }
}

/// The smallest kernel, to read the settings through `#[kernel]`'s own parser.
fn probe_kernel() -> TokenStream {
    quote!(
        fn probe(terminated: &mut Terminated, x: &mut Scalar) {}
    )
}

/// The lane type of a right-hand side's extra argument: `Param` is a lane too.
fn lane_type(a: &Extra) -> TokenStream {
    match (a.role, &a.len) {
        (Role::In, Some(len)) => quote!([Scalar; #len]),
        (Role::Param, Some(len)) => quote!(&[Scalar; #len]),
        _ => quote!(Scalar),
    }
}

/// One extra argument of the right-hand side, as the kernel takes it.
struct Extra {
    name: Ident,
    ty: Type,
    role: Role,
    len: Option<Expr>,
}

/// A right-hand side `fn f(t: Scalar, y: &[Scalar; N], inputs...) -> [Scalar; N]`.
struct Rhs {
    time_arg: Ident,
    /// The time plane's name: the time argument's, leading underscores dropped.
    time_plane: Ident,
    state: Ident,
    len: Expr,
    extras: Vec<Extra>,
}

const SIGNATURE: &str = "a problem's right-hand side is \
    `fn name(t: Scalar, y: &[Scalar; N], inputs...) -> [Scalar; N]`, each input a `Scalar`, \
    `[Scalar; K]`, `Param` or `&[Param; M]`";

impl Rhs {
    fn parse(f: &ItemFn) -> syn::Result<Rhs> {
        let bad = |span: Span| syn::Error::new(span, SIGNATURE);
        if !f.sig.generics.params.is_empty() {
            return Err(bad(f.sig.generics.span()));
        }
        let mut args = Vec::new();
        for input in &f.sig.inputs {
            let FnArg::Typed(pt) = input else {
                return Err(bad(input.span()));
            };
            let Pat::Ident(pi) = &*pt.pat else {
                return Err(bad(pt.pat.span()));
            };
            args.push((pi.ident.clone(), (*pt.ty).clone()));
        }
        let mut it = args.into_iter();
        let (time_arg, t_ty) = it.next().ok_or_else(|| bad(f.sig.span()))?;
        if quote!(#t_ty).to_string() != "Scalar" {
            return Err(bad(t_ty.span()));
        }
        let (state, y_ty) = it.next().ok_or_else(|| bad(f.sig.span()))?;
        let len = match &y_ty {
            Type::Reference(r) if r.mutability.is_none() => match &*r.elem {
                Type::Array(a) if matches!(&*a.elem, Type::Path(p) if p.path.is_ident("Scalar")) => {
                    a.len.clone()
                }
                _ => return Err(bad(y_ty.span())),
            },
            _ => return Err(bad(y_ty.span())),
        };
        match &f.sig.output {
            ReturnType::Type(_, ty) if matches!(&**ty, Type::Array(_)) => {}
            other => return Err(bad(other.span())),
        }
        let mut extras = Vec::new();
        for (name, ty) in it {
            let (role, alen) = parse::role_of(&ty).ok_or_else(|| bad(ty.span()))?;
            if !matches!(role, Role::In | Role::Param) {
                return Err(bad(ty.span()));
            }
            extras.push(Extra {
                name,
                ty,
                role,
                len: alen,
            });
        }
        let mut names: Vec<Ident> = vec![time_arg.clone(), state.clone()];
        names.extend(extras.iter().map(|e| e.name.clone()));
        checks::check_body(&f.block, &names)?;
        let trimmed = time_arg.to_string().trim_start_matches('_').to_owned();
        let time_plane = Ident::new(
            if trimmed.is_empty() { "t" } else { &trimmed },
            time_arg.span(),
        );
        Ok(Rhs {
            time_arg,
            time_plane,
            state,
            len,
            extras,
        })
    }
}
