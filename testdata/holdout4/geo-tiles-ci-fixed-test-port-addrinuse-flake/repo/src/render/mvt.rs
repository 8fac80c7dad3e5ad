use geo::{Simplify, Geometry};

/// Douglas-Peucker tolerance (in tile units) per zoom; low zooms get coarser shapes.
pub fn simplify_tolerance(z: u8) -> f64 {
    match z {
        0..=7 => 8.0,
        8..=11 => 2.0,
        _ => 0.0,
    }
}

pub fn prepare(geom: Geometry<f64>, z: u8) -> Geometry<f64> {
    let eps = simplify_tolerance(z);
    if eps == 0.0 {
        return geom;
    }
    match geom {
        Geometry::LineString(l) => Geometry::LineString(l.simplify(&eps)),
        Geometry::Polygon(p) => Geometry::Polygon(p.simplify(&eps)),
        Geometry::MultiPolygon(m) => Geometry::MultiPolygon(m.simplify(&eps)),
        other => other,
    }
}
