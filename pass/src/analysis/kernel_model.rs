//! The kernel-level model's part of the analysis (issues 7 and 19):
//! running `model::sm_model` on a kernel whose loads the per-load walk has
//! evaluated, putting its figures and `auto`'s choices in the report, and
//! the verdicts on device-function loads that kernels' models follow into
//! (`decide::callees`). Moved out of `analysis.rs` as it was, so that the
//! per-load walk and the whole-kernel step each read as a file of their own.

use super::*;
use crate::model::sm_model::Variant;

/// What a kernel's model shares with the module: the budget, the loads of
/// device functions it may follow into, and its verdicts on those.
pub(super) struct ModelScope<'m> {
    pub(super) budget: &'m mut ModuleBudget,
    pub(super) callees: &'m [CalleeLoad],
    /// Device functions that more than one kernel reaches.
    pub(super) shared: &'m HashSet<Value>,
    /// What the kernel reaches through calls (`reachable`).
    pub(super) reaches: &'m HashSet<Value>,
    /// The unit of the kernel being modelled.
    pub(super) unit: usize,
    /// (index in `callees`, kernel unit, verdict)
    pub(super) proposals: &'m mut Vec<(usize, usize, Proposal)>,
}

impl Walk<'_> {
    /// Runs the kernel-level model (`sm_model`) and puts its figures in the
    /// report; under `auto`, its choices replace the per-load verdicts of
    /// the loads those gave one (a load left at the default stays there).
    pub(super) fn model_kernel(
        &self,
        out: &mut UnitResult,
        scope: ModelScope,
        warnings: &mut Vec<String>,
    ) {
        let ModelScope {
            budget,
            callees,
            shared,
            unit,
            proposals,
            ..
        } = scope;
        let set = self.set;
        let grant = match budget.grant() {
            Ok(g) => g,
            Err(hit) => {
                out.report.budget.push(hit);
                return;
            }
        };
        // Launches that give two pointer parameters one allocation, or one
        // a place inside it, break what every figure of the model assumes;
        // read once, which claims that nothing else reads a load's lines,
        // is not claimed for loads through those parameters.
        let symbol = self.unit.function.name();
        let overlaps: Vec<_> = (set.opts.launch_overlaps.iter())
            .filter(|o| names_kernel(&symbol, &o.kernel))
            .collect();
        let mut sites: Vec<(Option<&str>, u32)> = overlaps
            .iter()
            .map(|o| (o.file.as_deref(), o.line))
            .collect();
        sites.sort_unstable();
        sites.dedup();
        for (file, line) in sites {
            // Each reason once (an unrolled launch repeats them), in order.
            let mut why: Vec<&str> = Vec::new();
            for o in overlaps
                .iter()
                .filter(|o| (o.file.as_deref(), o.line) == (file, line))
            {
                if !why.contains(&o.why.as_str()) {
                    why.push(&o.why);
                }
            }
            let launch = match (file, line) {
                (_, 0) => "a launch (no line: the host code has no line tables)".to_string(),
                (Some(f), l) => format!("the launch at {f}:{l}"),
                (None, l) => format!("the launch at line {l}"),
            };
            warnings.push(format!(
                "{}: {launch} passes pointers the model cannot tell apart ({}); it assumes \
                 distinct allocations, each 256-byte aligned, so no load through them is read \
                 once and its figures may be off",
                out.report.name,
                why.join("; ")
            ));
        }
        let mut overlapping: Vec<u32> = overlaps.iter().flat_map(|o| o.params.clone()).collect();
        overlapping.sort_unstable();
        overlapping.dedup();
        // The loads of device functions the trace may follow into, as
        // entries after the kernel's own (`decide::callees`).
        let own = out.report.loads.len();
        let auto = set.opts.policy == Policy::Auto;
        let mut traced = out.traced.clone();
        let mut emitted = emitted_decisions(out, auto);
        for (k, c) in callees.iter().enumerate() {
            traced.push((
                TracedLoad {
                    load: c.load,
                    entry: own + k,
                },
                c.paper,
            ));
            if let Some(d) = c.emitted {
                emitted.insert(own + k, d);
            }
        }
        let inputs = KernelInputs {
            function: self.unit.function,
            overlapping_params: overlapping,
            scope: Scope {
                layout: &set.layout,
                globals: &set.globals,
                kernels: &set.kernel_fns,
                whole_program: set.opts.whole_program,
            },
            arch: set.arch,
            hardware: &set.hardware,
            machine: set.opts.machine.is_some(),
            bypass: set.arch.bypass_op(set.ptx),
            model: set.model,
            emitted,
            auto,
            block: self.unit.block,
            grid: self.unit.grid,
            args: self.args.clone(),
            variants: (self.variants.iter())
                .map(|v| Variant {
                    line: v.line,
                    args: v.args.clone(),
                    grid: v.grid,
                    block: v.block,
                })
                .collect(),
            memory: self.memory.clone(),
            extents: (set.opts.launch_extents.iter())
                .filter(|e| names_kernel(&symbol, &e.kernel))
                .map(|e| (e.index, e.before, e.bytes))
                .collect(),
            loads: &traced,
            static_shared_bytes: static_shared_bytes(self.unit.function, &set.layout),
            registers: set.opts.registers_of(&self.unit.function.name()),
            grant,
            weigh_flips: (callees.iter().enumerate())
                .filter(|(_, c)| shared.contains(&c.function))
                .map(|(k, _)| own + k)
                .collect(),
        };
        let result = match simulate(&inputs) {
            Ok(r) => r,
            Err(NoModel::Error(e)) => {
                warnings.push(format!("{}: no kernel-level model: {e}", out.report.name));
                return;
            }
            Err(NoModel::Budget(hit)) => {
                out.report.budget.push(hit);
                return;
            }
        };
        budget.charge(result.spent);
        out.report.budget.extend(result.budget);
        out.followed = result.followed;
        out.unfollowed = result.unfollowed;
        let robust = result.simulated.robust.as_ref().map(|r| r.scenarios.len());
        out.report.simulated = Some(result.simulated);
        if set.keep_traces {
            out.trace = Some(result.trace);
        }
        // In report order: a load the per-load verdict left at the default
        // joins `decided` here, and the remarks follow that order.
        let mut loads: Vec<_> = result.loads.into_iter().collect();
        loads.sort_unstable_by_key(|(entry, _)| *entry);
        for (entry, (model, cache)) in loads {
            if entry >= own {
                let reason = model_reason(model.read_once, robust, cache);
                let flip = result.flips.get(&entry).map(|f| (f.chosen, f.flipped));
                proposals.push((
                    entry - own,
                    unit,
                    Proposal {
                        kernel: out.report.name.clone(),
                        cache,
                        model,
                        reason,
                        flip,
                    },
                ));
                continue;
            }
            let model_read_once = model.read_once;
            out.report.loads[entry].notes.extend(model_notes(&model));
            out.report.loads[entry].in_kernel = Some(model);
            // Under auto the model's choice stands for every load it saw
            // executed (`result.loads` holds only those), also where the
            // paper's sampled block ran no thread of the load; a forced
            // decision stands over it.
            if !auto || out.forced.contains(&entry) {
                continue;
            }
            let decision = if cache {
                Decision::Cache
            } else {
                Decision::Bypass
            };
            let Some(load) = (out.traced.iter())
                .find(|t| t.0.entry == entry)
                .map(|t| t.0.load)
            else {
                continue;
            };
            let reason = model_reason(model_read_once, robust, cache);
            set.set_decision(out, entry, load, decision, reason);
        }
    }
}

