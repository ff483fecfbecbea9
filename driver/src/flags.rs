//! Flag parsing shared by the subcommands (`locality`, `partition`), which
//! take `--flag=value` or `--flag value` outside clap.

use anyhow::{anyhow, Result};

/// `--flag=value` or `--flag value`: the value, if `args[*i]` is `flag`
/// (advancing `i` past a separate value).
pub fn flag_value(
    args: &[String],
    i: &mut usize,
    flag: &str,
    usage: &str,
) -> Result<Option<String>> {
    let a = &args[*i];
    if let Some(v) = a.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
        return Ok(Some(v.to_string()));
    }
    if a != flag {
        return Ok(None);
    }
    *i += 1;
    args.get(*i)
        .cloned()
        .map(Some)
        .ok_or_else(|| anyhow!("{flag} needs a value; {usage}"))
}
