//! The report as text: one table per kernel, with the per-load lines,
//! the kernel model's figures and the robust choice (`--cache-report=text`,
//! the default); the data types and JSON are `report`'s.

use super::*;

/// How the text report writes a position: `line:column` in the main input,
/// `file:line:column` elsewhere (a header), `<no line>` when the debug info
/// gives none, `<no location>` without debug location.
fn place(file: Option<&str>, line: u32, column: u32, main: Option<&str>) -> String {
    let other = file.filter(|f| Some(*f) != main);
    let at = match (line, column) {
        (0, _) if file.is_none() => return "<no location>".into(),
        (0, _) => "<no line>".to_string(),
        (_, 0) => line.to_string(),
        _ => format!("{line}:{column}"),
    };
    match other {
        Some(f) => format!("{}:{at}", short_file(f, main)),
        None => at,
    }
}

/// A file other than the main input as the text report names it: relative
/// paths as the debug info gives them (as the user wrote the `#include`),
/// absolute ones relative to the main input's directory when under it,
/// else by their file name only (toolkit and compiler headers: the JSON
/// report has the whole path).
fn short_file<'a>(file: &'a str, main: Option<&str>) -> &'a str {
    let path = std::path::Path::new(file);
    if !path.is_absolute() {
        return file;
    }
    let dir = main
        .map(std::path::Path::new)
        .filter(|m| m.is_absolute())
        .and_then(std::path::Path::parent);
    if let Some(rest) = dir.and_then(|d| path.strip_prefix(d).ok()) {
        return rest.to_str().unwrap_or(file);
    }
    path.file_name().and_then(|n| n.to_str()).unwrap_or(file)
}

