//! Every thread's address of one load in one block (`block_accesses`),
//! evaluated through a tape (`tape`) with `evaluate`'s values, and how
//! block-uniform unknowns entered them (`Shift`): what the per-load walk
//! counts the paper's traffic from.

use crate::facts::address::E;
use crate::facts::evaluate::{eval_cond, thread_coords, Env, Standin};
use crate::facts::geometry::Dim3;
use crate::facts::guards::Guard;
use crate::facts::tape::{Rows, Tape};
use crate::facts::traffic::Access;

/// How block-uniform unknowns entered one block's addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shift {
    /// There are none, or no thread executes the load.
    None,
    /// They move the whole footprint by one amount: traffic exact up to its
    /// alignment.
    Uniform,
    /// They change addresses differently per thread (a stride, a divisor):
    /// the addresses are unknown.
    PerThread,
}

/// What every thread of one block does at a load, in linear thread order.
/// An address with block-uniform unknowns (`symbolic`) is evaluated at two
/// stand-ins (see [`Standin`]).
pub fn block_accesses(
    address: &E,
    guards: &[Guard],
    block: Dim3,
    env: &mut Env,
    symbolic: bool,
) -> (Vec<Access>, Shift) {
    let mut out = Vec::with_capacity(block.count() as usize);
    let mut delta: Option<Option<i64>> = None;
    let mut per_thread = false;
    let tape = Tape::of(address);
    let mut values = Rows::default();
    for t in thread_coords(block) {
        env.tid = t;
        env.standin = Standin::Absent;
        let runs = guards
            .iter()
            .all(|g| eval_cond(&g.cond, env).is_none_or(|v| v == g.expect));
        if !runs {
            out.push(Access::Inactive);
            continue;
        }
        env.standin = Standin::Low;
        let low = tape.eval(env, &mut values);
        if symbolic {
            env.standin = Standin::High;
            let high = tape.eval(env, &mut values);
            let d = low.zip(high).map(|(l, h)| h.wrapping_sub(l));
            per_thread |= d.is_none() || *delta.get_or_insert(d) != d;
        }
        out.push(match low {
            Some(a) => Access::At(a as u64),
            None => Access::Unknown,
        });
    }
    env.standin = Standin::Absent;
    if per_thread {
        for a in &mut out {
            if *a != Access::Inactive {
                *a = Access::Unknown;
            }
        }
        return (out, Shift::PerThread);
    }
    let shift = if symbolic && delta.is_some() {
        Shift::Uniform
    } else {
        Shift::None
    };
    (out, shift)
}
