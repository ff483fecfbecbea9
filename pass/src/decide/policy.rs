//! Decision rules: from a load's traffic estimate to "cache" or "bypass"
//! (Jia, Shaw, Martonosi, ICS 2012, §5.4; design.md §4).
//!
//! Pure functions of the traffic figures and the L1 capacity a block can
//! count on. Which PTX spells the decision is the generation table's
//! business, not this file's.

use std::fmt;

use crate::facts::traffic::Traffic;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// The kernel-level model's choice (`kernel_model`): each load's
    /// operator minimises the simulated L2→L1 bytes of one SM for the whole
    /// kernel. Per load (a device function, no model), as conservative.
    Auto,
    /// Cache only where the model shows within-block reuse that fits.
    Conservative,
    /// Also cache loads with within-warp locality only, when they fit.
    Aggressive,
    /// Every global load through L1 (what `-Xptxas -dlcm=ca` does).
    CacheAll,
    /// No global load allocates in L1 (what `-Xptxas -dlcm=cg` does).
    CacheNone,
    /// Analyse and report, change nothing.
    Off,
}

pub const POLICY_NAMES: &str = "auto, conservative, aggressive, cache-all, cache-none, off";

impl Policy {
    pub fn parse(s: &str) -> Option<Policy> {
        match s {
            "auto" => Some(Policy::Auto),
            "conservative" => Some(Policy::Conservative),
            "aggressive" => Some(Policy::Aggressive),
            "cache-all" => Some(Policy::CacheAll),
            "cache-none" => Some(Policy::CacheNone),
            "off" => Some(Policy::Off),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Policy::Auto => "auto",
            Policy::Conservative => "conservative",
            Policy::Aggressive => "aggressive",
            Policy::CacheAll => "cache-all",
            Policy::CacheNone => "cache-none",
            Policy::Off => "off",
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Cache,
    Bypass,
    /// Policy `off`: the load keeps whatever the hardware and ptxas default to.
    Default,
}

impl Decision {
    pub fn name(self) -> &'static str {
        match self {
            Decision::Cache => "cache",
            Decision::Bypass => "bypass",
            Decision::Default => "default",
        }
    }
}

/// A decision and the rule that produced it, in words for the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub decision: Decision,
    pub reason: String,
}

fn verdict(decision: Decision, reason: impl Into<String>) -> Verdict {
    Verdict {
        decision,
        reason: reason.into(),
    }
}

/// Applies the policy to one load's traffic. `capacity` is the L1 bytes
/// available to one block.
pub fn decide(policy: Policy, traffic: &Traffic, capacity: u64) -> Verdict {
    match policy {
        Policy::Off => {
            return verdict(
                Decision::Default,
                "policy off: left to the hardware default",
            )
        }
        Policy::CacheAll => return verdict(Decision::Cache, "policy cache-all"),
        Policy::CacheNone => return verdict(Decision::Bypass, "policy cache-none"),
        Policy::Auto | Policy::Conservative | Policy::Aggressive => {}
    }
    let (on, off) = (traffic.on_bytes, traffic.off_bytes);
    // Rule 4: an address the analysis cannot compute is assumed scattered.
    if !traffic.analyzable {
        return verdict(Decision::Bypass, "rule 4: address not analyzable");
    }
    if on < off {
        // Rule 2: within-block reuse; cache it unless it would thrash.
        if on <= capacity {
            verdict(
                Decision::Cache,
                format!("rule 2: on {on} B < off {off} B and fits in L1 ({capacity} B)"),
            )
        } else {
            verdict(
                Decision::Bypass,
                format!("rule 2: footprint {on} B exceeds L1 ({capacity} B)"),
            )
        }
    } else if on == off {
        // Rule 1: only within-warp locality, which coalescing already captures.
        if on > capacity {
            verdict(
                Decision::Bypass,
                format!("rule 1: on = off = {on} B exceeds L1 ({capacity} B)"),
            )
        } else if policy == Policy::Aggressive {
            verdict(
                Decision::Cache,
                format!("rule 1: on = off = {on} B, fits; aggressive caches"),
            )
        } else {
            verdict(
                Decision::Bypass,
                format!("rule 1: on = off = {on} B; no gain from L1, conservative bypasses"),
            )
        }
    } else {
        // Rule 3: caching would fetch more than it saves.
        verdict(
            Decision::Bypass,
            format!("rule 3: on {on} B > off {off} B (scattered)"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(on: u64, off: u64, analyzable: bool) -> Traffic {
        Traffic {
            on_bytes: on,
            off_bytes: off,
            analyzable,
            ..Traffic::default()
        }
    }

    #[test]
    fn the_four_rules() {
        let cap = 16 * 1024;
        for p in [Policy::Conservative, Policy::Aggressive] {
            assert_eq!(
                decide(p, &t(128, 512, true), cap).decision,
                Decision::Cache,
                "rule 2 fits"
            );
            assert_eq!(
                decide(p, &t(32768, 65536, true), cap).decision,
                Decision::Bypass,
                "rule 2 thrash"
            );
            assert_eq!(
                decide(p, &t(4096, 1024, true), cap).decision,
                Decision::Bypass,
                "rule 3"
            );
            assert_eq!(
                decide(p, &t(65536, 16384, false), cap).decision,
                Decision::Bypass,
                "rule 4"
            );
            assert_eq!(
                decide(p, &t(32768, 32768, true), cap).decision,
                Decision::Bypass,
                "rule 1 big"
            );
        }
        assert_eq!(
            decide(Policy::Conservative, &t(2048, 2048, true), cap).decision,
            Decision::Bypass
        );
        assert_eq!(
            decide(Policy::Aggressive, &t(2048, 2048, true), cap).decision,
            Decision::Cache
        );
        assert_eq!(
            decide(Policy::CacheAll, &t(1, 2, false), cap).decision,
            Decision::Cache
        );
        assert_eq!(
            decide(Policy::CacheNone, &t(1, 2, true), cap).decision,
            Decision::Bypass
        );
        assert_eq!(
            decide(Policy::Off, &t(1, 2, true), cap).decision,
            Decision::Default
        );
    }
}
