//! Decisions for the loads of device functions that calling kernels' models
//! follow into (issue 19): `__noinline__` functions, and any the inliner
//! kept. A kernel's trace splices the callee's blocks in at each call site
//! (`model::control`), so its model weighs the callee's loads with its own;
//! but one PTX instruction takes one cache operator for every caller. So
//! each kernel that follows every call into the function proposes a
//! verdict for the loads its trace runs, and `combine` weighs them against
//! the callers that gave no evidence (see there); where no kernel model
//! decides, the load keeps its per-load verdict (the paper's rules, as
//! `auto` reads them without a kernel-level model), and the report says
//! why.
//!
//! Pure data: which kernels call what, and what their models said, come
//! from the analysis; no IR is read here.

use crate::decide::policy::Decision;
use crate::llvm::ir::Value;
use crate::report::LoadModel;

/// A load of a device function that a kernel's model may decide: the
/// report entry of its function's unit, its paper verdicts (conservative,
/// aggressive) and, where the build emits it whatever the model says (a
/// forced decision, a policy other than `auto`), that decision.
#[derive(Clone, Debug)]
pub struct CalleeLoad {
    pub function: Value,
    /// The analysis' unit of `function`, and the load's entry in its report.
    pub unit: usize,
    pub entry: usize,
    pub load: Value,
    pub paper: [Decision; 2],
    pub emitted: Option<Decision>,
}

/// One kernel model's verdict on a callee load it ran.
#[derive(Clone, Debug)]
pub struct Proposal {
    /// The kernel, as the report names it.
    pub kernel: String,
    pub cache: bool,
    /// The load's figures in that kernel's trace.
    pub model: LoadModel,
    /// Why, as the model says it for a kernel's own load (`auto: ...`).
    pub reason: String,
    /// The kernel's L2->L1 bytes under its choice and with this load alone
    /// flipped (nominal scenario), where the model priced it.
    pub flip: Option<(u64, u64)>,
}

/// A kernel that can reach a device function through calls, and whether
/// its model followed every call into it.
#[derive(Clone, Debug)]
pub struct Caller {
    pub kernel: String,
    pub followed: bool,
    /// No budget cut its trace short.
    pub whole: bool,
}

/// What the kernels' verdicts on one callee load come to.
#[derive(Clone, Debug, PartialEq)]
pub enum Combined {
    /// Every kernel that ran it wants `cache`; the first one's figures.
    Agreed {
        cache: bool,
        reason: String,
        model: Box<LoadModel>,
    },
    /// No decision from the models; why, for the load's notes.
    Kept(String),
    /// Every calling kernel's whole trace follows the function, and no
    /// thread of any runs the load: no verdict, left at the default; why.
    Unexecuted(String),
}

