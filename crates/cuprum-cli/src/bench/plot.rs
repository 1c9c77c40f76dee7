//! `--plot FILE.svg`: a horizontal bar chart of the % of the copy bandwidth each
//! bandwidth-bound workload reaches, cuprum and (when measured) CuPy side by side, with each
//! workload's target as a red mark. Drawn with plotters' SVG backend (text as SVG `<text>`,
//! no font files needed).

use super::report::Report;
use super::timed::R;
use super::workloads;
use plotters::coord::combinators::WithKeyPoints;
use plotters::coord::types::{RangedCoordf64, RangedCoordi32};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// One workload's bars.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub name: String,
    pub ours: Option<f64>,
    pub cupy: Option<f64>,
    /// The target's % of copy, if it has one.
    pub target: Option<f64>,
}

/// The bandwidth-bound rows of `report` (those with a % of copy on either side).
pub fn bars(report: &Report) -> Vec<Bar> {
    report
        .workloads
        .iter()
        .map(|r| Bar {
            name: r.name.clone(),
            ours: r.pct_of_copy,
            cupy: r.cupy.as_ref().and_then(|c| c.pct_of_copy),
            target: workloads::find(&r.name).and_then(|w| w.target.pct_of_copy()),
        })
        .filter(|b| b.ours.is_some() || b.cupy.is_some())
        .collect()
}

const CUPRUM: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
const CUPY: RGBColor = RGBColor(0xff, 0x7f, 0x0e);
const TARGET: RGBColor = RGBColor(0xd6, 0x27, 0x28);

/// x: % of copy; y: tenths of a workload's band, the first workload at the top.
type Chart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, WithKeyPoints<RangedCoordi32>>>;

/// Which side a bar shows.
#[derive(Clone, Copy)]
enum Side {
    Cuprum,
    Cupy,
}

impl Side {
    fn value(self, b: &Bar) -> Option<f64> {
        match self {
            Side::Cuprum => b.ours,
            Side::Cupy => b.cupy,
        }
    }
}

/// Workload `i` of `n` (from the top) spans y in [10(n-1-i), 10(n-i)).
fn band(i: usize, n: usize) -> i32 {
    10 * (n - 1 - i) as i32
}

/// Draws `bars` to the SVG file `path` under `title`.
pub fn draw(path: &Path, title: &str, bars: &[Bar]) -> R<()> {
    if bars.is_empty() {
        return Err("nothing to plot: no bandwidth-bound workload in this run".into());
    }
    let n = bars.len();
    let longest = bars.iter().map(|b| b.name.len()).max().unwrap_or(0) as u32;
    let root = SVGBackend::new(path, (900 + 7 * longest, 110 + 52 * n as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let top = bars
        .iter()
        .flat_map(|b| [b.ours, b.cupy, b.target])
        .flatten()
        .fold(100.0f64, f64::max);
    let labels: Vec<i32> = (0..n).map(|i| band(i, n) + 5).collect();
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(20 + 7 * longest)
        .build_cartesian_2d(0.0..top * 1.25, (0..10 * n as i32).with_key_points(labels))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_label_formatter(&|&y| {
            bars[n - 1 - (y / 10).clamp(0, n as i32 - 1) as usize]
                .name
                .clone()
        })
        .x_label_formatter(&|x| format!("{x:.0}"))
        .x_desc("% of the copy bandwidth measured in the same run")
        .draw()?;
    let both = bars.iter().any(|b| b.cupy.is_some());
    draw_side(&mut chart, bars, Side::Cuprum, both)?;
    draw_side(&mut chart, bars, Side::Cupy, both)?;
    draw_targets(&mut chart, bars)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

/// The bars of one side with their values; cuprum's above CuPy's when `both` are drawn.
fn draw_side(chart: &mut Chart, bars: &[Bar], side: Side, both: bool) -> R<()> {
    if bars.iter().all(|b| side.value(b).is_none()) {
        return Ok(());
    }
    let n = bars.len();
    let span = |i: usize| {
        let y = band(i, n);
        match (both, side) {
            (false, _) => (y + 2, y + 8),
            (true, Side::Cuprum) => (y + 5, y + 9),
            (true, Side::Cupy) => (y + 1, y + 5),
        }
    };
    let (label, color) = match side {
        Side::Cuprum => ("cuprum", CUPRUM),
        Side::Cupy => ("CuPy", CUPY),
    };
    let rects = bars.iter().enumerate().filter_map(|(i, b)| {
        let (lo, hi) = span(i);
        side.value(b)
            .map(|v| Rectangle::new([(0.0, lo), (v, hi)], color.filled()))
    });
    chart
        .draw_series(rects)?
        .label(label)
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    let style =
        TextStyle::from(("sans-serif", 11).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    let values = bars.iter().enumerate().filter_map(|(i, b)| {
        let (lo, hi) = span(i);
        let v = side.value(b)?;
        let p = if v < 10.0 { 1 } else { 0 };
        Some(Text::new(
            format!(" {v:.p$} %"),
            (v, (lo + hi) / 2),
            style.clone(),
        ))
    });
    chart.draw_series(values)?;
    Ok(())
}

/// A red mark across the band of each workload with a % of copy target.
fn draw_targets(chart: &mut Chart, bars: &[Bar]) -> R<()> {
    let n = bars.len();
    let mark = |t: f64, y: i32| PathElement::new(vec![(t, y), (t, y + 10)], TARGET.stroke_width(3));
    let marks = bars
        .iter()
        .enumerate()
        .filter_map(|(i, b)| Some(mark(b.target?, band(i, n))));
    chart.draw_series(marks)?.label("target").legend(|(x, y)| {
        PathElement::new(vec![(x + 6, y - 6), (x + 6, y + 6)], TARGET.stroke_width(3))
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_names_bars_and_targets_to_svg() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bw.svg");
        let bars = [
            Bar {
                name: "ew_add100M_f32".into(),
                ours: Some(93.0),
                cupy: Some(60.0),
                target: Some(90.0),
            },
            Bar {
                name: "smem_reduce1M_raw".into(),
                ours: Some(40.0),
                cupy: None,
                target: None,
            },
        ];
        draw(&path, "test chart", &bars).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        for text in [
            "ew_add100M_f32",
            "smem_reduce1M_raw",
            "test chart",
            "CuPy",
            "target",
        ] {
            assert!(svg.contains(text), "no {text} in\n{svg}");
        }
        assert!(svg.contains("93 %") && svg.contains("60 %"));
        assert!(draw(&path, "empty", &[]).is_err());
    }
}
