//! A problem's events (`#[problem(event(..), max_events = M, when_full = ..)]`): the
//! settings, checked, and the code the problem's kernel runs after each step (see
//! `hawk::methods::events`).
//!
//! ```text
//! #[problem(method = "rk4",
//!           event(when = ground, direction = "falling", then = bounce),
//!           max_events = 10, when_full = "stop")]
//! ```
//! `when` names a `#[helper]` condition `fn(t, y, inputs...) -> Scalar`; `direction` is
//! `"rising"`, `"falling"` or `"either"` (the default); `then` is `"terminate"`,
//! `"count"` or a `#[helper]` action `fn(t, y, inputs...) -> [Scalar; N]` giving the new
//! state. The kernel gains the param `event_tol` (the location tolerance in t), the plane
//! `events` (how many fired), and with `max_events = M` the record planes `event_t`,
//! `event_kind` (`M` each) and `event_y` (`M * N`). `when_full = "fail"` (the default)
//! fails a sample whose record is full when another event fires; `"stop"` finishes it at
//! the event that fills the record.
//!
//! `stop(times = S, then = action)` adds the per-sample input plane `stop_t: [Scalar; S]`:
//! each step lands exactly on the next of those times (fixed steps are shortened to it,
//! adaptive ones clipped as for save times), and the optional action runs there.

use crate::helper;
use proc_macro2::TokenStream;
use quote::quote;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Lit, Meta, Path, Token};

/// What an event does.
enum Then {
    Terminate,
    Count,
    Modify(Path),
}

/// One `event(..)`.
struct EventDef {
    when: Path,
    direction: Ident,
    then: Then,
}

/// A problem's events and their record.
#[derive(Default)]
pub struct Events {
    list: Vec<EventDef>,
    max: Option<Expr>,
    stop_when_full: Option<bool>,
    span: Option<proc_macro2::Span>,
    /// `stop(times = S, then = action)`: `S` stop times per sample, an optional action.
    stops: Option<(Expr, Option<Path>)>,
}

/// The code a problem's kernel gets for its events.
pub struct Code {
    /// The params (`event_tol: Param,`).
    pub params: TokenStream,
    /// The flags a fixed-step kernel adds (`failed: &mut Failed,`).
    pub flags: TokenStream,
    /// The planes (`events`, and the record).
    pub planes: TokenStream,
    /// The statements before the step: `__next_stop`, each lane's next stop time (`+inf`
    /// without stops).
    pub pre: TokenStream,
    /// The statements after the step: they set the time and state planes, the count and
    /// record, and `__ev_stop`, `__ev_fail` (the masks of samples to stop and to fail).
    pub tail: TokenStream,
}

const EVENT_SYNTAX: &str = "write `event(when = <condition helper>, direction = \"rising\" | \
    \"falling\" | \"either\", then = <action helper> | \"terminate\" | \"count\")`";

/// The value of a `key = "text"` setting (through `macro_rules!` groups).
pub fn string_of(v: &Expr) -> Option<syn::LitStr> {
    let mut v = v;
    while let Expr::Group(g) = v {
        v = &g.expr;
    }
    match v {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    }
}

pub fn path_of(v: &Expr) -> Option<Path> {
    match v {
        Expr::Path(p) if p.qself.is_none() => Some(p.path.clone()),
        Expr::Group(g) => path_of(&g.expr),
        _ => None,
    }
}

