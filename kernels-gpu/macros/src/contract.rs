//! The `contract` setting (and `#[contract]`): multiply-adds written as `a * b + c` become
//! fused multiply-adds, one rounding instead of two, the same on every team.
//!
//! The rewrite, in the body as written (macro calls, types, patterns and constant
//! expressions are left alone):
//! - `a * b + c` and `c + a * b` become `Fused::fused_mul_add(a, b, c)`;
//! - `a * b - c` becomes `Fused::fused_mul_sub(a, b, c)`;
//! - `c - a * b` becomes `Fused::fused_neg_mul_add(a, b, c)`;
//! - `x += a * b` and `x -= a * b` become `x = ..` of the same forms with `c = x`.
//!
//! Deterministic order: operands are rewritten before the operation that uses them
//! (innermost first), and where both sides of a `+` or `-` are products, the left one is
//! fused and the right one rounded first (`a * b + c * d` is `fma(a, b, c * d)`). A
//! product in parentheses is a product; to keep one apart, bind it with `let`.
//! `hawk::Fused` fuses lanes and reals (`mul_add`: `vfmadd` on the host, `fma.rn` on the
//! GPU, a correctly rounded `fma` on the emulated device) and computes integers as written.

use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{BinOp, Expr, Path};

/// The rewriting visitor (see the module docs): `Contract::new(hawk).visit_block_mut(b)`
/// rewrites block `b` with the `hawk` at that path.
pub struct Contract {
    hawk: Path,
}

/// `e`'s operands when it is a product, in parentheses or not.
fn product(e: &Expr) -> Option<(&Expr, &Expr)> {
    match e {
        Expr::Paren(p) => product(&p.expr),
        Expr::Group(g) => product(&g.expr),
        Expr::Binary(b) if matches!(b.op, BinOp::Mul(_)) => Some((&b.left, &b.right)),
        _ => None,
    }
}

impl Contract {
    /// The visitor for the `hawk` at path `hawk`.
    pub fn new(hawk: &Path) -> Contract {
        Contract { hawk: hawk.clone() }
    }