/// The inlining chain as the text report writes it, innermost call site first.
fn chain(inlined: &[Position], main: Option<&str>) -> String {
    inlined
        .iter()
        .map(|p| place(p.file.as_deref(), p.line, p.column, main))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A pattern split into the rest and its constant term (`a + 4*tid.x + 8`
/// → (`a + 4*tid.x`, 8); no constant term: 0). The unroller's copies of one
/// source load differ only there.
fn split_offset(pattern: &str) -> (&str, i64) {
    for (sep, sign) in [(" + ", 1), (" - ", -1)] {
        if let Some(i) = pattern.rfind(sep) {
            let tail = &pattern[i + sep.len()..];
            if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) {
                if let Ok(n) = tail.parse::<i64>() {
                    return (&pattern[..i], sign * n);
                }
            }
        }
    }
    (pattern, 0)
}

/// One pattern for copies whose patterns share everything but the
/// constant term: `w + {0, 4, ..., 24}`.
fn family_pattern(patterns: &[&str]) -> String {
    if patterns.iter().all(|p| *p == patterns[0]) {
        return patterns[0].to_string();
    }
    let base = split_offset(patterns[0]).0;
    let mut offsets: Vec<i64> = patterns.iter().map(|p| split_offset(p).1).collect();
    offsets.sort_unstable();
    offsets.dedup();
    if offsets.len() < 2 {
        return patterns[0].to_string();
    }
    let step = offsets[1] - offsets[0];
    let progression = offsets.windows(2).all(|w| w[1] - w[0] == step);
    let set = if offsets.len() >= 5 && progression {
        format!(
            "{}, {}, ..., {}",
            offsets[0],
            offsets[1],
            offsets[offsets.len() - 1]
        )
    } else {
        offsets
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!("{base} + {{{set}}}")
}

/// `n`, or `lo-hi` when the copies differ.
fn span(values: impl Iterator<Item = u64> + Clone) -> String {
    let lo = values.clone().min().unwrap_or(0);
    let hi = values.max().unwrap_or(0);
    if lo == hi {
        lo.to_string()
    } else {
        format!("{lo}-{hi}")
    }
}

impl Simulated {
    /// The kernel's simulated figures, as the text report writes them under
    /// the kernel's heading.
    fn write_text(&self, s: &mut String) {
        let t = &self.traffic_bytes;
        let _ = writeln!(
            s,
            "  simulated on one SM: {} co-resident blocks, {}; {} thread-accesses",
            self.blocks, self.occupancy, self.thread_accesses
        );
        let _ = writeln!(
            s,
            "  L2->L1 bytes: auto {}, cache-all {}, cache-none {}, conservative {}, aggressive {}, decided {}",
            t.auto, t.cache_all, t.cache_none, t.conservative, t.aggressive, t.decided
        );
        if let Some(cut) = &self.truncated {
            let _ = writeln!(s, "  simulation cut: {cut}");
        }
        if let Some(l) = &self.launch {
            let t = &l.traffic_bytes;
            let _ = writeln!(
                s,
                "  launch estimate ({} SMs, {} blocks, scaled to {}): auto {}, cache-all {}, cache-none {}, conservative {}, aggressive {}, decided {}",
                l.sms, l.blocks, l.grid_blocks, t.auto, t.cache_all, t.cache_none, t.conservative, t.aggressive, t.decided
            );
        }
        for o in &self.other_launches {
            let t = &o.traffic_bytes;
            let grid = o
                .grid_dim
                .map_or(String::new(), |[x, y, z]| format!("grid {x}x{y}x{z}, "));
            let block =
                (o.block_dim).map_or(String::new(), |[x, y, z]| format!("block {x}x{y}x{z}, "));
            let _ = writeln!(
                s,
                "  launch at line {} ({grid}{block}{} blocks on one SM): auto {}, cache-all {}, cache-none {}, conservative {}, aggressive {}, decided {}",
                o.line, o.blocks, t.auto, t.cache_all, t.cache_none, t.conservative, t.aggressive, t.decided
            );
        }
        if !self.followed_calls.is_empty() {
            let _ = writeln!(
                s,
                "  device functions followed into the trace: {}",
                self.followed_calls.join(", ")
            );
        }
        if let Some(r) = &self.robust {
            let _ = writeln!(
                s,
                "  auto over {} scenarios: chose {}; worst {:.3}x the best ({}); hinges on: {}",
                r.scenarios.len(),
                r.chosen,
                r.worst_ratio,
                r.worst_scenario,
                if r.hinges_on.is_empty() {
                    "nothing".to_string()
                } else {
                    r.hinges_on.join(", ")
                }
            );
            if let Some((part, answers)) = r.measured.split_first() {
                let _ = writeln!(s, "  measured on {part}: {}", answers.join(", "));
            }
            if !r.tables.is_empty() {
                let _ = writeln!(
                    s,
                    "  tables: indices the kernel chose into {} taken to stay within what every warp scans there (an assumption, not a scenario: the choice rests on it)",
                    r.tables.join(", ")
                );
            }
            if !r.guessed_rows.is_empty() {
                let _ = writeln!(
                    s,
                    "  rows guessed: {} read as rows of {} elements in turn (bind the real offsets with --kernel-data); the choice hinges on it",
                    r.guessed_rows.join(", "),
                    crate::facts::memory::ROW_GUESS
                        .iter()
                        .map(i64::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        }
    }
}

/// The model's lines of a row of copies: the paper's verdicts and the
/// model's, the row's figures in the kernel (summed over its copies) and,
/// most first, where its hits come from.
fn in_kernel_lines(row: &[&LoadReport]) -> Vec<String> {
    let models: Vec<&LoadModel> = row.iter().filter_map(|l| l.in_kernel.as_ref()).collect();
    let Some(first) = models.first() else {
        return Vec::new();
    };
    let choices: Vec<&String> = models.iter().map(|m| &m.model).collect();
    let model = if choices.iter().all(|c| *c == choices[0]) {
        choices[0].clone()
    } else {
        "mixed across the copies".into()
    };
    let sum = |f: fn(&LoadModel) -> u64| models.iter().map(|m| f(m)).sum::<u64>();
    let mut out = vec![format!(
        "model: {model} (paper: conservative {}, aggressive {}); in the kernel {} sectors, {} hits, {} B from L2",
        first.paper[0],
        first.paper[1],
        sum(|m| m.sectors),
        sum(|m| m.hits),
        sum(|m| m.l2_bytes)
    )];
    out.extend(distinct("hits", models.iter().flat_map(|m| &m.hits_from)));
    out.extend(distinct(
        "would flip under",
        models.iter().flat_map(|m| &m.hinges_on),
    ));
    out
}

/// Most distinct reasons (or notes) a row of copies prints.
const MAX_DISTINCT: usize = 3;

/// The distinct texts of a row's copies, in first-seen order, as `label:`
/// lines; past `MAX_DISTINCT`, one line says how many more the JSON report
/// has.
fn distinct<'a>(label: &str, items: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut seen: HashSet<&String> = HashSet::new();
    let all: Vec<&String> = items.filter(|i| seen.insert(*i)).collect();
    let mut out: Vec<String> = all
        .iter()
        .take(MAX_DISTINCT)
        .map(|t| format!("{label}: {t}"))
        .collect();
    if all.len() > MAX_DISTINCT {
        out.push(format!(
            "{label}: ... and {} more across the copies (the JSON report has each)",
            all.len() - MAX_DISTINCT
        ));
    }
    out
}

/// Groups entries into rows: those of one site whose `class` agrees share
/// a row, placed where the first of them is.
fn rows<T: Located>(entries: &[T], class: impl Fn(&T) -> String) -> Vec<Vec<&T>> {
    let mut out: Vec<Vec<&T>> = Vec::new();
    let mut index: HashMap<(u32, String), usize> = HashMap::new();
    for e in entries {
        let key = (e.site(), class(e));
        match index.get(&key) {
            Some(&i) => out[i].push(e),
            None => {
                index.insert(key, out.len());
                out.push(vec![e]);
            }
        }
    }
    out
}

/// How many entries of the rows' list each site has.
fn per_site<T: Located>(rows: &[Vec<&T>]) -> HashMap<u32, usize> {
    let mut out = HashMap::new();
    for r in rows {
        *out.entry(r[0].site()).or_default() += r.len();
    }
    out
}

impl KernelReport {
    /// The sites whose file, line and column another site of the function
    /// shares (the same source line inlined from two call sites): their
    /// rows say where they were inlined.
    fn ambiguous_sites(&self) -> HashSet<u32> {
        let mut by_place: HashMap<(Option<&str>, u32, u32), Vec<u32>> = HashMap::new();
        let entries = self
            .loads
            .iter()
            .map(|l| (l.key(), l.site))
            .chain(self.skipped.iter().map(|l| (l.key(), l.site)));
        for ((file, line, column, _), site) in entries {
            let sites = by_place.entry((file, line, column)).or_default();
            if !sites.contains(&site) {
                sites.push(site);
            }
        }
        by_place
            .into_values()
            .filter(|s| s.len() > 1)
            .flatten()
            .collect()
    }
}

impl Report {
    /// Numbers every function's source sites (`KernelReport::number_sites`).
    pub fn number_sites(&mut self) {
        for k in &mut self.kernels {
            k.number_sites();
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serializes") + "\n"
    }

    /// Where an entry is, as the text report writes it, with the number of
    /// copies in its row (`x4`) when its site has several in the same list
    /// (`same_list`: so that `x1` says another row has the rest), and the inlining
    /// chain when the file is not the main input or the place alone is
    /// ambiguous.
    fn where_text<T: Located>(
        &self,
        e: &T,
        n: usize,
        same_list: usize,
        ambiguous: &HashSet<u32>,
    ) -> (String, Option<String>) {
        let main = self.source.as_deref();
        let (file, line, column, inlined) = e.key();
        let mut at = place(file, line, column, main);
        if same_list > 1 {
            at.push_str(&format!(" x{n}"));
        }
        let foreign = file.is_some_and(|f| Some(f) != main);
        let inl = (!inlined.is_empty() && (foreign || ambiguous.contains(&e.site())))
            .then(|| chain(inlined, main));
        (at, inl)
    }

    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "gpucc-cache: arch {}, model {}, policy {}, L1 {} B per block",
            self.arch, self.model, self.policy, self.l1_bytes
        );
        if let Some(m) = &self.machine {
            let _ = writeln!(s, "machine: {} ({}, {} SMs)", m.name, m.file, m.sms);
        }
        for w in &self.warnings {
            let _ = writeln!(s, "warning: {w}");
        }
        for k in &self.kernels {
            let [x, y, z] = k.block_dim;
            // The grid only where launches differ: which one the model took.
            let grid = match (k.grid_dim, &k.grid_dim_source) {
                (Some([gx, gy, gz]), Some(from)) if from.contains("different grids") => {
                    format!("; grid {gx}x{gy}x{gz}, {from}")
                }
                _ => String::new(),
            };
            let _ = writeln!(
                s,
                "\n{} {} (block {x}x{y}x{z}, {}{grid}{})",
                k.kind,
                k.name,
                k.block_dim_source,
                if k.sampled_blocks > 1 {
                    format!(", mean of {} blocks", k.sampled_blocks)
                } else {
                    String::new()
                }
            );
            if let Some(m) = &k.simulated {
                m.write_text(&mut s);
            }
            for b in &k.budget {
                let _ = writeln!(
                    s,
                    "  budget: {} ({}) reached{}; decided by {}",
                    b.budget,
                    b.limit,
                    if b.deterministic {
                        ""
                    } else {
                        " (machine-dependent)"
                    },
                    b.fallback
                );
            }
            let ambiguous = k.ambiguous_sites();
            let calls = (k.simulated.as_ref()).is_some_and(|m| !m.followed_calls.is_empty());
            if k.loads.is_empty() && calls {
                let _ = writeln!(
                    s,
                    "  no global loads of its own (those of the device functions it calls are listed under them)"
                );
            } else if k.loads.is_empty() {
                let _ = writeln!(s, "  no global loads");
            } else {
                self.load_table(&mut s, k, &ambiguous);
            }
            let skipped = rows(&k.skipped, |l| l.why.clone());
            let per_site = per_site(&skipped);
            for row in &skipped {
                let (at, inl) =
                    self.where_text(row[0], row.len(), per_site[&row[0].site], &ambiguous);
                let inl = inl.map_or(String::new(), |c| format!(" (inlined at {c})"));
                let _ = writeln!(s, "  left alone at {at}{inl}: {}", row[0].why);
            }
        }
        s
    }

    /// The table of one function's decided loads: one row per group of
    /// copies of one source load that agree on pattern (up to the constant
    /// term), locality, decision and operator.
    fn load_table(&self, s: &mut String, k: &KernelReport, ambiguous: &HashSet<u32>) {
        let groups = rows(&k.loads, |l| {
            format!(
                "{}\n{}\n{}\n{}",
                split_offset(&l.pattern).0,
                l.locality_text(),
                l.decision,
                l.operator
            )
        });
        let mut cells: Vec<[String; 7]> = Vec::new();
        let mut extra: Vec<Vec<String>> = Vec::new();
        let per_site = per_site(&groups);
        for g in &groups {
            let first = g[0];
            let (at, inl) = self.where_text(first, g.len(), per_site[&first.site], ambiguous);
            let patterns: Vec<&str> = g.iter().map(|l| l.pattern.as_str()).collect();
            cells.push([
                at,
                family_pattern(&patterns),
                first.locality_text(),
                span(g.iter().map(|l| l.traffic_on_bytes)),
                span(g.iter().map(|l| l.traffic_off_bytes)),
                first.decision.clone(),
                first.operator.clone(),
            ]);
            let mut lines = distinct("why", g.iter().map(|l| &l.reason));
            lines.extend(in_kernel_lines(g));
            lines.extend(distinct("note", g.iter().flat_map(|l| &l.notes)));
            if let Some(c) = inl {
                lines.push(format!("inlined at {c}"));
            }
            extra.push(lines);
        }
        let header = [
            "line", "pattern", "locality", "on B", "off B", "decision", "operator",
        ];
        let mut w = header.map(str::len);
        for r in &cells {
            for (i, c) in r.iter().enumerate() {
                w[i] = w[i].max(c.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut out = String::from(" ");
            for (i, c) in cells.iter().enumerate() {
                let pad = w[i] - c.chars().count();
                if i == 3 || i == 4 {
                    out.push_str(&format!(" {}{}", " ".repeat(pad), c));
                } else {
                    out.push_str(&format!(" {}{}", c, " ".repeat(pad)));
                }
            }
            out.trim_end().to_string()
        };
        let _ = writeln!(s, "{}", line(&header.map(String::from)));
        for (r, lines) in cells.iter().zip(&extra) {
            let _ = writeln!(s, "{}", line(r));
            for l in lines {
                let _ = writeln!(s, "      {l}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places() {
        let main = Some("/src/k.cu");
        assert_eq!(place(Some("/src/k.cu"), 5, 7, main), "5:7");
        assert_eq!(place(Some("/src/k.cu"), 5, 0, main), "5");
        assert_eq!(place(Some("/src/k.cu"), 0, 0, main), "<no line>");
        assert_eq!(place(None, 0, 0, main), "<no location>");
        assert_eq!(place(Some("/src/inc/h.cuh"), 3, 10, main), "inc/h.cuh:3:10");
        assert_eq!(
            place(Some("/usr/lib/llvm-19/include/m.h"), 84, 10, main),
            "m.h:84:10"
        );
        assert_eq!(place(Some("/usr/m.h"), 0, 0, main), "m.h:<no line>");
        assert_eq!(place(Some("inc/h.cuh"), 3, 1, main), "inc/h.cuh:3:1");
    }

    #[test]
    fn copies_differing_in_the_constant_term_share_a_pattern() {
        assert_eq!(split_offset("a + 4*tid.x - 4"), ("a + 4*tid.x", -4));
        assert_eq!(split_offset("w + 24"), ("w", 24));
        assert_eq!(split_offset("w"), ("w", 0));
        assert_eq!(split_offset("a + 4*(tid.x + 1)"), ("a + 4*(tid.x + 1)", 0));
        assert_eq!(
            split_offset("[a + 16*layer + 4]"),
            ("[a + 16*layer + 4]", 0)
        );
        assert_eq!(family_pattern(&["w", "w", "w"]), "w");
        assert_eq!(family_pattern(&["w", "w + 8", "w + 4"]), "w + {0, 4, 8}");
        assert_eq!(
            family_pattern(&["w + 8", "w", "w + 4", "w + 16", "w + 12"]),
            "w + {0, 4, ..., 16}"
        );
        assert_eq!(
            family_pattern(&["b - 4", "b + 4", "b + 8", "b + 32", "b"]),
            "b + {-4, 0, 4, 8, 32}"
        );
    }

    #[test]
    fn many_distinct_reasons_are_capped() {
        let r: Vec<String> = (0..5).map(|i| format!("r{i}")).collect();
        let out = distinct("why", r.iter().chain(&r));
        assert_eq!(out.len(), 4);
        assert_eq!(out[0], "why: r0");
        assert!(out[3].contains("2 more"), "{out:?}");
    }
}
