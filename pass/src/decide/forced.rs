//! Forced per-load decisions (`--decisions=FILE`, `decisions=FILE`): an
//! oracle's or an experiment's choice for named loads, taken instead of the
//! policy's. The ground-truth harness (design.md §11) uses them to build a
//! program with any assignment it wants to measure.
//!
//! A line is `SYMBOL SITE cache|bypass`, whitespace separated, `#` starts a
//! comment: SYMBOL is a function's mangled symbol and SITE a load's site
//! number, both as the JSON report prints them (`kernels[].symbol`,
//! `kernels[].loads[].site`). This file parses and checks the list; the
//! analysis applies it (through the same path as the policy's decisions)
//! and says which entries name nothing in the module.

use std::path::PathBuf;

use crate::decide::policy::Decision;
use crate::error::Error;

/// One forced load: the decision for every load of `site` in `symbol`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forced {
    pub symbol: String,
    pub site: u32,
    pub decision: Decision,
    /// Its line in the file, for errors.
    pub line: usize,
}

/// A decisions file, read and checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decisions {
    /// The file as the user named it.
    pub path: PathBuf,
    pub loads: Vec<Forced>,
}

impl Decisions {
    pub fn read(path: &str) -> Result<Decisions, Error> {
        let text = crate::files::read_text_file("the decisions file", path)?;
        Decisions::parse(path, &text)
    }

    /// Checks the lines of `text`, read from `path` (named in errors).
    pub fn parse(path: &str, text: &str) -> Result<Decisions, Error> {
        let mut loads: Vec<Forced> = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let line = n + 1;
            let content = raw.split('#').next().unwrap_or("");
            let words: Vec<&str> = content.split_whitespace().collect();
            if words.is_empty() {
                continue;
            }
            let err = |msg: String| Error::File {
                message: format!("{path}:{line}: {msg}"),
            };
            let [symbol, site, decision] = words[..] else {
                return Err(err(format!(
                    "'{}' is not SYMBOL SITE cache|bypass; write e.g. _Z4copyPfS_ 3 bypass, with the symbol and \
                     site as the JSON report prints them",
                    content.trim()
                )));
            };
            let site: u32 = site.parse().map_err(|_| {
                err(format!(
                    "site '{site}' is not a number; give the load's site from the JSON report (kernels[].loads[].site)"
                ))
            })?;
            let decision = match decision {
                "cache" => Decision::Cache,
                "bypass" => Decision::Bypass,
                other => {
                    return Err(err(format!(
                        "'{other}' is not a decision; write cache or bypass"
                    )))
                }
            };
            if let Some(first) = loads.iter().find(|f| f.symbol == symbol && f.site == site) {
                return Err(err(format!(
                    "{symbol} site {site} listed again (first on line {}); keep one",
                    first.line
                )));
            }
            loads.push(Forced {
                symbol: symbol.to_string(),
                site,
                decision,
                line,
            });
        }
        Ok(Decisions {
            path: PathBuf::from(path),
            loads,
        })
    }

    /// The loads forced in the function `symbol`.
    pub fn of<'a>(&'a self, symbol: &'a str) -> impl Iterator<Item = &'a Forced> + 'a {
        self.loads.iter().filter(move |f| f.symbol == symbol)
    }

    /// An error about the entry `f`, at its line.
    pub fn error(&self, f: &Forced, message: String) -> Error {
        Error::File {
            message: format!("{}:{}: {message}", self.path.display(), f.line),
        }
    }

    /// The reason a forced load's report gives.
    pub fn reason(&self) -> String {
        format!("forced by --decisions {}", self.path.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lines_and_comments() {
        let d = Decisions::parse(
            "d.txt",
            "# oracle\n_Z4copyPfS_ 0 cache\n\n  _Z4copyPfS_\t2   bypass # the gather\n",
        )
        .unwrap();
        assert_eq!(d.loads.len(), 2);
        assert_eq!(d.loads[1].site, 2);
        assert_eq!(d.loads[1].decision, Decision::Bypass);
        assert_eq!(d.loads[1].line, 4);
        assert_eq!(d.of("_Z4copyPfS_").count(), 2);
        assert_eq!(d.of("other").count(), 0);
        assert_eq!(d.reason(), "forced by --decisions d.txt");
    }

    #[test]
    fn errors_name_the_line() {
        for (text, want) in [
            ("k 0", "d.txt:1: 'k 0' is not SYMBOL SITE cache|bypass"),
            ("k 0 cache extra", "d.txt:1: 'k 0 cache extra' is not"),
            ("\nk x cache", "d.txt:2: site 'x' is not a number"),
            ("k -1 cache", "d.txt:1: site '-1' is not a number"),
            ("k 0 maybe", "d.txt:1: 'maybe' is not a decision"),
            (
                "k 0 cache\nk 0 bypass",
                "d.txt:2: k site 0 listed again (first on line 1)",
            ),
        ] {
            let e = Decisions::parse("d.txt", text).unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
        let e = Decisions::read("/nonexistent/d.txt")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("cannot read the decisions file /nonexistent/d.txt"),
            "{e}"
        );
    }
}