/// Combines the proposals for one load of a device function that
/// `callers` can reach; `external`: other translation units may call it
/// (relocatable device code, external linkage). A proposal counts only from
/// a caller that follows every call into the function (`Caller::followed`).
///
/// - No kernel ran it: where every caller's whole trace follows the
///   function, it is left at the default (no evidence, as for a kernel's
///   own load no evaluated thread runs); otherwise nothing changes (`None`).
/// - Some callers ran it and others did not (a sampled trace that missed
///   it, a call not followed): those may reuse its data in ways nobody saw,
///   and a bypass could cost them their whole reuse, while caching costs the
///   kernels that ran it at most their priced ratio, so it is cached.
/// - Every caller ran it: where they agree, theirs; where they disagree,
///   each kernel's price of its own choice against that load alone flipped
///   (`Proposal::flip`) decides: the verdict with the least worst ratio
///   wins, a tie or a missing price caching (a wrong bypass can cost a
///   kernel its whole reuse; on sector-fill parts a cached load never
///   fetches more).
pub fn combine(callers: &[Caller], proposals: &[Proposal], external: bool) -> Option<Combined> {
    let unseen: Vec<&Caller> = (callers.iter())
        .filter(|c| !proposals.iter().any(|p| p.kernel == c.kernel))
        .collect();
    let Some(first) = proposals.first() else {
        let seen =
            !external && !callers.is_empty() && callers.iter().all(|c| c.followed && c.whole);
        return seen.then(|| {
            Combined::Unexecuted(format!(
                "no thread of the trace{} of {} runs it (its function followed at every call): no \
                 evidence, left at the default",
                if callers.len() == 1 { "" } else { "s" },
                names(callers.iter().map(|c| c.kernel.as_str()))
            ))
        });
    };
    if external {
        return Some(Combined::Kept(
            "other translation units may call its function (relocatable device code): the \
             calling kernels' models do not decide it; kept the per-load verdict"
                .into(),
        ));
    }
    let says = names(
        proposals
            .iter()
            .map(|p| format!("{} {}", p.kernel, verb(p.cache))),
    );
    let priced = |cache| {
        worst(proposals, cache)
            .map(|w| format!("{w:.3}x"))
            .unwrap_or_else(|| "an unpriced ratio".into())
    };
    let cached = |reason: String| {
        let model = (proposals.iter())
            .find(|p| p.cache)
            .map_or(&first.model, |p| &p.model);
        Some(Combined::Agreed {
            cache: true,
            reason,
            model: Box::new(model.clone()),
        })
    };
    if !unseen.is_empty() {
        let why = |c: &&Caller| {
            if c.followed {
                format!("{} (its trace does not run it)", c.kernel)
            } else {
                format!(
                    "{} (its model does not follow every call into it)",
                    c.kernel
                )
            }
        };
        return cached(format!(
            "auto: cache: kernel{} {} reach{} its function with no evidence of its reuse, which a \
             bypass could cost whole; the kernels that run it ({says}) pay at most {} their own \
             choice's L2->L1 bytes for caching it",
            if unseen.len() == 1 { "" } else { "s" },
            names(unseen.iter().map(why)),
            if unseen.len() == 1 { "es" } else { "" },
            priced(true)
        ));
    }
    if proposals.iter().any(|p| p.cache != first.cache) {
        let (Some(cache_cost), Some(bypass_cost)) =
            (worst(proposals, true), worst(proposals, false))
        else {
            return cached(format!(
                "auto: cache: the kernels that run it disagree ({says}) and not every one priced \
                 the other verdict; a wrong bypass can cost a kernel its whole reuse"
            ));
        };
        let cache = cache_cost <= bypass_cost;
        let model = (proposals.iter())
            .find(|p| p.cache == cache)
            .map_or(&first.model, |p| &p.model);
        return Some(Combined::Agreed {
            cache,
            reason: format!(
                "auto: {}: the kernels that run it disagree ({says}); in their nominal scenarios \
                 caching costs each at most {cache_cost:.3}x the L2->L1 bytes of its own choice, \
                 bypassing {bypass_cost:.3}x",
                if cache { "cache" } else { "bypass" },
            ),
            model: Box::new(model.clone()),
        });
    }
    let why = first.reason.strip_prefix("auto: ").unwrap_or(&first.reason);
    Some(Combined::Agreed {
        cache: first.cache,
        reason: format!(
            "auto, followed from kernel{} {} into its function: {why}",
            if proposals.len() == 1 { "" } else { "s" },
            names(proposals.iter().map(|p| p.kernel.as_str()))
        ),
        model: Box::new(first.model.clone()),
    })
}