/// Bytes of the `__shared__` variables `function` uses (directly or
/// through constant expressions): its static shared memory.
fn static_shared_bytes(function: Value, layout: &crate::llvm::ir::DataLayout) -> u64 {
    let module = function.module();
    let uses = |v: Value| {
        v.users().into_iter().any(|u| {
            if u.is_instruction() {
                u.parent_function() == function
            } else {
                u.users()
                    .into_iter()
                    .any(|w| w.is_instruction() && w.parent_function() == function)
            }
        })
    };
    module
        .globals()
        .into_iter()
        .filter(|g| g.ty().address_space() == 3 && !g.is_declaration() && uses(*g))
        .map(|g| layout.alloc_size(g.global_value_type()))
        .sum()
}

/// What a load's figures in the kernel (`LoadModel`) add to its notes: an
/// address spread over a bounded range, a merge into another's vector load.
fn model_notes(model: &crate::report::LoadModel) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(span) = model.unknown_within {
        notes.push(if model.in_allocation {
            format!(
                "address unknown but within the {span}-byte allocation the host launch passes \
                 (an access outside it would be undefined); modelled as spread uniformly over it"
            )
        } else {
            format!(
                "address unknown but within a {span}-byte range; modelled as spread uniformly over it"
            )
        });
    }
    if let Some(site) = &model.merged_into {
        notes.push(format!(
            "merged by the backend into one vector load with the load at {site}: its traffic is counted there, and it takes that load's decision"
        ));
    }
    notes
}

