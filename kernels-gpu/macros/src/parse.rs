//! The parse step: `#[kernel(...)]`'s settings and the step function become a
//! [`KernelDef`], the one description the generate step reads. Every authoring mistake in
//! the settings, the signature and (through `checks`) the body is an error here, at the
//! offending code.

use crate::checks;
use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{
    Attribute, Block, Expr, FnArg, Ident, ItemFn, Lit, Meta, Pat, Path, Token, Type, Visibility,
};

/// What an argument of the step function is, from its type.
#[derive(Clone, Copy, PartialEq)]
pub enum Role {
    /// `Scalar`: a read-only per-sample plane.
    In,
    /// `&mut Scalar`: a per-sample plane the kernel advances.
    Mut,
    /// `Param`: one value for all samples.
    Param,
    /// `&mut Terminated`: the done flag.
    Terminated,
    /// `&mut Failed`: the optional failure flag.
    Failed,
    /// `NextSave`: each lane's next save time, supplied by the runtime (`+inf` when none).
    NextSave,
}

impl Role {
    /// A plane (given by the caller), not one of the per-sample flags or runtime values.
    pub fn is_plane(self) -> bool {
        !matches!(self, Role::Terminated | Role::Failed | Role::NextSave)
    }
}

/// One argument of the step function.
pub struct Arg {
    /// Its name (the plane's name).
    pub name: Ident,
    /// Its role.
    pub role: Role,
    /// Its position among the arguments of its role.
    pub index: usize,
    /// `Some(N)` for an array plane or a table (`[Scalar; N]`, `&mut [Scalar; N]`,
    /// `&[Param; N]`): `N` as written, a literal or a constant in scope.
    pub len: Option<Expr>,
}