/// `a, b, c`.
fn names<S: AsRef<str>>(items: impl Iterator<Item = S>) -> String {
    items
        .map(|s| s.as_ref().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The largest ratio, over the kernels, of their bytes with the load
/// cached (`cache`) or bypassed to their bytes under their own choice;
/// `None` where some kernel did not price the flip.
fn worst(proposals: &[Proposal], cache: bool) -> Option<f64> {
    proposals.iter().try_fold(0.0f64, |w, p| {
        let (chosen, flipped) = p.flip?;
        let bytes = if p.cache == cache { chosen } else { flipped };
        Some(w.max(bytes as f64 / chosen.max(1) as f64))
    })
}

fn verb(cache: bool) -> &'static str {
    if cache {
        "caches it"
    } else {
        "bypasses it"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proposal(kernel: &str, cache: bool) -> Proposal {
        Proposal {
            kernel: kernel.into(),
            cache,
            model: LoadModel::default(),
            reason: format!("auto: {} because", if cache { "cache" } else { "bypass" }),
            flip: None,
        }
    }

    fn caller(kernel: &str, followed: bool) -> Caller {
        Caller {
            kernel: kernel.into(),
            followed,
            whole: true,
        }
    }

    #[test]
    fn kernels_that_agree_decide_and_are_named() {
        let c = combine(
            &[caller("a", true), caller("b", true)],
            &[proposal("a", false), proposal("b", false)],
            false,
        );
        let Some(Combined::Agreed { cache, reason, .. }) = c else {
            panic!("{c:?}");
        };
        assert!(!cache);
        assert_eq!(
            reason,
            "auto, followed from kernels a, b into its function: bypass because"
        );
    }

    #[test]
    fn unpriced_disagreement_and_callers_without_evidence_cache() {
        let both = [caller("a", true), caller("b", true)];
        let split = [proposal("a", true), proposal("b", false)];
        let Some(Combined::Agreed { cache, reason, .. }) = combine(&both, &split, false) else {
            panic!()
        };
        assert!(cache);
        assert!(reason.contains("a caches it, b bypasses it"), "{reason}");
        // b reaches the function but did not follow every call into it, or
        // followed it and its (sampled) trace never ran the load: a's
        // bypass (a read-once stream, flip priced at 1x) is not evidence for
        // b, whose reuse nobody saw.
        let mut stream = proposal("a", false);
        stream.flip = Some((8192, 8192));
        for b in [caller("b", false), caller("b", true)] {
            let c = combine(&[caller("a", true), b], &[stream.clone()], false);
            let Some(Combined::Agreed { cache, reason, .. }) = c else {
                panic!("{c:?}")
            };
            assert!(cache);
            assert!(
                reason.starts_with("auto: cache: kernel b (its "),
                "{reason}"
            );
            assert!(reason.contains("pay at most 1.000x"), "{reason}");
        }
        // Other translation units may call it: the models do not decide.
        assert!(matches!(
            combine(&both[..1], &[proposal("a", true)], true),
            Some(Combined::Kept(_))
        ));
    }

    #[test]
    fn a_load_no_followed_trace_runs_has_no_verdict() {
        let both = [caller("a", true), caller("b", true)];
        let Some(Combined::Unexecuted(why)) = combine(&both, &[], false) else {
            panic!()
        };
        assert!(
            why.starts_with("no thread of the traces of a, b runs it"),
            "{why}"
        );
        // A caller that did not follow it, or whose trace a budget cut,
        // may have missed it; other units may run it: nothing to say.
        assert_eq!(
            combine(&[caller("a", true), caller("b", false)], &[], false),
            None
        );
        let mut cut = caller("a", true);
        cut.whole = false;
        assert_eq!(combine(&[cut], &[], false), None);
        assert_eq!(combine(&both, &[], true), None);
        assert_eq!(combine(&[], &[], false), None);
    }

    #[test]
    fn priced_disagreement_takes_the_least_worst_ratio() {
        // a: a table read by every warp, 64 B cached, 16,384 B if its one
        // load were bypassed; b: a stream read once, 8,192 B either way.
        // Caching costs a 1x and b 1x; bypassing costs a 256x.
        let both = [caller("a", true), caller("b", true)];
        let mut a = proposal("a", true);
        a.flip = Some((64, 16_384));
        let mut b = proposal("b", false);
        b.flip = Some((8192, 8192));
        let Some(Combined::Agreed { cache, reason, .. }) = combine(&both, &[a.clone(), b], false)
        else {
            panic!()
        };
        assert!(cache);
        assert!(
            reason.contains("caching costs each at most 1.000x"),
            "{reason}"
        );
        assert!(reason.contains("bypassing 256.000x"), "{reason}");
        // b's bypass saving 2x of its bytes against a's 1.5x for caching:
        // a's worst case (1.5x under bypass) is below b's (2x under cache).
        let mut b = proposal("b", false);
        b.flip = Some((1000, 2000));
        a.flip = Some((1000, 1500));
        let Some(Combined::Agreed { cache, .. }) = combine(&both, &[a, b], false) else {
            panic!()
        };
        assert!(!cache);
    }
}
