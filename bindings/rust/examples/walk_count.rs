// Tessera example in Rust: walks of k steps in a graph, (M^k)[x][y], with gemm (all pairs, M^k
// by squaring) and with k sparse products from e_y (one target); the two must agree.
use tessera::{gemm, Format, Layout, Op, SparseMatrix};

fn main() -> Result<(), tessera::Error> {
    // The Petersen graph: outer 5-cycle, inner pentagram, five spokes; undirected.
    let n = 10usize;
    let mut edges: Vec<(i32, i32)> = vec![];
    for i in 0..5 {
        edges.push((i, (i + 1) % 5));
        edges.push((5 + i, 5 + (i + 2) % 5));
        edges.push((i, 5 + i));
    }
    let (mut rows, mut cols) = (vec![], vec![]);
    for &(u, v) in &edges {
        rows.extend([u, v]);
        cols.extend([v, u]);
    }
    let ones = vec![1.0f64; rows.len()];
    let mut dense = vec![0.0f64; n * n];
    for (&r, &c) in rows.iter().zip(&cols) {
        dense[r as usize * n + c as usize] = 1.0;
    }

    let k: i32 = 12;
    // All pairs: P = M^k by repeated squaring.
    let mut p: Vec<f64> = (0..n * n)
        .map(|i| if i / n == i % n { 1.0 } else { 0.0 })
        .collect();
    let (mut base, mut e) = (dense.clone(), k);
    while e > 0 {
        if e & 1 == 1 {
            let mut t = vec![0.0; n * n];
            gemm(
                None,
                Layout::RowMajor,
                Op::N,
                Op::N,
                n,
                n,
                n,
                1.0,
                &p,
                n,
                &base,
                n,
                0.0,
                &mut t,
                n,
            )?;
            p = t;
        }
        e >>= 1;
        if e > 0 {
            let mut t = vec![0.0; n * n];
            gemm(
                None,
                Layout::RowMajor,
                Op::N,
                Op::N,
                n,
                n,
                n,
                1.0,
                &base,
                n,
                &base,
                n,
                0.0,
                &mut t,
                n,
            )?;
            base = t;
        }
    }

    // One target: v = M^k e_y.
    let mut m = SparseMatrix::from_coo(None, n, n, &rows, &cols, &ones)?;
    m.optimize(None, Format::Auto)?;
    let target = 7;
    let mut v = vec![0.0; n];
    v[target] = 1.0;
    for _ in 0..k {
        v = m.mul_vec(&v)?;
    }
    println!(
        "walks of {} steps into vertex {} of the Petersen graph: {:?}",
        k, target, v
    );
    let agree = (0..n).all(|x| p[x * n + target] == v[x]);
    // 3-regular: every vertex starts 3^k walks.
    let regular = (0..n).all(|x| p[x * n..(x + 1) * n].iter().sum::<f64>() == 3f64.powi(k));
    println!(
        "{}",
        if agree && regular {
            "gemm and spmv agree"
        } else {
            "FAILED"
        }
    );
    std::process::exit(if agree && regular { 0 } else { 1 });
}