impl Events {
    /// Takes `m` when it is an events setting (`Ok(true)`).
    pub fn take(&mut self, m: &Meta) -> syn::Result<bool> {
        if m.path().is_ident("event") {
            let Meta::List(list) = m else {
                return Err(syn::Error::new(m.span(), EVENT_SYNTAX));
            };
            let items = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)?;
            let (mut when, mut direction, mut then) = (None, None, None);
            for item in items {
                let Meta::NameValue(nv) = &item else {
                    return Err(syn::Error::new(item.span(), EVENT_SYNTAX));
                };
                let key = nv
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                match key.as_str() {
                    "when" => {
                        when = Some(path_of(&nv.value).ok_or_else(|| {
                            syn::Error::new(
                                nv.value.span(),
                                "`when` names the event's condition, a #[helper] function \
                                 `fn(t, y, inputs...) -> Scalar`",
                            )
                        })?)
                    }
                    "direction" => {
                        let s = string_of(&nv.value)
                            .filter(|s| ["rising", "falling", "either"].contains(&&*s.value()))
                            .ok_or_else(|| {
                                syn::Error::new(
                                    nv.value.span(),
                                    "`direction` is \"rising\", \"falling\" or \"either\"",
                                )
                            })?;
                        let mut d = s.value();
                        d[..1].make_ascii_uppercase();
                        direction = Some(Ident::new(&d, s.span()));
                    }
                    "then" => {
                        then = Some(match (string_of(&nv.value), path_of(&nv.value)) {
                            (Some(s), _) if s.value() == "terminate" => Then::Terminate,
                            (Some(s), _) if s.value() == "count" => Then::Count,
                            (None, Some(p)) => Then::Modify(p),
                            _ => {
                                return Err(syn::Error::new(
                                    nv.value.span(),
                                    "`then` is \"terminate\", \"count\" or a #[helper] action \
                                     `fn(t, y, inputs...) -> [Scalar; N]` giving the new state",
                                ));
                            }
                        })
                    }
                    _ => return Err(syn::Error::new(nv.path.span(), EVENT_SYNTAX)),
                }
            }
            let when = when.ok_or_else(|| {
                syn::Error::new(list.span(), "an event needs `when = <condition helper>`")
            })?;
            let then = then.ok_or_else(|| {
                syn::Error::new(
                    list.span(),
                    "an event needs `then = \"terminate\" | \"count\" | <action helper>`",
                )
            })?;
            self.span.get_or_insert(list.span());
            self.list.push(EventDef {
                when,
                direction: direction.unwrap_or_else(|| Ident::new("Either", list.span())),
                then,
            });
            return Ok(true);
        }
        if m.path().is_ident("stop") {
            let syntax = "write `stop(times = S, then = <action helper>)`: S stop times per \
                sample (the input plane `stop_t: [Scalar; S]`), an optional action";
            let Meta::List(list) = m else {
                return Err(syn::Error::new(m.span(), syntax));
            };
            let items = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)?;
            let (mut times, mut then) = (None, None);
            for item in items {
                match &item {
                    Meta::NameValue(nv) if nv.path.is_ident("times") => {
                        if let Expr::Lit(l) = &nv.value
                            && let Lit::Int(i) = &l.lit
                            && i.base10_parse::<u64>()? == 0
                        {
                            return Err(syn::Error::new(i.span(), "a stop needs at least 1 time"));
                        }
                        times = Some(nv.value.clone());
                    }
                    Meta::NameValue(nv) if nv.path.is_ident("then") => {
                        then = Some(path_of(&nv.value).ok_or_else(|| {
                            syn::Error::new(
                                nv.value.span(),
                                "`then` names a #[helper] action `fn(t, y, inputs...) -> \
                                 [Scalar; N]` giving the new state",
                            )
                        })?);
                    }
                    _ => return Err(syn::Error::new(item.span(), syntax)),
                }
            }
            let times = times.ok_or_else(|| syn::Error::new(list.span(), syntax))?;
            if self.stops.is_some() {
                return Err(syn::Error::new(
                    list.span(),
                    "a problem takes one `stop(..)`",
                ));
            }
            self.stops = Some((times, then));
            return Ok(true);
        }
        if m.path().is_ident("max_events") {
            let Meta::NameValue(nv) = m else {
                return Err(syn::Error::new(m.span(), "write `max_events = 16`"));
            };
            if let Expr::Lit(l) = &nv.value
                && let Lit::Int(i) = &l.lit
                && i.base10_parse::<u64>()? == 0
            {
                return Err(syn::Error::new(
                    i.span(),
                    "max_events must be at least 1 (leave it out to record no events)",
                ));
            }
            self.max = Some(nv.value.clone());
            return Ok(true);
        }
        if m.path().is_ident("when_full") {
            let Meta::NameValue(nv) = m else {
                return Err(syn::Error::new(m.span(), "write `when_full = \"stop\"`"));
            };
            let s = string_of(&nv.value)
                .filter(|s| s.value() == "stop" || s.value() == "fail")
                .ok_or_else(|| {
                    syn::Error::new(
                        nv.value.span(),
                        "`when_full` is \"fail\" (a sample with more events than \
                         max_events fails) or \"stop\" (it finishes at the event that fills \
                         the record)",
                    )
                })?;
            self.stop_when_full = Some(s.value() == "stop");
            return Ok(true);
        }
        Ok(false)
    }

    /// Whether the problem has events.
    pub fn any(&self) -> bool {
        !self.list.is_empty()
    }

    /// Whether the problem's kernel checks events or lands on stops after each step.
    pub fn rich(&self) -> bool {
        self.any() || self.stops.is_some()
    }

    /// Record settings need events, and `when_full` a record.
    pub fn check(&self) -> syn::Result<()> {
        if !self.any() && (self.max.is_some() || self.stop_when_full.is_some()) {
            return Err(syn::Error::new(
                proc_macro2::Span::call_site(),
                "`max_events` and `when_full` need at least one `event(..)`",
            ));
        }
        if self.max.is_none() && self.stop_when_full.is_some() {
            return Err(syn::Error::new(
                proc_macro2::Span::call_site(),
                "`when_full` needs `max_events = M` (the record it refers to)",
            ));
        }
        Ok(())
    }

    /// The identity constants of the helpers the events call.
    pub fn helper_ids(&self) -> Vec<TokenStream> {
        let id = helper::id_path;
        let stop = self
            .stops
            .as_ref()
            .and_then(|(_, then)| then.as_ref().map(id));
        self.list
            .iter()
            .flat_map(|e| {
                let then = match &e.then {
                    Then::Modify(p) => Some(id(p)),
                    _ => None,
                };
                [Some(id(&e.when)), then].into_iter().flatten()
            })
            .chain(stop)
            .collect()
    }

    /// The kernel's code for the events and stops of a problem with state
    /// `y: [Scalar; n]`, time plane `time` and right-hand side inputs `inputs` (in order).
    pub fn code(&self, hawk: &Path, y: &Ident, n: &Expr, time: &Ident, inputs: &[Ident]) -> Code {
        let ev = quote!(#hawk::methods::events);
        let none = quote!(<<Scalar as #hawk::Lane>::Mask as #hawk::Mask>::splat(false));
        let (stop_plane, pre, land) = match &self.stops {
            Some((times, then)) => {
                let act = then.as_ref().map(|p| {
                    quote! {
                        #ev::modify(__at_stop & !__ev_stop, #y, |__y| {
                            #p(__ev.t, __y, #(#inputs),*)
                        });
                    }
                });
                (
                    quote!(stop_t: [Scalar; #times],),
                    quote!(let __next_stop = #ev::next_stop(&stop_t, *#time);),
                    quote! {
                        // Landed on a stop time (not cut short by an event).
                        let __at_stop = __active & __t1.simd_eq(__next_stop) & __ev.t.simd_eq(__t1);
                        #act
                    },
                )
            }
            None => (
                quote!(),
                quote!(let __next_stop = #hawk::methods::splat_f64::<Scalar>(f64::INFINITY);),
                quote!(),
            ),
        };
        let k = self.list.len();
        let specs = self.list.iter().map(|e| {
            let d = &e.direction;
            let a = match e.then {
                Then::Terminate => quote!(Terminate),
                Then::Count => quote!(Count),
                Then::Modify(_) => quote!(Modify),
            };
            quote!(#ev::Event { direction: #ev::Direction::#d, action: #ev::Action::#a })
        });
        let conditions = self.list.iter().map(|e| {
            let w = &e.when;
            quote!(#w(__t, __y, #(#inputs),*))
        });
        let (planes, record) = match (&self.max, self.any()) {
            (_, false) => (
                quote!(),
                quote! {
                    let __ev_full = #none;
                    let __ev_stop = #none;
                },
            ),
            (Some(m), true) => (
                quote! {
                    events: &mut Scalar,
                    event_t: &mut [Scalar; #m],
                    event_kind: &mut [Scalar; #m],
                    event_y: &mut [Scalar; (#m) * (#n)],
                },
                {
                    let stop = if self.stop_when_full == Some(true) {
                        quote! {
                            let __ev_stop = __ev.fired
                                & events.simd_ge(#hawk::methods::splat_f64::<Scalar>((#m) as f64));
                        }
                    } else {
                        quote!(let __ev_stop = #none;)
                    };
                    quote! {
                        let __ev_full = #ev::record(
                            __ev.fired, __ev.t, __ev.which, &__ev.y,
                            events, event_t, event_kind, event_y,
                        );
                        #stop
                    }
                },
            ),
            (None, true) => (
                quote!(events: &mut Scalar,),
                quote! {
                    #ev::count(__ev.fired, events);
                    let __ev_full = #none;
                    let __ev_stop = #none;
                },
            ),
        };
        let actions = self.list.iter().enumerate().map(|(i, e)| match &e.then {
            Then::Terminate => quote!(let __ev_stop = __ev_stop | __ev.fired_event(#i);),
            Then::Count => quote!(),
            Then::Modify(p) => quote! {
                #ev::modify(__ev.fired_event(#i) & !__ev_stop, #y, |__y| {
                    #p(__ev.t, __y, #(#inputs),*)
                });
            },
        });
        let tol = if self.any() {
            quote!(event_tol)
        } else {
            quote!(#hawk::methods::splat_f64::<Scalar>(1.0))
        };
        let tail = quote! {
            const __EVENTS: [#ev::Event; #k] = [#(#specs),*];
            let __ev = #ev::check_step(
                &__EVENTS,
                |__t: Scalar, __y: &[Scalar; #n]| -> [Scalar; #k] { [#(#conditions),*] },
                __step,
                __t0,
                &__y0,
                __h,
                __t1,
                &__y1,
                __active,
                #tol,
                #ev::MAX_ITERATIONS,
            );
            *#time = __ev.t;
            *#y = __ev.y;
            #record
            #(#actions)*
            #land
            let __ev_fail = __ev.nan | (__ev_full & !__ev_stop);
        };
        Code {
            params: if self.any() {
                quote!(event_tol: Param,)
            } else {
                quote!()
            },
            flags: quote!(failed: &mut Failed,),
            planes: quote!(#stop_plane #planes),
            pre,
            tail,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{helper, problem};
    use quote::quote;

    /// A problem's identity folds in its event helpers' identity constants, and a helper's
    /// constant changes with its body.
    #[test]
    fn identity_covers_the_event_helpers() {
        let out = problem::expand(
            quote!(method = "rk4", event(when = my::ground, then = bounce)),
            quote!(
                pub fn ball(_t: Scalar, y: &[Scalar; 2]) -> [Scalar; 2] {
                    [y[1], -y[0]]
                }
            ),
        )
        .unwrap()
        .to_string();
        assert!(out.contains("my :: __HAWK_ID_GROUND"), "{out}");
        assert!(out.contains("__HAWK_ID_BOUNCE"), "{out}");
        let id = |body: proc_macro2::TokenStream| {
            let out = helper::expand(
                quote!(),
                quote!(fn ground(_t: Scalar, y: &[Scalar; 2]) -> Scalar { #body }),
            )
            .unwrap()
            .to_string();
            out.split("__HAWK_ID_GROUND : u64 =")
                .nth(1)
                .unwrap()
                .split(';')
                .next()
                .unwrap()
                .trim()
                .to_owned()
        };
        assert_eq!(id(quote!(y[0])), id(quote!(y[0])));
        assert_ne!(id(quote!(y[0])), id(quote!(y[1])));
    }
}