impl Arg {
    /// How many places the argument takes in its role's array: `1` or its length.
    pub fn width(&self) -> TokenStream {
        match &self.len {
            Some(n) => quote::quote!((#n)),
            None => quote::quote!(1usize),
        }
    }
}

/// The settings of `#[kernel(...)]`.
pub struct Settings {
    /// `None`: `Steps::Auto`; `Some(k)`: `Steps::Fixed(k)`.
    pub steps: Option<u32>,
    /// The element type of every plane (`f64` or `f32`).
    pub real: Ident,
    /// Where `hawk` is for the crate using the macro (`crate = eagle::hawk`); every path the
    /// macro emits starts with it.
    pub krate: Path,
    /// `time = t`: the kernel's time plane (a `&mut Scalar` argument).
    pub time: Option<Ident>,
    /// `positive = [dt, tol]`: params that must be positive (checked before a run).
    pub positive: Vec<Ident>,
    /// `counters = [seed, path, step]`: params and single-value planes that hold whole
    /// numbers for random-number keys (checked before a run).
    pub counters: Vec<Ident>,
    /// `host_loops = "portable"`: the host build compiles the portable loops only.
    pub portable_loops: bool,
    /// `host_code = "where_used"`: no table of host loops in the kernel's crate; each crate
    /// that runs the kernel compiles the loops it uses (`Kernel::host_loops`' default).
    pub loops_where_used: bool,
    /// `contract`: multiply-adds in the body become fused ones (see `contract`).
    pub contract: bool,
}

/// A kernel as its attribute and step function describe it: everything the generate step
/// needs, already checked.
pub struct KernelDef {
    /// The function's own attributes (docs, lints), kept on the generic function.
    pub attrs: Vec<Attribute>,
    /// The function's visibility, given to everything generated.
    pub vis: Visibility,
    /// The function's name, the kernel's name.
    pub name: Ident,
    /// Every argument, in declaration order.
    pub args: Vec<Arg>,
    /// The body as written.
    pub body: Box<Block>,
    /// The attribute's settings.
    pub settings: Settings,
    /// The kernel's identity (see `identity`): stored in the GPU module beside its entries.
    pub identity: u64,
    /// The identity constants of the `#[helper]` functions the kernel calls (a problem's
    /// event functions), folded into its identity where it is emitted.
    pub helper_ids: Vec<TokenStream>,
}

impl KernelDef {
    /// The arguments of `role`, in declaration order.
    pub fn of(&self, role: Role) -> impl Iterator<Item = &Arg> {
        self.args.iter().filter(move |a| a.role == role)
    }

    /// The planes (every argument but the flags), in declaration order.
    pub fn planes(&self) -> impl Iterator<Item = &Arg> {
        self.args.iter().filter(|a| a.role.is_plane())
    }

    /// Whether the kernel takes a `&mut Failed` flag.
    pub fn fails(&self) -> bool {
        self.of(Role::Failed).next().is_some()
    }

    /// Whether the kernel takes a `NextSave` argument.
    pub fn next_save(&self) -> bool {
        self.of(Role::NextSave).next().is_some()
    }
}

/// Parses `#[kernel(attr)]` on `item` and checks the settings, the signature and the body.
pub fn parse(attr: TokenStream, item: TokenStream) -> syn::Result<KernelDef> {
    let settings = parse_settings(attr)?;
    let mut f: ItemFn = syn::parse2(item)?;
    if !f.sig.generics.params.is_empty() {
        return Err(syn::Error::new(
            f.sig.generics.span(),
            "a kernel is not generic itself: #[kernel] makes it generic over the lane type",
        ));
    }
    let args = parse_args(&f)?;
    if let Some(t) = &settings.time
        && !args
            .iter()
            .any(|a| a.role == Role::Mut && a.len.is_none() && a.name == *t)
    {
        return Err(syn::Error::new(
            t.span(),
            format!("`time = {t}` must name one of the kernel's `&mut Scalar` planes"),
        ));
    }
    for p in &settings.positive {
        if !args
            .iter()
            .any(|a| a.role == Role::Param && a.len.is_none() && a.name == *p)
        {
            return Err(syn::Error::new(
                p.span(),
                format!("`positive = [.., {p}, ..]` must name one of the kernel's `Param`s"),
            ));
        }
    }
    for p in &settings.counters {
        if !args.iter().any(|a| {
            matches!(a.role, Role::Param | Role::In | Role::Mut) && a.len.is_none() && a.name == *p
        }) {
            return Err(syn::Error::new(
                p.span(),
                format!(
                    "`counters = [.., {p}, ..]` must name one of the kernel's `Param`, `Scalar` \
                     or `&mut Scalar` arguments"
                ),
            ));
        }
    }
    let names: Vec<Ident> = args.iter().map(|a| a.name.clone()).collect();
    checks::check_body(&f.block, &names)?;
    let identity = crate::identity::of(&f.sig, &f.block, &settings);
    if settings.contract {
        crate::contract::Contract::new(&settings.krate).visit_block_mut(&mut f.block);
    }
    Ok(KernelDef {
        identity,
        helper_ids: Vec::new(),
        attrs: f.attrs,
        vis: f.vis,
        name: f.sig.ident,
        args,
        body: f.block,
        settings,
    })
}

pub fn parse_settings(attr: TokenStream) -> syn::Result<Settings> {
    let mut s = Settings {
        steps: None,
        real: Ident::new("f64", Span::call_site()),
        krate: syn::parse_quote!(::hawk),
        time: None,
        positive: Vec::new(),
        counters: Vec::new(),
        portable_loops: false,
        loops_where_used: false,
        contract: false,
    };
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attr)?;
    for m in metas {
        let nv = match m {
            Meta::NameValue(nv) => nv,
            Meta::Path(p) if p.is_ident("contract") => {
                s.contract = true;
                continue;
            }
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    "expected `steps = \"auto\"`, `steps = <k>`, `real = \"f64\" | \"f32\"`, \
                     `contract` or `crate = <path to hawk>`",
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
        if key == "time" {
            s.time = Some(time_plane(&nv.value)?);
            continue;
        }
        if key == "positive" {
            s.positive = name_list(
                &nv.value,
                "positive",
                "params that must be positive, e.g. `positive = [dt, tol]`",
            )?;
            continue;
        }
        if key == "counters" {
            s.counters = name_list(
                &nv.value,
                "counters",
                "params and planes holding whole numbers for random-number keys, e.g. \
                 `counters = [seed, path, step]`",
            )?;
            continue;
        }
        // A literal passed through `macro_rules!` (`real = $real`) arrives in a group.
        let mut value = &nv.value;
        while let Expr::Group(g) = value {
            value = &g.expr;
        }
        let lit = match value {
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
            ("host_loops", Lit::Str(h)) if h.value() == "every" || h.value() == "portable" => {
                s.portable_loops = h.value() == "portable";
            }
            ("host_code", Lit::Str(h)) if h.value() == "here" || h.value() == "where_used" => {
                s.loops_where_used = h.value() == "where_used";
            }
            ("host_code", l) => {
                return Err(syn::Error::new(
                    l.span(),
                    "`host_code` is \"here\" (the default: the host loops are compiled once, \
                     in this crate) or \"where_used\" (in each crate that runs the kernel)",
                ));
            }
            (_, l) => {
                return Err(syn::Error::new(
                    l.span(),
                    "unknown setting: write `steps = \"auto\"`, `steps = 64`, `real = \"f32\"`, \
                     `host_loops = \"portable\"`, `host_code = \"where_used\"`, `contract` or \
                     `crate = eagle::hawk`",
                ));
            }
        }
    }
    Ok(s)
}

/// The value of `positive = [a, b]` or `counters = [a, b]`: a list of argument names.
fn name_list(v: &Expr, setting: &str, lists: &str) -> syn::Result<Vec<Ident>> {
    let bad = |span| syn::Error::new(span, format!("`{setting}` lists {lists}"));
    let Expr::Array(a) = v else {
        return Err(bad(v.span()));
    };
    a.elems
        .iter()
        .map(|e| match e {
            Expr::Path(p) => p.path.get_ident().cloned().ok_or_else(|| bad(e.span())),
            _ => Err(bad(e.span())),
        })
        .collect()
}

/// The value of `time = ...`: the time plane's name (`time = t` or `time = "t"`).
fn time_plane(v: &Expr) -> syn::Result<Ident> {
    let name = match v {
        Expr::Path(p) => p.path.get_ident().cloned(),
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => s.parse::<Ident>().ok(),
            _ => None,
        },
        _ => None,
    };
    name.ok_or_else(|| {
        syn::Error::new(
            v.span(),
            "`time` names the kernel's time plane, e.g. `time = t`",
        )
    })
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

/// An argument's role from its type, with its length for an array plane or a table.
pub fn role_of(ty: &Type) -> Option<(Role, Option<Expr>)> {
    let path_name = |t: &Type| match t {
        Type::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    };
    // `[Scalar; N]` -> ("Scalar", N).
    let array = |t: &Type| match t {
        Type::Array(a) => Some((path_name(&a.elem)?, a.len.clone())),
        _ => None,
    };
    match ty {
        Type::Reference(r) if r.mutability.is_some() => {
            if let Some((elem, n)) = array(&r.elem) {
                return (elem == "Scalar").then_some((Role::Mut, Some(n)));
            }
            match path_name(&r.elem)?.as_str() {
                "Scalar" => Some((Role::Mut, None)),
                "Terminated" => Some((Role::Terminated, None)),
                "Failed" => Some((Role::Failed, None)),
                _ => None,
            }
        }
        Type::Reference(r) => {
            let (elem, n) = array(&r.elem)?;
            (elem == "Param").then_some((Role::Param, Some(n)))
        }
        Type::Array(_) => {
            let (elem, n) = array(ty)?;
            (elem == "Scalar").then_some((Role::In, Some(n)))
        }
        t => match path_name(t)?.as_str() {
            "Scalar" => Some((Role::In, None)),
            "Param" => Some((Role::Param, None)),
            "NextSave" => Some((Role::NextSave, None)),
            _ => None,
        },
    }
}

/// Refuses a literal length 0 here (a constant's value is checked where it is known, by
/// an assertion the macro generates).
fn check_len(len: &Option<Expr>) -> syn::Result<()> {
    if let Some(Expr::Lit(l)) = len
        && let Lit::Int(i) = &l.lit
        && i.base10_parse::<usize>()? == 0
    {
        return Err(syn::Error::new(
            i.span(),
            "an array plane or table needs at least one value: its length is 0",
        ));
    }
    Ok(())
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
        let Some((role, len)) = role_of(&pt.ty) else {
            return Err(syn::Error::new(
                pt.ty.span(),
                "unsupported kernel argument type: write `Scalar` (per-sample input), \
                 `&mut Scalar` (per-sample state), `[Scalar; N]` and `&mut [Scalar; N]` \
                 (per-sample arrays of N values), `Param` (one value for all samples), \
                 `&[Param; M]` (a table of M values for all samples), `&mut Terminated` \
                 (the done flag), `&mut Failed` (the optional failure flag) or `NextSave` \
                 (the next save time, for adaptive steps)",
            ));
        };
        check_len(&len)?;
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
        let index = args.iter().filter(|a| a.role == role).count();
        args.push(Arg {
            name,
            role,
            index,
            len,
        });
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
    if let Some(second) = args.iter().filter(|a| a.role == Role::NextSave).nth(1) {
        return Err(syn::Error::new(
            second.name.span(),
            "a kernel takes at most one `NextSave` (each lane's next save time)",
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
