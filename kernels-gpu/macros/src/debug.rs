//! `#[problem(debug)]`: the expansion printed at compile time, formatted, so a user (or we)
//! can read the kernel a problem became.

use proc_macro2::TokenStream;

/// Prints `tokens` to the compiler's standard error under `title`, formatted by
/// prettyplease where they parse as a file (else as one line of tokens).
pub fn print(title: &str, tokens: &TokenStream) {
    let text = match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(_) => tokens.to_string(),
    };
    eprintln!("// ---- {title}: expansion (debug) ----\n{text}// ---- end of {title} ----");
}