/// Why the kernel-level model decided a load as it did (`cache`), as the
/// report says it; `robust`: over how many scenarios, if it weighed them.
fn model_reason(read_once: bool, robust: Option<usize>, cache: bool) -> String {
    let decision = if cache {
        Decision::Cache
    } else {
        Decision::Bypass
    };
    match robust {
        _ if read_once => "auto: bypass: no other access of the kernel's trace reads \
            its lines (no other load, warp or iteration), so caching it cannot hit under any \
            warp order or L1 size; bypassing keeps them out of L1"
            .to_string(),
        Some(n) => format!(
            "auto: {} in the assignment with the least worst-case regret in simulated \
             L2->L1 traffic over {n} hardware scenarios",
            decision.name()
        ),
        None => format!(
            "auto: {} gives the least simulated L2->L1 traffic for the kernel",
            decision.name()
        ),
    }
}

/// The functions defined in the module that `f` reaches through direct
/// calls (those a kernel's trace may follow: `model::control`).
pub(super) fn reachable(f: Value) -> HashSet<Value> {
    let mut seen = HashSet::new();
    let mut work = vec![f];
    while let Some(g) = work.pop() {
        for call in g.instructions() {
            if call.opcode() != Some(Opcode::LLVMCall) {
                continue;
            }
            let callee = call.called_value();
            if callee.is_function() && !callee.is_declaration() && seen.insert(callee) {
                work.push(callee);
            }
        }
    }
    seen
}

