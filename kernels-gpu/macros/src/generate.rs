//! The generate step: a [`KernelDef`] becomes the generic function, the kernel type and its
//! `Kernel` impl, the typed planes struct, and the two GPU entries (`hawk_<name>`,
//! `hawk_<name>_indexed`, each one `device_entry!` and its `StepEntry` impl). Every path
//! it emits starts with the `crate` setting.

use crate::parse::{Arg, KernelDef, Role};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

/// Everything `#[kernel]` generates for `k`.
pub fn generate(k: &KernelDef) -> TokenStream {
    let names = Names::of(k);
    let mut out = generic_fn(k);
    out.extend(types(k, &names));
    out.extend(kernel_impl(k, &names));
    out.extend(step_entry(k, &names, false));
    out.extend(step_entry(k, &names, true));
    out
}

/// The names of what is generated for kernel `oscillator`.
struct Names {
    /// The kernel type: `Oscillator`.
    kernel: Ident,
    /// The planes struct: `OscillatorPlanes`.
    planes: Ident,
    /// The plain entry's symbol: `hawk_oscillator` (the indexed one adds `_indexed`).
    entry: String,
    /// The plain entry's argument struct: `__HawkOscillatorStep`.
    step: Ident,
    /// The indexed entry's argument struct: `__HawkOscillatorStepIndexed`.
    step_indexed: Ident,
}

impl Names {
    /// The names for kernel `k`.
    fn of(k: &KernelDef) -> Self {
        let kernel = format_ident!("{}", camel(&k.name.to_string()));
        Names {
            planes: format_ident!("{}Planes", kernel),
            entry: format!("hawk_{}", k.name),
            step: format_ident!("__Hawk{}Step", kernel),
            step_indexed: format_ident!("__Hawk{}StepIndexed", kernel),
            kernel,
        }
    }
}

/// `snake_case` -> `CamelCase`.
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

