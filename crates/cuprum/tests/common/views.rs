//! A host model of strided memory, written independently of the library (C-order strides
//! and indices, where each element of a view lives in its base buffer), and the random
//! views of the property tests: a base of host-known values → slice (steps, negative
//! steps) → permute (→ broadcast), built on the GPU and in the host model alike.

use super::{Rng, dev, rand_f64};
use cuprum::{Array, SliceArg};
use proptest::prelude::*;

/// Row-major element strides of `shape`.
pub fn c_strides(shape: &[usize]) -> Vec<usize> {
    let mut st = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        st[i] = st[i + 1] * shape[i + 1];
    }
    st
}

/// The multi-index of C-order position `flat` in `shape`.
pub fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut mi = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        mi[d] = flat % shape[d];
        flat /= shape[d];
    }
    mi
}

/// Every multi-index of `shape` in C order (one empty index for a 0-d shape).
pub fn c_order(shape: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = shape.iter().product();
    (0..n).map(|flat| unravel(flat, shape)).collect()
}

/// The host's own model of a strided view: where each element lives in its base buffer.
#[derive(Debug, Clone)]
pub struct Model {
    pub offset: isize,
    pub shape: Vec<usize>,
    pub strides: Vec<isize>,
}

impl Model {
    pub fn contiguous(shape: &[usize]) -> Model {
        let mut strides = vec![0isize; shape.len()];
        let mut acc = 1isize;
        for d in (0..shape.len()).rev() {
            strides[d] = acc;
            acc *= shape[d] as isize;
        }
        Model {
            offset: 0,
            shape: shape.to_vec(),
            strides,
        }
    }

    /// Buffer position of the element at loop index `idx`, the view broadcast (NumPy rules)
    /// to a loop of `idx.len()` dimensions.
    pub fn pos(&self, idx: &[usize]) -> usize {
        let lead = idx.len() - self.shape.len();
        let mut p = self.offset;
        for k in 0..self.shape.len() {
            if self.shape[k] != 1 {
                p += idx[lead + k] as isize * self.strides[k];
            }
        }
        usize::try_from(p).expect("model position inside the base")
    }
}

/// How one axis of a view is sliced out of its base: step, distance of the first element
/// from the edge, and extra base elements past the last one.
#[derive(Debug, Clone)]
pub struct AxisRecipe {
    pub step: isize,
    pub pad: usize,
    pub extra: usize,
}

/// How an operand is made: leading axes of the full (loop) shape it lacks, axes of extent
/// 1 (broadcast), the slicing of each of its axes, a permutation of its axes (from a
/// seed), and whether it is broadcast to the full shape explicitly (stride-0 view) before
/// the call.
#[derive(Debug, Clone)]
pub struct ViewRecipe {
    pub drop: usize,
    pub ones: Vec<bool>,
    pub axes: Vec<AxisRecipe>,
    pub perm_seed: u64,
    pub explicit_broadcast: bool,
}

/// A device view over a base of host-known values, and the host model of that view.
pub struct View {
    pub base: Vec<f64>,
    pub base_dev: Array,
    pub view: Array,
    pub model: Model,
}

/// The operand's own shape: `full` less the leading axes the recipe drops, with its
/// axes of extent 1.
pub fn own_shape(full: &[usize], r: &ViewRecipe) -> Vec<usize> {
    let drop = r.drop.min(full.len());
    full[drop..]
        .iter()
        .enumerate()
        .map(|(k, &d)| if r.ones[k] { 1 } else { d })
        .collect()
}

/// Builds a view of exactly `shape` as base → slice (steps, negative steps) → permute
/// (→ broadcast_to(full) when the recipe says so), with the same steps in the model.
pub fn make_view(r: &ViewRecipe, shape: &[usize], full: &[usize], rng: &mut Rng) -> View {
    let k = shape.len();
    let mut perm: Vec<usize> = (0..k).collect();
    let mut prng = Rng::new(r.perm_seed);
    for i in (1..k).rev() {
        let j = prng.usize(0, i + 1);
        perm.swap(i, j);
    }
    // view = sliced.permute(perm): view axis i is sliced axis perm[i]
    let mut sliced = vec![0usize; k];
    for i in 0..k {
        sliced[perm[i]] = shape[i];
    }
    let mut base_shape = Vec::with_capacity(k);
    let mut args = Vec::with_capacity(k);
    let mut firsts = Vec::with_capacity(k);
    let mut steps = Vec::with_capacity(k);
    for (j, &t) in sliced.iter().enumerate() {
        let a = &r.axes[j];
        let m = a.step.unsigned_abs();
        let span = t.saturating_sub(1) * m;
        let (first, extent) = if a.step > 0 {
            (a.pad, a.pad + span + 1 + a.extra)
        } else {
            // the pad stays below |step| so that "to the edge" ends after exactly t elements
            let pad = a.pad % m;
            (span + pad, span + pad + 1 + a.extra)
        };
        let end = first as isize + t as isize * a.step;
        args.push(SliceArg::Range {
            start: Some(first as isize),
            end: if end >= 0 { Some(end) } else { None },
            step: a.step,
        });
        base_shape.push(extent);
        firsts.push(first);
        steps.push(a.step);
    }
    let base_model = Model::contiguous(&base_shape);
    let mut offset = 0isize;
    let mut st = Vec::with_capacity(k);
    for j in 0..k {
        offset += firsts[j] as isize * base_model.strides[j];
        st.push(base_model.strides[j] * steps[j]);
    }
    let model = Model {
        offset,
        shape: shape.to_vec(),
        strides: perm.iter().map(|&p| st[p]).collect(),
    };
    let base = rand_f64(rng, base_shape.iter().product());
    let base_dev = dev(&base, &base_shape);
    let perm_i: Vec<isize> = perm.iter().map(|&p| p as isize).collect();
    let mut view = base_dev.slice(&args).unwrap().permute(&perm_i).unwrap();
    assert_eq!(view.shape(), shape, "view construction for {r:?}");
    if r.explicit_broadcast {
        view = view.broadcast_to(full).unwrap();
    }
    View {
        base,
        base_dev,
        view,
        model,
    }
}

pub fn axis_recipe() -> impl Strategy<Value = AxisRecipe> {
    (
        prop::sample::select(vec![1isize, 1, 1, 2, -1, -1, -2, 3]),
        0usize..3,
        0usize..3,
    )
        .prop_map(|(step, pad, extra)| AxisRecipe { step, pad, extra })
}

pub fn view_recipe() -> impl Strategy<Value = ViewRecipe> {
    (
        prop_oneof![4 => Just(0usize), 1 => 1usize..3],
        prop::collection::vec(prop::bool::weighted(0.2), 4),
        prop::collection::vec(axis_recipe(), 4),
        any::<u64>(),
        prop::bool::weighted(0.3),
    )
        .prop_map(
            |(drop, ones, axes, perm_seed, explicit_broadcast)| ViewRecipe {
                drop,
                ones,
                axes,
                perm_seed,
                explicit_broadcast,
            },
        )
}

/// Output views: exactly the shape they are given (no broadcast), sliced and permuted.
pub fn out_recipe() -> impl Strategy<Value = ViewRecipe> {
    view_recipe().prop_map(|mut r| {
        r.drop = 0;
        r.ones = vec![false; 4];
        r.explicit_broadcast = false;
        r
    })
}
