//! Kernel names: a symbol's readable C++ name, its name in the source,
//! and whether it is the kernel a user names (`--block-dim=NAME=`, the
//! pass's `block=NAME=`). Pure string work over mangled symbols.

/// Whether the symbol (mangled or not) is the function named `ident` in
/// the source, ignoring namespaces, classes, template arguments and
/// parameters: `_ZN2ns4kernIfEEvPT_` names `kern`.
pub fn names_kernel(symbol: &str, ident: &str) -> bool {
    symbol == ident || (symbol.starts_with("_Z") && source_name(symbol) == ident)
}

/// The name a symbol has in the source, as `--block-dim=NAME=` takes it:
/// without namespaces, classes, template arguments and parameters; an
/// unmangled symbol is its own.
pub fn source_name(symbol: &str) -> String {
    if !symbol.starts_with("_Z") {
        return symbol.to_string();
    }
    // `(anonymous namespace)::k` would otherwise end the name at its '('.
    let full = demangle(symbol).replace("(anonymous namespace)", "anonymous");
    // Cut the parameter list: the first '(' outside template brackets.
    let mut depth = 0i32;
    let mut end = full.len();
    for (i, c) in full.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            '(' if depth == 0 => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let mut name = full[..end].trim_end();
    if name.ends_with('>') {
        name = name.find('<').map_or(name, |i| &name[..i]);
    }
    // Return types of templates come first: `void ns::kern<float>`.
    let name = name.rsplit(' ').next().unwrap_or(name);
    name.rsplit("::").next().unwrap_or(name).to_string()
}

/// A readable C++ name for a mangled symbol; the symbol itself if it is not mangled.
pub fn demangle(symbol: &str) -> String {
    if !symbol.starts_with("_Z") {
        return symbol.to_string();
    }
    cpp_demangle::Symbol::new(symbol)
        .ok()
        .and_then(|s| s.demangle(&cpp_demangle::DemangleOptions::default()).ok())
        .unwrap_or_else(|| symbol.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_kernel_matches_itanium_and_extern_c_symbols() {
        assert!(names_kernel("_Z9calc_tempPfS_ii", "calc_temp"));
        assert!(names_kernel("_Z9calc_tempPf", "calc_temp"));
        assert!(names_kernel("_ZN2ns6kernelEPf", "kernel"));
        assert!(names_kernel("_ZN2ns9calc_tempEPf", "calc_temp"));
        assert!(names_kernel("_Z6kernelIfEvPT_i", "kernel"));
        assert!(names_kernel("_ZN2ns6kernelIfLi4EEEvPT_", "kernel"));
        assert!(names_kernel("_ZL6kernelPf", "kernel"));
        assert!(names_kernel("_ZN12_GLOBAL__N_16kernelEPf", "kernel"));
        assert!(names_kernel("saxpy", "saxpy"));
    }
}