/// Under `auto`, gives each device-function load the verdict the models of
/// the kernels that call its function come to (`decide::callees`), or says
/// why it keeps its per-load verdict. Then a kernel whose `decided` figure
/// assumed another verdict for such a load is corrected (by its price of
/// that one flip) or warned about.
pub(super) fn decide_callees(
    set: &Setting,
    units: &[Unit],
    results: &mut [Option<UnitResult>],
    callees: &[CalleeLoad],
    proposals: &[(usize, usize, Proposal)],
    reaches: &HashMap<Value, HashSet<Value>>,
    warnings: &mut [Vec<String>],
) {
    // Each analysed kernel with what it reaches, what its model followed,
    // and the functions some call of its leaves a call.
    struct Reach<'r> {
        unit: usize,
        caller: Caller,
        reaches: &'r HashSet<Value>,
        followed: &'r [Value],
        /// The functions some call it leaves a call reaches, and what
        /// they reach.
        unseen: HashSet<Value>,
    }
    let kernels: Vec<Reach> = (units.iter().zip(results.iter()).enumerate())
        .filter(|(_, (u, _))| u.is_kernel)
        .filter_map(|(unit, (u, r))| {
            let r = r.as_ref()?;
            let whole = (r.report.simulated.as_ref()).is_some_and(|s| s.truncated.is_none())
                && r.report.budget.is_empty();
            Some(Reach {
                unit,
                caller: Caller {
                    kernel: r.report.name.clone(),
                    followed: false,
                    whole,
                },
                reaches: reaches.get(&u.function)?,
                followed: &r.followed,
                unseen: (r.unfollowed.iter())
                    .flat_map(|&g| std::iter::once(g).chain(reachable(g)))
                    .collect(),
            })
        })
        .collect();
    // Whether a kernel follows every call into `f`: it spliced `f` in, and
    // no call it left a call leads to `f`.
    let follows_all = |k: &Reach, f: Value| k.followed.contains(&f) && !k.unseen.contains(&f);
    let callers_of: Vec<Vec<(usize, Caller)>> = (callees.iter())
        .map(|c| {
            (kernels.iter())
                .filter(|k| k.reaches.contains(&c.function))
                .map(|k| {
                    let caller = Caller {
                        followed: follows_all(k, c.function),
                        ..k.caller.clone()
                    };
                    (k.unit, caller)
                })
                .collect()
        })
        .collect();
    drop(kernels);
    // The verdict each callee load is emitted with, where not forced.
    let mut emitted: HashMap<usize, bool> = HashMap::new();
    let allocates = set.hardware.global_loads == GlobalLoads::L1ByDefault;
    for (k, c) in callees.iter().enumerate() {
        let Some(out) = results[c.unit].as_mut() else {
            continue;
        };
        if out.forced.contains(&c.entry) {
            continue;
        }
        let callers: Vec<Caller> = callers_of[k].iter().map(|(_, c)| c.clone()).collect();
        // Only a kernel that follows every call into the function speaks
        // for the load.
        let mine: Vec<Proposal> = (proposals.iter())
            .filter(|(i, unit, _)| {
                *i == k && callers_of[k].iter().any(|(u, c)| u == unit && c.followed)
            })
            .map(|(_, _, p)| p.clone())
            .collect();
        let external = !set.opts.whole_program && !c.function.has_local_linkage();
        match combine(&callers, &mine, external) {
            None => {}
            Some(Combined::Kept(why)) => out.report.loads[c.entry].notes.push(why),
            Some(Combined::Unexecuted(why)) => {
                set.set_decision(out, c.entry, c.load, Decision::Default, why)
            }
            Some(Combined::Agreed {
                cache,
                reason,
                model,
            }) => {
                let report = &mut out.report.loads[c.entry];
                report.notes.extend(model_notes(&model));
                report.in_kernel = Some(*model);
                let decision = if cache {
                    Decision::Cache
                } else {
                    Decision::Bypass
                };
                set.set_decision(out, c.entry, c.load, decision, reason);
            }
        }
        let decision = match out.report.loads[c.entry].decision.as_str() {
            "cache" => true,
            "bypass" => false,
            _ => allocates,
        };
        emitted.insert(k, decision);
    }
    // Kernels whose `decided` figure assumed their own choice for a callee
    // load that is emitted otherwise.
    for (unit, result) in results.iter_mut().enumerate() {
        let Some(out) = result.as_mut() else {
            continue;
        };
        let differ: Vec<&(usize, usize, Proposal)> = (proposals.iter())
            .filter(|(k, u, p)| *u == unit && emitted.get(k).is_some_and(|&e| e != p.cache))
            .collect();
        let Some(simulated) = out.report.simulated.as_mut() else {
            continue;
        };
        // The launch estimate was simulated with the kernel's own choice:
        // its `decided` would not be what the module emits.
        if !differ.is_empty() {
            simulated.launch = None;
        }
        match differ.as_slice() {
            [] => {}
            [(_, _, p)] if p.flip.is_some() => {
                simulated.traffic_bytes.decided = p.flip.map_or(0, |f| f.1);
            }
            _ => warnings[unit].push(format!(
                "{}: its 'decided' L2->L1 bytes assume its own verdicts on {} device-function \
                 load{} that the module emits otherwise (other kernels calling the same function \
                 weighed in)",
                out.report.name,
                differ.len(),
                if differ.len() == 1 { "" } else { "s" }
            )),
        }
    }
}

/// The decisions the build emits that the model cannot change: forced
/// ones, and under a policy other than `auto` every load's, by report
/// entry. Under `auto` the model's choices fill in the rest.
pub(super) fn emitted_decisions(out: &UnitResult, auto: bool) -> HashMap<usize, Decision> {
    let decision = |load: Value| {
        (out.keyed.iter())
            .find(|(v, _)| *v == load)
            .map_or(Decision::Default, |(_, k)| k.decision)
    };
    (out.entry_loads.iter().enumerate())
        .filter(|(i, _)| !auto || out.forced.contains(i))
        .map(|(i, &load)| (i, decision(load)))
        .collect()
}
