//! `gpucc-cache apply KEYED.ptx -o OUT.ptx [--keep-debug]`: the last step
//! for users of the plugin in their own pipeline (`opt`, `clang
//! -fpass-plugin`) with `lower=keys`. The pass left every load plain and
//! keyed its debug location; this writes each key's cache operator into the
//! PTX and removes the keys (and, unless `--keep-debug`, all debug lines,
//! which the keys needed), so the code is the compiler's own.
//!
//! Nothing here runs LLVM: it is `ptx::apply` over a file.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context as _, Result};
use gpucc_cache_pass::emit::ptx::{self, Strip};

const USAGE: &str = "usage: gpucc-cache apply KEYED.ptx -o OUT.ptx [--keep-debug]";

struct Apply {
    input: PathBuf,
    output: PathBuf,
    strip: Strip,
}

fn parse(args: &[String]) -> Result<Apply> {
    let (mut input, mut output, mut strip) = (None, None, Strip::AllDebugInfo);
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "-o" => {
                i += 1;
                let v = args
                    .get(i)
                    .ok_or_else(|| anyhow!("-o needs a file; {USAGE}"))?;
                output = Some(PathBuf::from(v));
            }
            "--keep-debug" => strip = Strip::KeysOnly,
            "-h" | "--help" => bail!("{USAGE}"),
            a if a.starts_with('-') => bail!("unknown option '{a}' for apply; {USAGE}"),
            a if input.is_none() => input = Some(PathBuf::from(a)),
            a => bail!("a second input '{a}'; apply takes one PTX file; {USAGE}"),
        }
        i += 1;
    }
    Ok(Apply {
        input: input.ok_or_else(|| anyhow!("no input PTX; {USAGE}"))?,
        output: output.ok_or_else(|| anyhow!("no -o OUT.ptx; {USAGE}"))?,
        strip,
    })
}

/// The most bytes of PTX `apply` reads (a cubin's worth of PTX is tens of
/// MiB at most).
const MAX_PTX: u64 = 1 << 30;

fn read_bounded(path: &std::path::Path) -> Result<String> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_PTX + 1).read_to_end(&mut bytes))
        .with_context(|| format!("cannot read {}; give a PTX file", path.display()))?;
    if bytes.len() as u64 > MAX_PTX {
        bail!(
            "{} is over {} GiB; give one module's PTX",
            path.display(),
            MAX_PTX >> 30
        );
    }
    String::from_utf8(bytes).map_err(|_| anyhow!("{} is not text; give a PTX file", path.display()))
}

pub fn run(args: &[String]) -> Result<()> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), "{USAGE}");
        return Ok(());
    }
    let a = parse(args)?;
    let mut files = crate::output::Outputs::new();
    files.input("the input", &a.input)?;
    let out = files.output("-o", &a.output)?;
    crate::output::check_regular(&a.input, "a PTX file")?;
    let text = read_bounded(&a.input)?;
    let applied = ptx::apply(&text, a.strip).map_err(|e| {
        anyhow!(
            "{} is not PTX gpucc-cache can apply to: {e}",
            a.input.display()
        )
    })?;
    let keyed = applied.loads.iter().filter(|l| l.key.is_some()).count();
    if keyed == 0 && !applied.loads.is_empty() {
        say!(
            "gpucc-cache: warning: {} has no keyed loads; was it compiled with the plugin's lower=keys and line tables kept?",
            a.input.display()
        );
    }
    files.fill(out, applied.text.into_bytes());
    files.commit()
}