/// The step function itself, generic over the lane: `Param` becomes the lane, `Terminated`
/// and `Failed` its mask.
fn generic_fn(k: &KernelDef) -> TokenStream {
    let (hawk, real) = (&k.settings.krate, &k.settings.real);
    let sig_args = k.args.iter().map(|a| {
        let n = &a.name;
        match (a.role, &a.len) {
            (Role::In, Some(len)) => quote!(#n: [Scalar; #len]),
            (Role::Mut, Some(len)) => quote!(#n: &mut [Scalar; #len]),
            (Role::Param, Some(len)) => quote!(#n: &[Scalar; #len]),
            (Role::In | Role::Param | Role::NextSave, _) => quote!(#n: Scalar),
            (Role::Mut, _) => quote!(#n: &mut Scalar),
            (Role::Terminated | Role::Failed, _) => {
                quote!(#n: &mut <Scalar as #hawk::Lane>::Mask)
            }
        }
    });
    let (attrs, vis, fname, body) = (&k.attrs, &k.vis, &k.name, &k.body);
    quote! {
        #(#attrs)*
        #[allow(clippy::too_many_arguments)]
        #[inline(always)]
        #vis fn #fname<Scalar: #hawk::Lane<Elem = #real>>(#(#sig_args),*) #body
    }
}

/// The kernel type, the planes struct (one field per plane) and its `PlaneSource` impl.
fn types(k: &KernelDef, names: &Names) -> TokenStream {
    let (hawk, real, vis) = (&k.settings.krate, &k.settings.real, &k.vis);
    let (kty, pty) = (&names.kernel, &names.planes);
    let fields = k.planes().map(|a| {
        let n = &a.name;
        let doc = match (a.role, &a.len) {
            (Role::Param, Some(_)) => format!("Table `{n}` (its values, shared by all samples)."),
            (_, Some(_)) => format!("Array plane `{n}`: one slice per component."),
            _ => format!("Plane `{n}`."),
        };
        match (a.role, &a.len) {
            (Role::In, Some(len)) => quote!(#[doc = #doc] pub #n: [&'a [#real]; #len]),
            (Role::Mut, Some(len)) => quote!(#[doc = #doc] pub #n: [&'a mut [#real]; #len]),
            (Role::Param, Some(_)) => quote!(#[doc = #doc] pub #n: &'a [#real]),
            (Role::In, None) => quote!(#[doc = #doc] pub #n: &'a [#real]),
            (Role::Mut, None) => quote!(#[doc = #doc] pub #n: &'a mut [#real]),
            _ => quote!(#[doc = #doc] pub #n: #real),
        }
    });
    let visits = k.planes().map(|a| {
        let n = &a.name;
        let s = n.to_string();
        match (a.role, &a.len) {
            (Role::In, Some(_)) => quote! {
                for (j, d) in ::core::iter::IntoIterator::into_iter(self.#n).enumerate() {
                    v.input(#s, Some(j), d);
                }
            },
            (Role::Mut, Some(_)) => quote! {
                for (j, d) in ::core::iter::IntoIterator::into_iter(self.#n).enumerate() {
                    v.mutable(#s, Some(j), d);
                }
            },
            (Role::Param, Some(_)) => quote!(v.table(#s, self.#n);),
            (Role::In, None) => quote!(v.input(#s, None, self.#n);),
            (Role::Mut, None) => quote!(v.mutable(#s, None, self.#n);),
            _ => quote!(v.param(#s, self.#n);),
        }
    });
    let fname_s = k.name.to_string();
    let kdoc = format!("The hawk kernel `{fname_s}` (element type `{real}`): pass it to `deploy`.");
    let pdoc = format!("The planes of kernel `{fname_s}`, one field per argument.");
    quote! {
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
    }
}

/// `impl Kernel`: name, planes, steps, entries, and `step` (with `step_or_fail` when the
/// kernel takes a `&mut Failed`).
fn kernel_impl(k: &KernelDef, names: &Names) -> TokenStream {
    let (hawk, real) = (&k.settings.krate, &k.settings.real);
    let (kty, pty, entry) = (&names.kernel, &names.planes, &names.entry);
    let (step_ty, step_idx_ty) = (&names.step, &names.step_indexed);
    let (n_in, n_par, n_mut) = counts(k);
    let steps = match k.settings.steps {
        None => quote!(#hawk::Steps::Auto),
        Some(k) => quote!(#hawk::Steps::Fixed(#k)),
    };
    let fname_s = k.name.to_string();
    let specs = k.planes().map(|a| {
        let n = a.name.to_string();
        let r = match a.role {
            Role::In => quote!(#hawk::Role::In),
            Role::Mut => quote!(#hawk::Role::Mut),
            _ => quote!(#hawk::Role::Param),
        };
        let len = match &a.len {
            Some(len) => quote!(Some(#len)),
            None => quote!(None),
        };
        quote!(#hawk::PlaneSpec { name: #n, role: #r, len: #len })
    });
    let nonzero = k.planes().filter_map(|a| {
        let len = a.len.as_ref()?;
        let msg = format!(
            "kernel `{fname_s}`: array plane or table `{}` has length 0; it needs at least one value",
            a.name
        );
        Some(quote!(const _: () = ::core::assert!((#len) > 0, #msg);))
    });
    let step_fns = step_fns(k);
    let identity = {
        let base = k.identity;
        let helpers = k
            .helper_ids
            .iter()
            .enumerate()
            .map(|(i, h)| quote!(^ (#h).rotate_left(#i as u32 + 1)));
        quote!((#base #(#helpers)*))
    };
    let positive = k.settings.positive.iter().map(|p| p.to_string());
    let counters = k.settings.counters.iter().map(|p| p.to_string());
    let id_symbol = format_ident!("hawk_id_{}", k.name);
    let time = k.settings.time.as_ref().map(|t| {
        let ts = t.to_string();
        quote!(const TIME: Option<&'static str> = Some(#ts);)
    });
    let host_loops = k
        .settings
        .portable_loops
        .then(|| quote!(const HOST_LOOPS: #hawk::HostLoops = #hawk::HostLoops::Portable;));
    // The host loops' tables as statics of this crate (host builds only): compiled here,
    // once, and linked by every crate that runs the kernel. The portable table holds the
    // same loops as the full one's portable row: it costs nothing more.
    let loop_tables = (!k.settings.loops_where_used).then(|| {
        quote! {
            #[cfg(not(target_arch = "nvptx64"))]
            fn host_loops() -> &'static #hawk::host::LoopTable<#real> {
                static LOOPS: #hawk::host::LoopTable<#real> = #hawk::host::LoopTable::of::<#kty>();
                &LOOPS
            }

            #[cfg(not(target_arch = "nvptx64"))]
            fn portable_host_loops() -> &'static #hawk::host::LoopTable<#real> {
                static LOOPS: #hawk::host::LoopTable<#real> =
                    #hawk::host::LoopTable::portable_of::<#kty>();
                &LOOPS
            }
        }
    });
    quote! {
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
            const IDENTITY: u64 = #identity;
            const POSITIVE: &'static [&'static str] = &[#(#positive),*];
            const COUNTERS: &'static [&'static str] = &[#(#counters),*];
            type Step = #step_ty;
            type StepIndexed = #step_idx_ty;
            #time
            #host_loops
            #step_fns

            #loop_tables
        }

        /// The kernel's identity in the GPU module, where deploy reads it.
        #[cfg(target_arch = "nvptx64")]
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        #[unsafe(no_mangle)]
        pub static #id_symbol: u64 = #identity;

        #(#nonzero)*
    }
}

/// How many values the kernel's `In`, `Param` and `Mut` arrays hold (an array plane or a
/// table counts its length), as constant expressions.
fn counts(k: &KernelDef) -> (TokenStream, TokenStream, TokenStream) {
    let total = |role| {
        let w = k.of(role).map(Arg::width);
        quote!((0usize #(+ #w)*))
    };
    (total(Role::In), total(Role::Param), total(Role::Mut))
}

/// Where argument `a` starts in its role's array: the widths of the arguments of its role
/// declared before it.
fn offset(k: &KernelDef, a: &Arg) -> TokenStream {
    let w = k.of(a.role).take(a.index).map(Arg::width);
    quote!((0usize #(+ #w)*))
}

/// `Kernel::step` (and `step_or_fail`): calls the generic function with each argument
/// taken from its role's array, in the declared order.
fn step_fns(k: &KernelDef) -> TokenStream {
    let (hawk, real, fname) = (&k.settings.krate, &k.settings.real, &k.name);
    let (n_in, n_par, n_mut) = counts(k);
    let mut_binds: Vec<Ident> = k
        .of(Role::Mut)
        .map(|a| format_ident!("__m{}", a.index))
        .collect();
    // The mutable values split between the arguments, in order.
    let splits = k.of(Role::Mut).map(|a| {
        let b = &mut_binds[a.index];
        match &a.len {
            Some(len) => quote!(let #b = #hawk::part_mut::<L, { #len }>(&mut __rest);),
            None => quote!(let #b = &mut #hawk::part_mut::<L, 1>(&mut __rest)[0];),
        }
    });
    let split_muts = quote! {
        let mut __rest: &mut [L] = muts;
        #(#splits)*
    };
    let call_args = k.args.iter().map(|a| {
        let at = offset(k, a);
        match (a.role, &a.len) {
            (Role::In, Some(len)) => quote!(*#hawk::part::<L, { #len }>(ins, #at)),
            (Role::In, None) => quote!(ins[#at]),
            (Role::Param, Some(len)) => quote!(#hawk::part::<L, { #len }>(params, #at)),
            (Role::Param, None) => quote!(params[#at]),
            (Role::Mut, _) => {
                let b = &mut_binds[a.index];
                quote!(#b)
            }
            (Role::Terminated, _) => quote!(terminated),
            (Role::Failed, _) => quote!(&mut __failed),
            (Role::NextSave, _) => quote!(next_save),
        }
    });
    // `step`'s lane and parameters (`step_or_fail` adds `failed`).
    let params = quote! {
        ins: &[L; #n_in],
        params: &[L; #n_par],
        muts: &mut [L; #n_mut],
        terminated: &mut L::Mask,
    };
    let lane = quote!(L: #hawk::Lane<Elem = #real>);
    if k.next_save() {
        // The body takes each lane's next save time: `step_to` is the step; the others
        // pass `+inf` (no save time ahead).
        let fails = k.fails().then(|| {
            quote!(
                const FAILS: bool = true;
            )
        });
        quote! {
            #fails
            const NEXT_SAVE: bool = true;
            #[inline(always)]
            fn step<#lane>(#params) {
                let mut failed = <L::Mask as #hawk::Mask>::splat(false);
                Self::step_or_fail(ins, params, muts, terminated, &mut failed)
            }
            #[inline(always)]
            fn step_or_fail<#lane>(#params failed: &mut L::Mask,) {
                let none = L::splat(<#real as #hawk::Real>::from_f64(f64::INFINITY));
                Self::step_to(ins, params, muts, terminated, failed, none)
            }
            #[inline(always)]
            #[allow(unused_variables, unused_mut)]
            fn step_to<#lane>(#params failed: &mut L::Mask, next_save: L,) {
                #split_muts
                let mut __failed = <L::Mask as #hawk::Mask>::splat(false);
                #fname::<L>(#(#call_args),*);
                *failed |= __failed;
            }
        }
    } else if k.fails() {
        quote! {
            const FAILS: bool = true;
            #[inline(always)]
            fn step<#lane>(#params) {
                let mut failed = <L::Mask as #hawk::Mask>::splat(false);
                Self::step_or_fail(ins, params, muts, terminated, &mut failed)
            }
            #[inline(always)]
            #[allow(unused_variables)]
            fn step_or_fail<#lane>(#params failed: &mut L::Mask,) {
                #split_muts
                let mut __failed = <L::Mask as #hawk::Mask>::splat(false);
                #fname::<L>(#(#call_args),*);
                *failed |= __failed;
            }
        }
    } else {
        quote! {
            #[inline(always)]
            #[allow(unused_variables)]
            fn step<#lane>(#params) {
                #split_muts
                #fname::<L>(#(#call_args),*)
            }
        }
    }
}

/// One GPU entry, the plain one (`hawk_<name>`) or the one over an index list
/// (`hawk_<name>_indexed`, with its `ids` parameter after `k`): its one description
/// (`device_entry!`: the launch side builds it from a `StepLaunch` by role and index, the
/// entry takes its fields, the body reads them) and its `StepEntry` impl.
fn step_entry(k: &KernelDef, names: &Names, indexed: bool) -> TokenStream {
    let (hawk, real, vis) = (&k.settings.krate, &k.settings.real, &k.vis);
    let kty = &names.kernel;
    let fname_s = k.name.to_string();
    let plane_field = |a: &Arg| format_ident!("plane_{}", a.name);
    // An array plane's field is an array of component addresses, a table's its values.
    let plane_fields = k.planes().map(|a| {
        let f = plane_field(a);
        let ty = match a.role {
            Role::In => quote!(*const #real),
            Role::Mut => quote!(*mut #real),
            _ => quote!(#real),
        };
        match &a.len {
            Some(len) => quote!(#f: [#ty; #len]),
            None => quote!(#f: #ty),
        }
    });
    let plane_inits = k.planes().map(|a| {
        let (f, at) = (plane_field(a), offset(k, a));
        let value = |j: TokenStream| match a.role {
            Role::In => quote!(#hawk::device::address::<#real>(l.ins[#j]).cast_const()),
            Role::Mut => quote!(#hawk::device::address::<#real>(l.muts[#j])),
            _ => quote!(l.params[#j]),
        };
        match &a.len {
            Some(_) => {
                let v = value(quote!(#at + j));
                quote!(#f: ::core::array::from_fn(|j| #v))
            }
            None => {
                let v = value(at);
                quote!(#f: #v)
            }
        }
    });
    // Each role's fields as one list (`run_sample` takes them so).
    let (n_in, n_par, n_mut) = counts(k);
    let list = |role: Role, n: &TokenStream| {
        let parts = k.of(role).map(|a| {
            let f = plane_field(a);
            match &a.len {
                Some(_) => quote!(&a.#f[..]),
                None => quote!(::core::slice::from_ref(&a.#f)),
            }
        });
        quote!(&#hawk::device::concat_planes::<_, { #n }>(&[#(#parts),*]))
    };
    let (ins_list, par_list, mut_list) = (
        list(Role::In, &n_in),
        list(Role::Param, &n_par),
        list(Role::Mut, &n_mut),
    );
    let (ty, entry_id, thread, doc) = if indexed {
        (
            &names.step_indexed,
            format_ident!("{}_indexed", names.entry),
            quote!(step_indexed_thread),
            format!(
                "GPU entry of kernel `{fname_s}` over an index list: thread `i < n` advances \
                 sample `ids[i]` by up to `k` steps and counts it into `active` if still running."
            ),
        )
    } else {
        (
            &names.step,
            format_ident!("{}", names.entry),
            quote!(step_thread),
            format!(
                "GPU entry of kernel `{fname_s}`: advances samples `0..n` by up to `k` steps, \
                 one per thread, and counts the samples still active into `active`."
            ),
        )
    };
    // Only the indexed entry has the index list (nothing in the plain one's place).
    let ids_field = indexed.then(|| quote!(ids: *const u32,));
    let ids_arg = indexed.then(|| quote!(a.ids,));
    // A launch passes at most 4 KiB of parameters (on every CUDA version and GPU): the
    // indexed entry, the larger one, is checked where the arrays' lengths are known.
    let size_check = indexed.then(|| {
        let msg = format!(
            "kernel `{fname_s}`: its GPU entry's parameters exceed the 4 KiB a launch may pass \
             (each component of an array plane takes 8 bytes, each value of a table its size): \
             make its array planes or tables smaller"
        );
        quote! {
            const _: () = ::core::assert!(
                #hawk::device::param_bytes(<#ty as #hawk::device::EntryArgs>::PARAMS) <= 4096,
                #msg
            );
        }
    });
    let ids_init = indexed.then(|| quote!(ids: #hawk::device::address(l.ids),));
    // Save points (hawk::save): the same parameters on both step entries (`save_ids` is 0
    // for the indexed one, whose index list already names caller ids).
    let save_fields = quote! {
        save_data: *mut #real, save_status: *mut u8, save_times: *const #real,
        save_ids: *const u32, save_step0: *const u64, save_every: u32, save_points: u32,
        save_n: u32, save_planes: u64, save_time: u32,
    };
    let save_target = quote! {
        &#hawk::device::save_target::<#real>(
            a.save_data, a.save_status, a.save_times, a.save_step0, a.save_every,
            a.save_points, a.save_n, a.save_planes, a.save_time,
        )
    };
    let save_ids_arg = (!indexed).then(|| quote!(a.save_ids,));
    let save_inits = quote! {
        save_data: #hawk::device::address(l.save.data),
        save_status: #hawk::device::address(l.save.status),
        save_times: #hawk::device::address(l.save.times),
        save_ids: #hawk::device::address(l.save.ids),
        save_step0: #hawk::device::address(l.save.step0),
        save_every: l.save.every,
        save_points: l.save.points,
        save_n: l.save.n,
        save_planes: l.save.planes,
        save_time: l.save.time,
    };
    quote! {
        #hawk::device_entry! {
            #[doc = #doc]
            #[doc(hidden)]
            #vis #ty => #entry_id {
                n: u32, k: u32, #ids_field #(#plane_fields,)* terminated: *mut u8,
                active: *mut u32, #save_fields
            }
            |a, i| {
                #hawk::device::#thread::<#kty>(
                    i, a.n, a.k, #ids_arg #ins_list, #par_list,
                    #mut_list, a.terminated, a.active, #save_target, #save_ids_arg
                )
            }
        }

        impl #hawk::device::StepEntry<#real> for #ty {
            #[inline]
            fn new(l: &#hawk::device::StepLaunch<'_, #real>) -> Self {
                Self {
                    n: l.slots, k: l.k, #ids_init #(#plane_inits,)*
                    terminated: #hawk::device::address(l.terminated),
                    active: #hawk::device::address(l.active),
                    #save_inits
                }
            }
        }

        #size_check
    }
}
