//! Checks on a kernel body, each reported as a `syn::Error` at the offending code.
//!
//! Two families:
//! - **per-sample control flow**: `if`, `if let`, `while`, `while let`, `match` (and its
//!   guards), `let .. else`, `&&` and `||` whose condition mentions a per-sample value. A
//!   per-sample value is a kernel argument or a local bound (by `let`, `for` or assignment,
//!   directly or transitively) from an expression mentioning one. On the host a lane holds
//!   several samples, so such a decision must be a mask and `Scalar::select`.
//! - **no `std`**: the body also runs on the GPU, so `std::` paths, the printing and
//!   allocating macros, `panic!` with formatting, and `Vec`/`String`/`Box` are rejected.
//!
//! Loops over constants (`for i in 0..3`) and branches on constants stay allowed.

use std::collections::HashSet;

use proc_macro2::{TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::visit::{self, Visit};
use syn::{
    Arm, BinOp, Block, Expr, ExprBinary, ExprForLoop, ExprIf, ExprMatch, ExprWhile, Ident, ItemUse,
    Local, Macro, Pat, PatIdent, Path, UseTree,
};

/// Runs every body check; all problems found are combined into one error.
pub fn check_body(body: &Block, args: &[Ident]) -> syn::Result<()> {
    let mut c = BodyChecker {
        per_sample: args.iter().map(|a| a.to_string()).collect(),
        errors: Vec::new(),
    };
    c.visit_block(body);
    let mut errors = c.errors.into_iter();
    match errors.next() {
        None => Ok(()),
        Some(mut first) => {
            first.extend(errors);
            Err(first)
        }
    }
}

/// Walks the body in source order, tracking which names hold per-sample values.
struct BodyChecker {
    per_sample: HashSet<String>,
    errors: Vec<syn::Error>,
}

const SELECT_HINT: &str = "use a mask and `Scalar::select(mask, a, b)` \
    (e.g. `*x = Scalar::select(x.simd_lt(lim), a, b)`)";

const STD_HINT: &str = "`std` is not available in a kernel (it also runs on the GPU): use \
    `core::` items (e.g. `core::f64::consts::PI`) and do math through the lane methods \
    (`x.sqrt()`, `x.mul_add(a, b)`)";

impl BodyChecker {
    fn error(&mut self, tokens: impl ToTokens, msg: impl std::fmt::Display) {
        self.errors.push(syn::Error::new_spanned(tokens, msg));
    }

    /// `true` if `e` mentions a per-sample name (also inside macro invocations).
    fn mentions(&self, e: &Expr) -> bool {
        let mut m = Mentions {
            names: &self.per_sample,
            found: false,
        };
        m.visit_expr(e);
        m.found
    }

    /// Marks every name bound by `pat` as per-sample.
    fn bind(&mut self, pat: &Pat) {
        let mut b = Binder(Vec::new());
        b.visit_pat(pat);
        self.per_sample.extend(b.0);
    }

    /// Visits an already reported condition without reporting its `&&`/`||` chain again.
    fn visit_reported(&mut self, e: &Expr) {
        match e {
            Expr::Binary(b) if matches!(b.op, BinOp::And(_) | BinOp::Or(_)) => {
                self.visit_reported(&b.left);
                self.visit_reported(&b.right);
            }
            Expr::Paren(p) => self.visit_reported(&p.expr),
            Expr::Let(l) => self.visit_expr(&l.expr),
            other => self.visit_expr(other),
        }
    }

    /// `if c { .. }` / `if let P = e { .. }` on a per-sample value.
    fn check_if(&mut self, e: &ExprIf) -> bool {
        if !self.mentions(&e.cond) {
            return false;
        }
        let (if_token, cond) = (&e.if_token, &e.cond);
        let msg = match &*e.cond {
            Expr::Let(_) => format!(
                "`if let` on a per-sample value: a lane holds several samples, so one pattern \
                 cannot pick the branch for all of them; compute both results and {SELECT_HINT}"
            ),
            _ => format!("`if` on a per-sample value: a lane holds several samples; {SELECT_HINT}"),
        };
        self.error(quote!(#if_token #cond), msg);
        true
    }

    /// `while c { .. }` / `while let P = e { .. }` on a per-sample value.
    fn check_while(&mut self, e: &ExprWhile) -> bool {
        if !self.mentions(&e.cond) {
            return false;
        }
        let (while_token, cond) = (&e.while_token, &e.cond);
        let kw = if matches!(&*e.cond, Expr::Let(_)) {
            "while let"
        } else {
            "while"
        };
        self.error(
            quote!(#while_token #cond),
            format!(
                "`{kw}` on a per-sample value: the samples of a lane may need different \
                 numbers of iterations; loop a fixed number of times (`for i in 0..3`) and \
                 update with a mask and `Scalar::select(mask, a, b)`, or let the runtime \
                 repeat the step until `*terminated` is set"
            ),
        );
        true
    }

    /// `match e { .. }` on a per-sample value.
    fn check_match(&mut self, e: &ExprMatch) -> bool {
        if !self.mentions(&e.expr) {
            return false;
        }
        let (match_token, scrutinee) = (&e.match_token, &e.expr);
        self.error(
            quote!(#match_token #scrutinee),
            format!(
                "`match` on a per-sample value: a lane holds several samples, so one arm \
                 cannot be chosen for all of them; compute each arm and {SELECT_HINT}"
            ),
        );
        true
    }

    /// `pat if guard => ..` whose guard mentions a per-sample value.
    fn check_match_guard(&mut self, arm: &Arm) -> bool {
        let Some((if_token, guard)) = &arm.guard else {
            return false;
        };
        if !self.mentions(guard) {
            return false;
        }
        self.error(
            quote!(#if_token #guard),
            format!(
                "`match` guard on a per-sample value: a lane holds several samples; \
                 {SELECT_HINT}"
            ),
        );
        true
    }

    /// `let P = e else { .. };` on a per-sample value.
    fn check_let_else(&mut self, l: &Local) {
        let Some(init) = &l.init else { return };
        if init.diverge.is_some() && self.mentions(&init.expr) {
            let (let_token, pat, eq, expr) = (&l.let_token, &l.pat, &init.eq_token, &init.expr);
            self.error(
                quote!(#let_token #pat #eq #expr),
                format!(
                    "`let .. else` on a per-sample value: a lane holds several samples, so \
                     one pattern cannot pick the branch for all of them; {SELECT_HINT}"
                ),
            );
        }
    }

    /// `a && b` / `a || b` with a per-sample operand.
    fn check_lazy_bool(&mut self, e: &ExprBinary) -> bool {
        let (op, mask_op, example) = match e.op {
            BinOp::And(_) => ("&&", "&", "x.simd_gt(lo) & x.simd_lt(hi)"),
            BinOp::Or(_) => ("||", "|", "x.simd_lt(lo) | x.simd_gt(hi)"),
            _ => return false,
        };
        if !(self.mentions(&e.left) || self.mentions(&e.right)) {
            return false;
        }
        self.error(
            e,
            format!(
                "`{op}` on a per-sample value: a lane holds several samples and `{op}` needs \
                 one `bool` for all of them; combine masks with `{mask_op}` (e.g. \
                 `{example}`) and use the mask with `Scalar::select(mask, a, b)`"
            ),
        );
        true
    }

    /// `std::..` and `alloc::..` paths, and the allocating types `Vec`, `String`, `Box`.
    fn check_path(&mut self, p: &Path) {
        let Some(first) = p.segments.first() else {
            return;
        };
        match first.ident.to_string().as_str() {
            "std" => return self.error(p, STD_HINT),
            "alloc" => return self.error(p, alloc_message("alloc")),
            _ => {}
        }
        for seg in &p.segments {
            let name = seg.ident.to_string();
            if matches!(name.as_str(), "Vec" | "String" | "Box") {
                self.error(&seg.ident, alloc_message(&name));
            }
        }
    }

    /// `use std::..;` / `use alloc::..;` inside the body.
    fn check_use(&mut self, u: &ItemUse) {
        let root = match &u.tree {
            UseTree::Path(p) => &p.ident,
            UseTree::Name(n) => &n.ident,
            UseTree::Rename(r) => &r.ident,
            _ => return,
        };
        match root.to_string().as_str() {
            "std" => self.error(&u.tree, STD_HINT),
            "alloc" => self.error(&u.tree, alloc_message("alloc")),
            _ => {}
        }
    }

    /// Printing, formatting and allocating macros. Returns `true` when one was reported.
    fn check_macro(&mut self, m: &Macro) -> bool {
        let Some(last) = m.path.segments.last() else {
            return false;
        };
        let name = last.ident.to_string();
        let msg = match name.as_str() {
            "println" | "print" | "eprintln" | "eprint" | "dbg" => format!(
                "`{name}!` is not available in a kernel (it also runs on the GPU, without \
                 `std`): a kernel cannot print; read the planes after the run instead"
            ),
            "format" => "`format!` is not available in a kernel (it also runs on the GPU, \
                 without `std` or an allocator): a kernel cannot build strings"
                .to_string(),
            "vec" => "`vec!` is not available in a kernel (it also runs on the GPU, without \
                 an allocator): use a fixed-size array (e.g. `[Scalar::splat(0.0); 3]`)"
                .to_string(),
            "panic" if panic_formats(&m.tokens) => "`panic!` with formatting is not available \
                 in a kernel (it also runs on the GPU, without `std`): write a plain message \
                 (`panic!(\"negative step\")`), or better set `*terminated` for the sample"
                .to_string(),
            _ => return false,
        };
        self.error(m, msg);
        true
    }
}

fn alloc_message(what: &str) -> String {
    let instead = match what {
        "String" => "a kernel cannot build strings; keep numbers in planes",
        "Box" => "use the value itself (`let y = *x;`)",
        _ => "use a fixed-size array (e.g. `[Scalar::splat(0.0); 3]`)",
    };
    format!(
        "`{what}` is not available in a kernel (it also runs on the GPU, without an \
         allocator): {instead}"
    )
}

/// `true` unless the `panic!` arguments are empty or one string literal without `{`.
fn panic_formats(tokens: &TokenStream) -> bool {
    let mut it = tokens.clone().into_iter();
    match (it.next(), it.next()) {
        (None, _) => false,
        (Some(TokenTree::Literal(l)), None) => {
            let s = l.to_string();
            !s.starts_with('"') || s.contains('{')
        }
        _ => true,
    }
}

impl<'ast> Visit<'ast> for BodyChecker {
    fn visit_local(&mut self, l: &'ast Local) {
        self.check_let_else(l);
        visit::visit_local(self, l);
        if l.init.as_ref().is_some_and(|i| self.mentions(&i.expr)) {
            self.bind(&l.pat);
        }
    }

    fn visit_expr_if(&mut self, e: &'ast ExprIf) {
        if !self.check_if(e) {
            return visit::visit_expr_if(self, e);
        }
        self.visit_reported(&e.cond);
        self.visit_block(&e.then_branch);
        if let Some((_, els)) = &e.else_branch {
            self.visit_expr(els);
        }
    }

    fn visit_expr_while(&mut self, e: &'ast ExprWhile) {
        if !self.check_while(e) {
            return visit::visit_expr_while(self, e);
        }
        self.visit_reported(&e.cond);
        self.visit_block(&e.body);
    }

    fn visit_expr_match(&mut self, e: &'ast ExprMatch) {
        self.check_match(e);
        visit::visit_expr_match(self, e);
    }

    fn visit_arm(&mut self, arm: &'ast Arm) {
        if !self.check_match_guard(arm) {
            return visit::visit_arm(self, arm);
        }
        self.visit_pat(&arm.pat);
        if let Some((_, guard)) = &arm.guard {
            self.visit_reported(guard);
        }
        self.visit_expr(&arm.body);
    }

    fn visit_expr_binary(&mut self, e: &'ast ExprBinary) {
        if self.check_lazy_bool(e) {
            self.visit_reported(&e.left);
            self.visit_reported(&e.right);
            return;
        }
        visit::visit_expr_binary(self, e);
        // `acc += *x;` makes `acc` per-sample.
        let compound = matches!(
            e.op,
            BinOp::AddAssign(_)
                | BinOp::SubAssign(_)
                | BinOp::MulAssign(_)
                | BinOp::DivAssign(_)
                | BinOp::RemAssign(_)
                | BinOp::BitXorAssign(_)
                | BinOp::BitAndAssign(_)
                | BinOp::BitOrAssign(_)
                | BinOp::ShlAssign(_)
                | BinOp::ShrAssign(_)
        );
        if compound && self.mentions(&e.right) {
            self.taint_place(&e.left);
        }
    }

    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        visit::visit_expr_assign(self, e);
        if self.mentions(&e.right) {
            self.taint_place(&e.left);
        }
    }

    fn visit_expr_for_loop(&mut self, e: &'ast ExprForLoop) {
        // A loop over a per-sample array runs a fixed number of times: allowed, but its
        // variable holds per-sample values.
        self.visit_expr(&e.expr);
        if self.mentions(&e.expr) {
            self.bind(&e.pat);
        }
        self.visit_pat(&e.pat);
        self.visit_block(&e.body);
    }

    fn visit_path(&mut self, p: &'ast Path) {
        self.check_path(p);
        visit::visit_path(self, p);
    }

    fn visit_item_use(&mut self, u: &'ast ItemUse) {
        self.check_use(u);
    }

    fn visit_macro(&mut self, m: &'ast Macro) {
        if !self.check_macro(m) {
            visit::visit_macro(self, m);
        }
    }
}

impl BodyChecker {
    /// After `place = <per-sample>`, a plain local `place` holds a per-sample value.
    fn taint_place(&mut self, place: &Expr) {
        if let Expr::Path(p) = place
            && let Some(id) = p.path.get_ident()
        {
            self.per_sample.insert(id.to_string());
        }
    }
}

/// Finds a mention of one of `names` in an expression.
struct Mentions<'n> {
    names: &'n HashSet<String>,
    found: bool,
}

impl Mentions<'_> {
    fn scan(&mut self, tokens: TokenStream) {
        for t in tokens {
            match t {
                TokenTree::Ident(i) if self.names.contains(&i.to_string()) => self.found = true,
                TokenTree::Group(g) => self.scan(g.stream()),
                _ => {}
            }
        }
    }
}

impl<'ast> Visit<'ast> for Mentions<'_> {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.qself.is_none()
            && let Some(id) = p.path.get_ident()
            && self.names.contains(&id.to_string())
        {
            self.found = true;
        }
        visit::visit_expr_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast Macro) {
        self.scan(m.tokens.clone());
    }
}

/// Collects the names a pattern binds.
struct Binder(Vec<String>);

impl<'ast> Visit<'ast> for Binder {
    fn visit_pat_ident(&mut self, p: &'ast PatIdent) {
        self.0.push(p.ident.to_string());
        visit::visit_pat_ident(self, p);
    }
}