    /// `hawk::Fused::<method>(a, b, c)`, spanned at the operator.
    fn call(&self, span: proc_macro2::Span, method: &str, a: &Expr, b: &Expr, c: &Expr) -> Expr {
        // Every token at the operator, so that a type error points there.
        let hawk: TokenStream = quote::ToTokens::to_token_stream(&self.hawk)
            .into_iter()
            .map(|mut t| {
                t.set_span(span);
                t
            })
            .collect();
        let m = syn::Ident::new(method, span);
        let t: TokenStream = quote_spanned!(span=> #hawk::Fused::#m(#a, #b, #c));
        syn::parse2(t).expect("a call parses")
    }

    /// The fused form of binary `e`, if it is one.
    fn fused(&self, e: &syn::ExprBinary) -> Option<Expr> {
        let span = e.op.span();
        let (l, r) = (&*e.left, &*e.right);
        match e.op {
            BinOp::Add(_) => match (product(l), product(r)) {
                (Some((a, b)), _) => Some(self.call(span, "fused_mul_add", a, b, r)),
                (None, Some((a, b))) => Some(self.call(span, "fused_mul_add", a, b, l)),
                _ => None,
            },
            BinOp::Sub(_) => match (product(l), product(r)) {
                (Some((a, b)), _) => Some(self.call(span, "fused_mul_sub", a, b, r)),
                (None, Some((a, b))) => Some(self.call(span, "fused_neg_mul_add", a, b, l)),
                _ => None,
            },
            BinOp::AddAssign(_) | BinOp::SubAssign(_) => {
                let (a, b) = product(r)?;
                let method = if matches!(e.op, BinOp::AddAssign(_)) {
                    "fused_mul_add"
                } else {
                    "fused_neg_mul_add"
                };
                let value = self.call(span, method, a, b, l);
                Some(syn::parse_quote_spanned!(span=> #l = #value))
            }
            _ => None,
        }
    }
}

impl VisitMut for Contract {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        visit_mut::visit_expr_mut(self, e);
        if let Expr::Binary(b) = e
            && let Some(f) = self.fused(b)
        {
            *e = f;
        }
    }
    // Constant contexts and what is not arithmetic on values: left as written.
    fn visit_type_mut(&mut self, _: &mut syn::Type) {}
    fn visit_pat_mut(&mut self, _: &mut syn::Pat) {}
    fn visit_item_const_mut(&mut self, _: &mut syn::ItemConst) {}
    fn visit_item_static_mut(&mut self, _: &mut syn::ItemStatic) {}
    fn visit_expr_const_mut(&mut self, _: &mut syn::ExprConst) {}
    fn visit_generic_argument_mut(&mut self, _: &mut syn::GenericArgument) {}
    fn visit_expr_repeat_mut(&mut self, r: &mut syn::ExprRepeat) {
        self.visit_expr_mut(&mut r.expr);
    }
}

#[cfg(test)]
mod tests {
    use super::Contract;
    use quote::quote;
    use syn::visit_mut::VisitMut;

    fn contracted(e: proc_macro2::TokenStream) -> String {
        let mut e: syn::Expr = syn::parse2(e).unwrap();
        Contract::new(&syn::parse_quote!(::hawk)).visit_expr_mut(&mut e);
        quote!(#e)
            .to_string()
            .replace(":: hawk :: Fused :: fused_", "")
    }

    #[test]
    fn the_four_forms_and_compound_assignments() {
        assert_eq!(contracted(quote!(a * b + c)), "mul_add (a , b , c)");
        assert_eq!(contracted(quote!(c + a * b)), "mul_add (a , b , c)");
        assert_eq!(contracted(quote!(a * b - c)), "mul_sub (a , b , c)");
        assert_eq!(contracted(quote!(c - a * b)), "neg_mul_add (a , b , c)");
        assert_eq!(contracted(quote!(x += a * b)), "x = mul_add (a , b , x)");
        assert_eq!(
            contracted(quote!(*x -= a * b)),
            "* x = neg_mul_add (a , b , * x)"
        );
        assert_eq!(contracted(quote!(x += a)), "x += a");
        assert_eq!(contracted(quote!(a + b - c / d)), "a + b - c / d");
    }

    #[test]
    fn left_product_first_innermost_first() {
        assert_eq!(contracted(quote!(a * b + c * d)), "mul_add (a , b , c * d)");
        assert_eq!(contracted(quote!(a * b - c * d)), "mul_sub (a , b , c * d)");
        // `(a * b + c) * d + e`: the inner sum first, then the outer one.
        assert_eq!(
            contracted(quote!((a * b + c) * d + e)),
            "mul_add ((mul_add (a , b , c)) , d , e)"
        );
        // A product of products: the last multiplication is the fused one.
        assert_eq!(contracted(quote!(a * b * c + d)), "mul_add (a * b , c , d)");
        assert_eq!(contracted(quote!((a * b) + c)), "mul_add (a , b , c)");
        // Left-associative chains: only a sum whose operand is a product fuses.
        assert_eq!(contracted(quote!(a + b * c + d)), "mul_add (b , c , a) + d");
    }

    #[test]
    fn inside_calls_closures_and_blocks() {
        assert_eq!(
            contracted(quote!(f(|x| x * x + 1.0, [y * z - w])[i])),
            "f (| x | mul_add (x , x , 1.0) , [mul_sub (y , z , w)]) [i]"
        );
        assert_eq!(
            contracted(quote!({
                let u = a * b + c;
                u
            })),
            "{ let u = mul_add (a , b , c) ; u }"
        );
    }

    #[test]
    fn constant_contexts_are_left_alone() {
        assert_eq!(
            contracted(quote!({
                const K: usize = 2 * N + 1;
                [x * y + z; 2 * N + 1]
            })),
            "{ const K : usize = 2 * N + 1 ; [mul_add (x , y , z) ; 2 * N + 1] }"
        );
        assert_eq!(
            contracted(quote!(g::<{ 2 * N + 1 }>(v as [f64; 2 * M + 1]))),
            "g :: < { 2 * N + 1 } > (v as [f64 ; 2 * M + 1])"
        );
        assert_eq!(
            contracted(quote!(assert!(a * b + c > 0.0))),
            "assert ! (a * b + c > 0.0)"
        );
    }
}
