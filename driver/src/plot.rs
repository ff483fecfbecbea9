//! The locality curves as an SVG picture, laid out as Gupta, Xiang and
//! Zhou's Figure 1 (MSPC 2013): LS(N, K) from 0 to 1 against N on a log₂
//! axis from 1 to 1,024, one line per K, with a legend.
//!
//! It only draws what `gpucc_cache_pass::model::locality` computed. It needs no
//! font or system library: plotters' SVG backend writes `<text>` elements
//! and estimates their width itself, and the viewer picks the font. Other
//! picture formats are deliberately not offered.

use anyhow::{Context, Result};
use gpucc_cache_pass::model::locality::{Curves, KS, NS};
use plotters::coord::Shift;
use plotters::prelude::*;

const SIZE: (u32, u32) = (880, 520);
/// Width of the legend column right of the axes.
const LEGEND_WIDTH: u32 = 170;

/// One colour per K, in `KS` order: the Okabe–Ito palette (without its
/// yellow, unreadable on white), which colour-blind readers can tell apart.
const COLOURS: [RGBColor; KS.len()] = [
    RGBColor(0, 0, 0),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 158, 115),
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(204, 121, 167),
];

/// The SVG text of the plot. Rendered into memory first, so that a failure
/// leaves no half-written file behind.
pub fn render(curves: &Curves, title: &str) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        draw(&root, curves, title).context("cannot draw the locality plot")?;
        root.present().context("cannot draw the locality plot")?;
    }
    Ok(svg)
}

/// The x coordinate of window size `n`: log₂ N, so that the paper's powers
/// of two fall evenly on the axis.
fn x_of(n: u32) -> f64 {
    f64::from(n).log2()
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    curves: &Curves,
    title: &str,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 26))?;
    // The legend gets its own column: inside the axes it would hide some
    // curve, wherever it went.
    let (plot, legend) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
    let x_max = x_of(NS[NS.len() - 1]);
    let mut chart = ChartBuilder::on(&plot)
        .margin(16)
        .x_label_area_size(52)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..x_max, 0f64..1f64)?;
    chart
        .configure_mesh()
        .label_style(("sans-serif", 16))
        .axis_desc_style(("sans-serif", 18))
        .x_labels(NS.len())
        .x_label_formatter(&|x| format!("{}", x.exp2().round()))
        .x_desc(format!(
            "N (distinct addresses), {} level",
            curves.level.name()
        ))
        .y_labels(11)
        .y_label_formatter(&|y| format!("{y:.1}"))
        .y_desc("LS(N, K)")
        .draw()?;
    for (&k, &colour) in KS.iter().zip(&COLOURS) {
        let line: Vec<(f64, f64)> = curves
            .points
            .iter()
            .filter(|p| p.k == k)
            .map(|p| (x_of(p.n), p.ls))
            .collect();
        chart.draw_series(LineSeries::new(
            line.iter().copied(),
            colour.stroke_width(2),
        ))?;
        chart.draw_series(line.iter().map(|&p| Circle::new(p, 3, colour.filled())))?;
    }
    draw_legend(&legend)
}

/// One row per K, colour sample then label, from the top of the column.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let font = ("sans-serif", 16).into_font().color(&BLACK);
    for (row, (&k, &colour)) in KS.iter().zip(&COLOURS).enumerate() {
        let y = 40 + 26 * row as i32;
        area.draw(&PathElement::new(
            vec![(8, y), (36, y)],
            colour.stroke_width(2),
        ))?;
        area.draw(&Circle::new((22, y), 3, colour.filled()))?;
        let label = if k == 0 {
            "K = 0 B (temporal)".to_string()
        } else {
            format!("K = {k} B")
        };
        area.draw(&Text::new(label, (44, y - 8), font.clone()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpucc_cache_pass::model::locality::{pool, Level};

    #[test]
    fn plot_has_every_curve_and_its_labels() {
        let curves = pool(Level::Warp, [&[0u64, 0, 4, 8][..]]);
        let svg = render(&curves, "tiny kernel").unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("tiny kernel"));
        assert!(svg.contains("K = 0 B (temporal)"));
        assert!(svg.contains("K = 128 B"));
        assert!(svg.contains("warp level"));
        // The log₂ axis labels N itself, 1 to 1,024.
        assert!(svg.contains("\n1024\n</text>"));
        // Every K's colour: its line, its markers, its legend sample and
        // marker.
        for colour in COLOURS {
            let RGBColor(r, g, b) = colour;
            let hex = format!("#{r:02X}{g:02X}{b:02X}");
            let lines = format!("stroke=\"{hex}\" stroke-width=\"2\"");
            let markers = format!("fill=\"{hex}\" stroke=\"none\"");
            assert_eq!(svg.matches(&lines).count(), 2, "{hex}");
            assert_eq!(svg.matches(&markers).count(), NS.len() + 1, "{hex}");
        }
    }
}
